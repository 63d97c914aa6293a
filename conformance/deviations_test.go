package conformance

import (
	"path"
	"slices"
	"strings"
)

// entry excuses the findings of some operations at one place. It is the
// row type of both [deviations] and [knownDefects].
type entry struct {
	// Where lists the operations: Berlin Group operationIds, or "METHOD
	// template" for the platform's own paths.
	Where []string
	// What is the place, matched with path.Match against the finding's
	// location, so "*" stands for one segment of a JSON pointer (an array
	// index or a link name), and {a,b} for either a or b: "request header
	// consent-id" (header names in lower case), "request path
	// payment-product", "{request,response} body /creditorAddress/street",
	// "response body /_links/*/verbs".
	What string
	// Value, when set, must equal the offending value (path and query
	// parameters, body scalars).
	Value string
	// Reason, when set, must occur in the validator's message.
	Reason string
	// Why says why the platform differs (deviations), or what is wrong:
	// file, field, expected and actual (known defects).
	Why string
	// Section is the docs/interface.md section of the platform rule
	// (deviations), or the file at fault (known defects).
	Section string
	// Recorded lists, sorted, the platform's recorded answer documents
	// (testdata/platform) that show the deviation: the evidence that the
	// platform, not only the emulator, differs. TestConformance holds it
	// equal to the documents whose findings the deviation excuses. A
	// deviation of the request (headers, query, paths, request bodies) has
	// none: the documents are answers.
	Recorded []string
}

// matches reports whether e excuses f.
func (e entry) matches(f finding) bool {
	if !slices.Contains(e.Where, f.op) {
		return false
	}
	if !slices.ContainsFunc(expand(e.What), func(p string) bool {
		ok, err := path.Match(p, f.loc)
		return err == nil && ok
	}) {
		return false
	}
	if e.Value != "" && e.Value != f.value {
		return false
	}
	return e.Reason == "" || strings.Contains(f.msg, e.Reason)
}

// expand writes out the {a,b} alternatives of a pattern.
func expand(pattern string) []string {
	open := strings.IndexByte(pattern, '{')
	if open < 0 {
		return []string{pattern}
	}
	end := strings.IndexByte(pattern[open:], '}')
	if end < 0 {
		return []string{pattern}
	}
	var out []string
	for _, alt := range strings.Split(pattern[open+1:open+end], ",") {
		out = append(out, expand(pattern[:open]+alt+pattern[open+end+1:])...)
	}
	return out
}

// matchEntry returns the index of the first entry of table that excuses f.
func matchEntry(table []entry, f finding) (int, bool) {
	for i, e := range table {
		if e.matches(f) {
			return i, true
		}
	}
	return 0, false
}

// Operation groups of the deviations.
var (
	// aisOps are the account information operations.
	aisOps = []string{"getAccountList", "readAccountDetails", "getBalances", "getTransactionList", "getTransactionDetails",
		"getCardAccountList", "readCardAccountDetails", "getCardAccountBalances", "getCardAccountTransactionList"}
	// paymentOps are the operations on one payment of a product.
	paymentOps = []string{"initiatePayment", "getPaymentInitiationStatus", "getPaymentInformation", "cancelPayment", "startPaymentAuthorisation"}
	// basketOps are the signing basket operations.
	basketOps = []string{"createSigningBasket", "getSigningBasket", "getSigningBasketStatus", "deleteSigningBasket", "startSigningBasketAuthorisation"}
	// consentOp is the bank-offered consent, checked as createConsent.
	consentOp = "POST /v1/bank-offered-consents"
	// sandboxOps are the sandbox's mock-data operations (package sandbox),
	// platform-only: "METHOD template" (the templates of platformOnly).
	sandboxOps = []string{"POST /v1/sandbox/initialize", "GET /v1/sandbox/customers", "POST /v1/sandbox/customers",
		"GET /v1/sandbox/customers/{customerId}", "DELETE /v1/sandbox/customers/{customerId}", "POST /v1/sandbox/accounts",
		"POST /v1/sandbox/card-accounts", "POST /v1/sandbox/accounts/{accountId}/transactions",
		"POST /v1/sandbox/card-accounts/{cardAccountId}/transactions", "POST /v1/sandbox/agreements"}
	// sandboxLinkOps are the links of a mock agreement, which the emulator
	// serves and package sandbox does not call (the sandbox flow does,
	// through the client).
	sandboxLinkOps = []string{"GET /v1/sandbox/agreements/{agreementId}", "DELETE /v1/sandbox/agreements/{agreementId}",
		"GET /v1/sandbox/agreements/{agreementId}/engagements", "POST /v1/sandbox/agreements/{agreementId}/engagements"}
	// deprecatedConsentOp is the deprecated POST /v1/consents, which the
	// platform still serves: Berlin Group's createConsent, its body
	// ignored, answered as the bank-offered consent.
	deprecatedConsentOp = "createConsent"
)

// deviations are the places where the platform legitimately differs from
// Berlin Group 1.3.9. Every entry must excuse at least one finding of
// every operation it names in a full run (TestConformance fails on unused
// ones). The same table is in doc.go and in docs/interface.md section 11,
// numbered in the same order (11.1 is deviations[0]).
var deviations = []entry{
	{ // 11.1
		Where: paymentOps, What: "request path payment-product", Value: "norwegian-domestic-credit-transfers",
		Why:     "the platform's own product for Norwegian domestic credit transfers; Berlin Group lists only SEPA, instant SEPA, TARGET2 and cross-border products",
		Section: "4.2, 10",
	},
	{ // 11.2
		Where: aisOps, What: "request header consent-id", Reason: "required parameter missing",
		Why:     "there is no consent id: after SCA the PSU-ID and TPP-Session-ID identify the session, which is the consent",
		Section: "10 (Session model)",
	},
	{ // 11.3
		Where: concat(aisOps, paymentOps, basketOps, []string{consentOp, deprecatedConsentOp}), What: "request header x-accept-fix",
		Why:     "the platform's switches for early adoption of breaking changes; the SDK always sends amount-as-string",
		Section: "4.1, 4.2, 9.2",
	},
	{ // 11.4
		Where: concat(aisOps, paymentOps, basketOps, []string{consentOp, deprecatedConsentOp}), What: "request header tpp-session-id",
		Why:     "the TPP's session id binds the SCA and later calls of a PSU; Berlin Group has no such header",
		Section: "4.1, 10 (Session model)",
	},
	{ // 11.5
		Where:   concat(aisOps, []string{"getPaymentInitiationStatus", "getPaymentInformation", "getSigningBasket", "getSigningBasketStatus", "deleteSigningBasket"}),
		What:    "request header tpp-redirect-uri",
		Why:     "TPP-Redirect-URI goes on every request, since any answer may ask for SCA; Berlin Group defines it only where an authorisation starts",
		Section: "5.8",
	},
	{ // 11.6
		Where:   concat(aisOps, []string{"getPaymentInitiationStatus", "getPaymentInformation", "cancelPayment", "getSigningBasket", "deleteSigningBasket"}),
		What:    "request header psu-id",
		Why:     "after SCA every call of the PSU's session carries the psu-id of the redirect as PSU-ID, account information included",
		Section: "5.9, 10 (Session model)",
	},
	{ // 11.7
		Where: []string{"initiatePayment"}, What: "request header {x-psu-identity,x-psu-authmethod-preferred,psu-context}",
		Why:     "the platform's SCA streamlining headers and the PSU context of single-SCA initiation",
		Section: "4.2, 5.11",
	},
	{ // 11.8
		Where: []string{"initiatePayment"}, What: "request query allowLogicalDuplicate",
		Why:     "lets the bank create a logical duplicate of a live payment, which it refuses otherwise",
		Section: "4.2",
	},
	{ // 11.9
		Where: []string{"getTransactionList"}, What: "request query {limit,offset}",
		Why:     "the platform pages transactions with limit and offset (its next links carry them); Berlin Group has no paging parameters",
		Section: "4.5, 10",
	},
	{ // 11.10
		Where: []string{consentOp}, What: "request route",
		Why:     "consent is bank-offered: POST /v1/bank-offered-consents without a body replaces Berlin Group's POST /v1/consents, whose answer schema it is checked against",
		Section: "1.8, 9.3, 10",
	},
	{ // 11.11
		Where: []string{consentOp, deprecatedConsentOp}, What: "response body /{consentId,consentStatus}", Reason: "required member missing",
		Why:      "the bank-offered consent answers 201 with only _links.scaRedirect: no consent id and no consent status",
		Section:  "10",
		Recorded: []string{"bank-offered-consent-201.json"},
	},
	{ // 11.12
		Where: []string{"GET /v1/tpps/{tppId}/contact-information", "PUT /v1/tpps/{tppId}/contact-information"}, What: "request route",
		Why:     "the TPP dialogue (the TPP's contact e-mail address) is the platform's own operation",
		Section: "4.5, 10",
	},
	{ // 11.13
		Where: []string{consentOp, deprecatedConsentOp, "initiatePayment", "getPaymentInitiationStatus", "startPaymentAuthorisation",
			"getAccountList", "readAccountDetails", "getBalances", "getTransactionList", "getCardAccountList", "readCardAccountDetails",
			"getCardAccountTransactionList", "createSigningBasket", "getSigningBasket", "startSigningBasketAuthorisation"},
		What:    "response body {,/account,/accounts/*,/cardAccount,/cardAccounts/*,/transactions,/cardTransactions}/_links/*/verbs",
		Why:     "every link carries verbs, the HTTP methods allowed on it now; Berlin Group links have only href",
		Section: "2.1",
		Recorded: []string{"account.json", "accounts.json", "bank-offered-consent-201.json", "card-accounts.json", "card-transactions.json",
			"error-401-sca-redirect.json", "payment-ndct-create-201.json", "payment-sepa-create-201.json", "payment-start-authorisation-201.json",
			"payment-status-accp-funds-unavailable.json", "payment-status-actc.json", "signing-basket-create-201.json", "signing-basket-get.json",
			"transactions-page1.json", "transactions-page2.json"},
	},
	{ // 11.14
		Where: []string{"initiatePayment"}, What: "request body /creditorAddress/{street,postalCode,city}",
		Why:     "the platform's address names street, postalCode and city where Berlin Group has streetName, postCode and townName",
		Section: "2.3",
	},
	{ // 11.15
		Where: []string{"getPaymentInformation"}, What: "response body /creditorAddress/{street,postalCode,city}",
		Why:     "the details echo the request, with the platform's address names (11.14)",
		Section: "2.3, 10",
	},
	{ // 11.16
		Where: []string{"initiatePayment"}, What: "request body /debtorAccount/other",
		Why:     "a card account pays an NDCT as debtorAccount.other {identification: relatedAccount, schemeNameProprietary: creditCardAccount}",
		Section: "2.3a",
	},
	{ // 11.17
		Where: []string{"initiatePayment"}, What: "request body /remittanceInformationStructuredArray/*", Reason: "value must be a string",
		Why:     "the structured references are objects {reference, referenceType, referenceIssuer}, a KID among them; Berlin Group 1.3.9 has strings of 140 characters",
		Section: "2.4",
	},
	{ // 11.18
		Where: []string{"getPaymentInitiationStatus", "getPaymentInformation"}, What: "response body /paymentId",
		Why:      "status and details answers carry the paymentId",
		Section:  "10",
		Recorded: []string{"payment-ndct-details.json", "payment-status-accp-funds-unavailable.json", "payment-status-actc.json"},
	},
	{ // 11.19
		Where: []string{"getBalances", "getCardAccountBalances", "getPaymentInformation"}, What: "response body /_links",
		Why:      "balances and payment details answers carry links (self; for a payment also status)",
		Section:  "10",
		Recorded: []string{"balances.json", "card-account-balances.json", "payment-ndct-details.json"},
	},
	{ // 11.20
		Where: []string{"getTransactionList"}, What: "response body /transactions/_links/account", Reason: "required member missing",
		Why:      "the transactions' links are self and next (paging); the account link Berlin Group requires is not sent",
		Section:  "10",
		Recorded: []string{"transactions-page1.json", "transactions-page2.json"},
	},
	{ // 11.21
		Where: []string{"readCardAccountDetails"}, What: "response body /cardAccount/relatedAccount",
		Why:     "a card account names the reference that identifies it as the debtor of an NDCT",
		Section: "2.3a",
	},
	{ // 11.22
		Where: []string{"startPaymentAuthorisation", "startSigningBasketAuthorisation"}, What: "response body /authorisationId", Reason: "required member missing",
		Why:      "starting an authorisation answers 201 with scaStatus and the scaRedirect link only; there is no authorisation sub-resource",
		Section:  "10",
		Recorded: []string{"payment-start-authorisation-201.json"},
	},
	{ // 11.23
		Where: []string{"GET /v1/agreements"}, What: "request route",
		Why:      "the PSU's corporate agreements, whose id PSU-Corporate-ID carries, are listed by the platform's own operation",
		Section:  "4.5, 5.10, 10",
		Recorded: []string{"agreements.json"},
	},
	{ // 11.24
		Where: []string{"GET /v1/user"}, What: "request route",
		Why:     "a PISP starts the PSU's SCA, which names a corporate user's agreement, with the platform's own GET /v1/user",
		Section: "4.5, 5.10, 10",
	},
	{ // 11.25
		Where: concat(sandboxOps, sandboxLinkOps), What: "request route",
		Why:      "the sandbox's mock-data operations under /v1/sandbox (initialisation, customers, accounts, card accounts, their transactions, agreements) are the platform's own, absent from production",
		Section:  "1.4, 1.5, 2.8, 4.4, 4.5, 10",
		Recorded: []string{"sandbox-customers.json"},
	},
	{ // 11.26
		Where: []string{consentOp, deprecatedConsentOp}, What: "request header psu-ip-address", Reason: "required parameter missing",
		Why:     "PSU-IP-Address is sent while the PSU is present and left out when the TPP acts alone; the interface requires it on basket and payment creation only, and a consent starts without it",
		Section: "4.1 to 4.3, 5.14",
	},
}

// concat joins operation lists.
func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// knownDefects are places where the SDK or the emulator breaks the Berlin
// Group schema although the platform does not (docs/interface.md and its
// section 11 name no such difference): Where and What place the finding
// as for a deviation, Why names the field, what is expected and what is
// sent, Section the file at fault. Each makes the exchange's subtest skip,
// naming the defect, only while it is listed; a fixed defect must be
// removed (an entry that excuses nothing fails the run). None is known.
var knownDefects = []entry{}
