// Package conformance checks the SDK and its emulator against the Berlin
// Group NextGenPSD2 XS2A Framework 1.3.9 OpenAPI file, the standard the
// platform follows with deviations (docs/interface.md section 1.6). It is
// a test-only module of its own, so that the SDK does not depend on
// kin-openapi; run it with
//
//	cd conformance && go test ./...
//
// # What is checked
//
// The tests drive the SDK (client, accounts, payments, basket, tpp, sca,
// sandbox) against the in-process emulator (sandbox/emulator) through a
// recording http.RoundTripper: consent, accounts, balances, paged
// transactions, transaction details, card accounts; Norwegian domestic,
// SEPA, periodic and bulk payments with status, details, cancellation and
// start of authorisation; signing baskets; the TPP's contact address; a
// corporate PSU's GET /v1/user and agreements; every mock-data operation
// of the sandbox; and the emulator's error answers (400, 401, 403, 404,
// 405, 429). Every request
// is validated with openapi3filter.ValidateRequest (path, query, headers
// including the required ones, JSON body) and every answer with
// openapi3filter.ValidateResponse (status, headers, JSON body) against the
// Berlin Group file in testdata, stored unmodified (testdata/README.md).
// The platform's answer documents in testdata/platform are validated
// against the matching answer schemas as well.
//
// Authentication is not what is checked: the filter accepts every
// security scheme (the signing package and the emulator check the
// Signature). The file's formats uuid, ipv4 and uri are checked besides
// date, date-time and byte.
//
// Beyond the file's letter the validator reports request headers and
// query parameters that the operation does not define (standard HTTP
// headers aside), and it closes the object schemas that list their
// properties, so that a member Berlin Group does not define (street for
// streetName, verbs on a link) is reported too. Where the file gives a
// body as a oneOf over the payment services, the alternative of the
// path's payment-service is used, as the file's own description says, so
// that an error points at the member at fault.
//
// # Deviations
//
// The platform differs from Berlin Group 1.3.9 in the places of the table
// deviations (deviations_test.go), each matched narrowly by operation and
// place (parameter, header or JSON pointer, a value or reason where that
// is not enough). docs/interface.md section 11 documents the same table
// under the same numbers:
//
//	11.1  payment-product norwegian-domestic-credit-transfers: the platform's own product
//	11.2  no Consent-ID on account information calls: PSU-ID and TPP-Session-ID are the consent
//	11.3  x-accept-fix on every call: early adoption switches (amount-as-string)
//	11.4  TPP-Session-ID on every call: the session of the PSU
//	11.5  TPP-Redirect-URI on every call: any answer may ask for SCA
//	11.6  PSU-ID on account information, status, details, cancel and basket calls
//	11.7  X-PSU-IDENTITY, X-PSU-AuthMethod-Preferred, PSU-Context on payment initiation
//	11.8  query allowLogicalDuplicate on payment initiation
//	11.9  query limit and offset on transactions: the platform's paging
//	11.10 POST /v1/bank-offered-consents instead of POST /v1/consents
//	11.11 its answer: no consentId, no consentStatus
//	11.12 GET and PUT /v1/tpps/{tppId}/contact-information: the TPP dialogue
//	11.13 verbs on every link
//	11.14 creditorAddress street, postalCode, city in payment requests
//	11.15 the same in payment details
//	11.16 debtorAccount.other: a card account as debtor
//	11.17 remittanceInformationStructuredArray of objects, not strings
//	11.18 paymentId in status and details answers
//	11.19 _links in balances answers and payment details
//	11.20 no account link in the transactions' _links
//	11.21 relatedAccount on card accounts
//	11.22 no authorisationId when an authorisation starts
//	11.23 GET /v1/agreements: the PSU's corporate agreements
//	11.24 GET /v1/user: the SCA of a PISP
//	11.25 the sandbox's mock-data operations under /v1/sandbox
//	11.26 PSU-IP-Address optional on the consents: sent while the PSU is present
//
// Each deviation names the platform's recorded answer documents
// (testdata/platform) that show it, the evidence that the platform and
// not only the emulator differs; TestConformance holds that list equal to
// the documents whose findings the deviation excuses. Where a recording
// and the text of docs/interface.md disagree, the recording wins.
//
// A finding no deviation excuses fails its exchange's subtest. An entry
// that excused nothing in a full run, per operation it names, fails
// TestConformance, so the table cannot outlive the differences it
// describes.
//
// # The platform's description: docs/openapi.json
//
// docs/openapi.json is an OpenAPI 3.1 description of the interface as the
// SDK and the emulator implement it, for teams that work in another
// language (a client generator takes it). It is generated, not written:
// openapi_test.go takes the operations the SDK calls from the Berlin
// Group file and changes them where the platform differs, one block per
// entry of deviations, each change marked x-deviation with its
// docs/interface.md section 11 number (the root's x-deviations lists them
// with the table's reasons); the platform's own operations, which Berlin
// Group does not define, are added (the TPP dialogue, the corporate
// agreements, GET /v1/user and the sandbox's mock data, each marked with
// its deviation); unused components are dropped. It describes every
// operation the SDK calls and those only the emulator serves (the
// deprecated POST /v1/consents, the links of a sandbox agreement), and
// TestConformance fails while a flow calls none of one (maxUnexercised);
// sandbox/emulator's TestOpenAPIDescribesEveryRoute fails while its
// paths and methods differ from the routes the emulator serves. The emulator serves
// the same file at /openapi.json (sandbox/emulator/openapi.json, a copy).
// TestOpenAPIDocument fails while either file differs from what the
// generator makes; regenerate both with
//
//	go generate ./...   (in conformance/)
//
// TestConformance validates every exchange of the flows and every answer
// document of testdata/platform against docs/openapi.json as well, where
// any finding fails: the deviations are part of that description. The
// flows send one request outside it on purpose (refusedOnPurpose).
//
// # Known defects
//
// Where the SDK or the emulator breaks the schema and the platform does
// not, the table knownDefects (deviations_test.go) names the place, the
// file at fault and what is expected instead. While an entry is listed
// the exchange's subtest skips with that reason; an entry that no longer
// occurs fails the run, so a fixed defect leaves the table with its fix.
package conformance

//go:generate go test -run TestOpenAPIDocument -update
