// Package emulator is an in-process bank sandbox for tests, in the spirit
// of net/http/httptest: an HTTPS server on the loopback interface that
// speaks the interface of docs/interface.md with the paths and JSON shapes of the
// shared Norwegian PSD2 platform (docs/interface.md section 10), checks every request the
// way the bank does, and runs the whole SCA, consent, account, payment and
// signing-basket life cycle in memory.
//
// It imports only the signing and money packages and its own internals
// (internal/rules, internal/paymentrules, which hold its request rules):
// it checks the wire, not the SDK.
//
// # Starting a server
//
//	s := emulator.NewServer()
//	defer s.Close()
//	creds, _ := s.NewTPP("My TPP") // RSA key + certificate, registered as trusted
//	c, _ := client.New(s.URL, creds, client.WithHTTPClient(s.Client()))
//
// [Server.URL] is the API base, "https://127.0.0.1:PORT/api"; the hrefs in
// _links are relative to it ("/v1/..." without /api), except scaRedirect,
// which is absolute and points at the emulator's authorisation page.
// [Server.Client] trusts the emulator's certificate authority
// ([Server.CACertificate]) and speaks TLS 1.2 or higher. [Server.Handler]
// mounts the emulator in a server of your own (API under /api, SCA page
// under /tap-sandbox/). A TPP certificate must be registered: issued by
// [Server.NewTPP], passed to [WithTrustedCertificates] or [Server.Trust];
// any other gets 401 CERTIFICATE_INVALID. The command
// github.com/tppkit/psd2/cmd/psd2-emulator (and "psd2 emulator") runs a
// server standalone.
//
// # Several banks at once
//
// [NewMultiBank] serves one bank per host name on one loopback listener,
// as the platform's banks each have their own host: every bank is a
// [Server] of its own (customers, accounts, payments, budgets, registered
// TPPs), routed by the request's Host, and all share one certificate
// authority, so one certificate from [MultiBank.NewTPP] is trusted by
// every bank. [MultiBank.Client] reaches every host name, which need not
// resolve; names under .localhost also work with curl.
//
//	m, _ := emulator.NewMultiBank([]string{"alpha.localhost", "beta.localhost"})
//	defer m.Close()
//	creds, _ := m.NewTPP("My TPP")
//	c, _ := client.New(m.URL("alpha.localhost"), creds, client.WithHTTPClient(m.Client()))
//
// # Request checks
//
// Every API request passes the checks of docs/interface.md section 5 before it reaches an
// endpoint, in this order (all answers carry tppMessages naming the
// problem in code and path):
//
//   - X-Request-ID present (400 HTTP_HEADER_REQUIRED) and 1 to 200
//     printable ASCII characters, not necessarily a UUID (400 FORMAT_ERROR);
//   - TPP-Signature-Certificate present (400 HTTP_HEADER_REQUIRED), base64
//     DER (400 FORMAT_ERROR), registered (401 CERTIFICATE_INVALID), valid on
//     the emulator clock (401 CERTIFICATE_EXPIRED);
//   - Signature present (400 HTTP_HEADER_REQUIRED); plain ASCII or one
//     RFC 2047 encoded word (a raw non-ASCII value: 400 FORMAT_ERROR);
//     parseable, algorithm rsa-sha256, keyId naming the certificate (400
//     FORMAT_ERROR). The bank's exact keyId matching is not public, so the
//     emulator parses the CA part as RFC 2253 (keywords or dotted OIDs,
//     escapes, #hex DER values) and compares it with the certificate's
//     issuer (signing.MatchKeyID): the strict RFC 2253 form of
//     signing.KeyID (Java's) and OpenSSL's form of signing.KeyIDOpenSSL
//     both pass. The serial must be upper-case hex without padding;
//   - Date present, and Digest with a body where the operation needs one
//     (400 HTTP_HEADER_REQUIRED; see Required headers);
//   - the signed header list names only date, digest, x-request-id,
//     psu-id, psu-corporate-id and tpp-redirect-uri (no (request-target),
//     content-type or host), and covers date, x-request-id, digest (with
//     a Digest) and psu-id, psu-corporate-id, tpp-redirect-uri when sent
//     (400 FORMAT_ERROR);
//   - Date within 60 seconds of the emulator clock; Digest (SHA-256 or
//     SHA-512) matching the body; the signature verifying (400 FORMAT_ERROR);
//   - a body must be application/json (XML: 400), valid UTF-8 JSON, and
//     free of the characters the bank's downstream systems cannot take
//     (docs/interface.md sections 1.6, 7): emoji and pictographs (the
//     Unicode Extended_Pictographic set above ISO 8859-1, ✅ U+2705
//     among them; © and ® are Latin-1 text and pass) and anything
//     outside the Basic Multilingual Plane, raw or \u-escaped,
//     in any value or key (400 FORMAT_ERROR naming the field);
//   - the X-Request-ID not used by the same TPP for another call (400
//     FORMAT_ERROR). The same call again (method, path and query, body),
//     a retry, passes. The last 65,536 ids are remembered; older ones may
//     be used again.
//
// Every answer carries a Date header from the emulator clock (clients learn
// the server's clock from it) and echoes X-Request-ID.
//
// # Required headers
//
// After those checks, and before an endpoint looks at the request, the
// headers the operation requires must be present and not blank, else 400
// HTTP_HEADER_REQUIRED with the first missing header in path:
//
//   - every call outside /v1/sandbox/: TPP-Redirect-URI, since any call
//     may need SCA (docs/interface.md section 5.8); the mock-data calls
//     need only the headers above (section 4.4);
//   - creating a signing basket: TPP-Redirect-URI, x-accept-fix (which
//     must list amount-as-string), TPP-Session-ID, PSU-ID and
//     PSU-IP-Address (section 4.1);
//   - creating a payment, of every service and product: those of a
//     basket, then Digest (sections 4.2, 4.3); PSU-Context is optional.
//
// A body needs a Digest, except on basket creation (section 4.1 lists
// none) and on the deprecated POST /v1/consents, whose body is ignored
// whatever it is (not even its type or characters are checked); a Digest
// that is sent is checked everywhere. PSU-Device-ID must be a UUID,
// PSU-HTTP-Method one of GET, POST, PUT, PATCH, DELETE and
// TPP-Redirect-Preferred true or false, on every call that sends them (400
// FORMAT_ERROR naming the header).
//
// On payment and basket creation PSU-ID must be one the emulator issued
// to this TPP in an SCA redirect: a PISP without one calls GET /v1/user,
// sends the PSU to its scaRedirect, and reads psu-id (and, in corporate
// context, psu-corporate-id) from the redirect (section 5.10). Any other
// UUID answers 401 PSU_CREDENTIALS_INVALID with path PSU-ID; a corporate
// PSU must send PSU-Corporate-ID (400 HTTP_HEADER_REQUIRED), one of its
// agreements (401 CORPORATE_ID_INVALID); a PSU-Context that is sent must
// be the PSU's context, PRIVATE or CORPORATE (400 FORMAT_ERROR). A PSU-ID
// compares as a UUID: an issued one in upper case is the same PSU-ID.
//
// # SCA and sessions
//
// A request that needs SCA answers with _links.scaRedirect, an absolute
// URL of the form https://127.0.0.1:PORT/tap-sandbox/9999/?route_secesb_id=1&flow=psd2&state=<uuid>&context=PRIVATE.
// The page (scapage.html, no JavaScript) shows what is being authorised:
// the consent, the PSU's identification (GET /v1/user), a payment's amount,
// creditor and accounts, or a basket's payments and total. It names the
// method X-PSU-AuthMethod-Preferred asked for, says when
// TPP-Redirect-Preferred false asked for the bank's app, and pre-fills the
// customer number from X-PSU-IDENTITY and the agreement from
// PSU-Corporate-ID. It asks for the customerNumber (and, for a corporate
// customer, the agreement) and has approve and cancel buttons; approving
// redirects (302) to
// TPP-Redirect-URI with psu-id (a UUID stable per TPP certificate and
// customer), tpp-session-id, context and, in CORPORATE context,
// psu-corporate-id (the agreement id), keeping the TPP's own query (state)
// first. Cancelling or failing redirects with system, status, code and
// message (docs/interface.md section 6). In tests, [Server.Authorize],
// [Server.AuthorizeCorporate] and [Server.Reject] do the same in-process,
// through the same code as the form.
//
// Session rules (docs/interface.md section 3, 5.8 to 5.14, 8; docs/interface.md section 10 session model):
//
//   - AIS calls and GET /v1/user need TPP-Session-ID besides
//     TPP-Redirect-URI (400 HTTP_HEADER_REQUIRED without it: SCA may start
//     on any of them); PSU-ID must be a UUID (400 FORMAT_ERROR).
//   - Without PSU-ID, with an unknown PSU-ID, without consent, or with a
//     TPP-Session-ID other than that of the PSU's last completed SCA: 401
//     CONSENT_INVALID with a scaRedirect (the new SCA is bound to the
//     request's TPP-Session-ID).
//   - A new TPP-Session-ID replaces the old one only when its SCA
//     completes; an aborted SCA leaves the old session valid.
//   - Listing accounts and card accounts needs an SCA less than one hour
//     old (else 401 SCA_EXPIRED with a scaRedirect); balances and
//     transactions go on for the consent's 90 days, after which 401
//     CONSENT_EXPIRED with a scaRedirect. Full history only within the
//     hour with the PSU present; otherwise transactions older than 90 days
//     are left out (not refused).
//   - Without PSU-IP-Address (PSU not present) balances and transactions
//     allow 4 calls per account, endpoint and TPP in a rolling 24 hours,
//     then 429 ACCESS_EXCEEDED; a transaction details call counts as a
//     transactions call, as the SDK counts it.
//   - A corporate customer's calls need PSU-Corporate-ID (400
//     HTTP_HEADER_REQUIRED); an agreement that is not the customer's, or a
//     PSU-Corporate-ID from a private customer, gets 401
//     CORPORATE_ID_INVALID. Consent is per agreement: choosing another
//     agreement starts a new consent flow. GET /v1/agreements needs no
//     PSU-Corporate-ID.
//   - [Server.RevokeConsent] revokes a customer's consents as the PSU would
//     at the bank: later AIS calls get 403 CONSENT_UNKNOWN until a new SCA.
//
// # Accounts
//
// POST /v1/bank-offered-consents (and the deprecated POST /v1/consents)
// answer 201 with only _links.scaRedirect. GET /v1/accounts
// (?withBalance=true adds closingBooked and expected balances),
// /v1/accounts/{id}, /balances and /transactions (bookingStatus booked,
// pending, both or all; dateFrom, dateTo, limit up to 499, offset; the next
// page in transactions._links.next), GET /v1/card-accounts and their one,
// balances and transactions endpoints, and GET /v1/agreements answer in the
// shapes of the platform's recordings (testdata/platform). Booked entries
// are newest first. Ids have the platform's enc!!<base64url> form; paths
// accept "!" and its escaped form "%21".
//
// Known issues: by default the emulator behaves as the bank's sandbox. It
// reproduces the unreadable NDCT details and status before approval
// (docs/interface.md section 4.2), but filters and pages pending
// transactions like booked ones, since the section 8 issue leaves the
// sandbox and card accounts unaffected. [WithKnownIssues](true) behaves as
// production: with bookingStatus both or pending, all pending transactions
// of an account come with every page whatever dateFrom, dateTo and
// limit say (card accounts stay unaffected).
// [WithKnownIssues](false) reproduces neither issue.
// [Server.SetUnfilteredPending] turns the section 8 issue on or off
// between two reads.
//
// Transaction scenarios: [Server.AddTransaction], [Server.AddTwins],
// [Server.ChangeTransactionID], [Server.BookPending],
// [Server.DropPending] and [Server.Reconsent] play what a bank does to an
// account's transactions between two reads (package txsync's cases).
//
// # Sandbox data
//
// A new server holds the default customers and nothing else:
// [CustomerKari] and [CustomerOla] (private, 2 accounts and a card account
// each) and [CustomerFjordlys] and [CustomerTestfirma] (corporate, 2
// accounts each, with agreements). The first account of CustomerKari has
// 30 booked transactions over 120 days and 3 pending ones; her second
// account holds only 100.00 NOK, for insufficient-funds tests. BBANs have
// valid MOD-11 check digits and IBANs valid mod-97 check digits; default
// ids are the same in every server. Transaction dates are relative to the
// clock at initialisation.
//
// The mock-data operations: GET /v1/sandbox/customers (withAccounts,
// withAgreements), GET, POST and DELETE /v1/sandbox/customers/{id}, POST
// /v1/sandbox/accounts, /v1/sandbox/card-accounts, their
// /{id}/transactions (a JSON array; a transaction with another account as
// debtor is 400; booked ones move the balance) and /v1/sandbox/agreements.
//
// Several TPPs may share one server, each with a sandbox of its own. A
// TPP is known by its certificate, for its sandbox as for its PSU-IDs,
// sessions and payments: by the organizationIdentifier of its subject (so
// a renewed certificate is the same TPP), without one by its subject
// name, and with an empty subject by the certificate's SHA-256
// fingerprint. A TPP's sandbox starts with the default customers at its
// first call; what it creates, deletes or changes there (customers, mock
// accounts and transactions, agreements, booked payments) no other TPP
// sees, and another TPP's customer numbers, ids and accounts are unknown
// to it (404, and a failed SCA for a customer number of another sandbox).
// Default ids are the same in every sandbox. POST /v1/sandbox/initialize
// resets the caller's sandbox to exactly the 4 default customers with
// their default data, a deleted one included; other TPPs' sandboxes are
// untouched. The default customer numbers and BBANs are reserved (409
// CONFLICT on creation). The links of a customer's agreements (self: GET,
// DELETE; engagements: GET, POST) answer.
//
// # Payments
//
// The emulator serves payment initiation (docs/interface.md section 4.2, 4.3; docs/interface.md section 10
// "Paths"), where service is payments, periodic-payments or bulk-payments
// and product one of norwegian-domestic-credit-transfers,
// sepa-credit-transfers, cross-border-credit-transfers and
// instant-norwegian-domestic-credit-transfers-straks (anything else: 404
// PRODUCT_UNKNOWN):
//
//	POST   /v1/{service}/{product}                     201 paymentId, RCVD, transactionFees, _links
//	GET    /v1/{service}/{product}/{id}/status         paymentId, transactionStatus, fundsAvailable (when false), _links
//	GET    /v1/{service}/{product}/{id}                the request echoed with paymentId and _links
//	DELETE /v1/{service}/{product}/{id}                204 in RCVD (then CANC), else 405 CANCELLATION_INVALID
//	POST   /v1/{service}/{product}/{id}/authorisations 201 scaStatus started + scaRedirect (RCVD only, else 409 STATUS_INVALID)
//
// Creating needs the headers listed under Required headers, with PSU-ID,
// PSU-Corporate-ID and PSU-Context checked as said there.
//
// The body is checked field by field as docs/interface.md section 2.3 to 2.5 and
// 8 say, and the first problem answers 400 FORMAT_ERROR with the field's
// path (for example creditorAccount.bban), 400 KID_INVALID or KID_MISSING
// for a structured reference of type KID, or 400 EXECUTION_DATE_INVALID
// for a past requestedExecutionDate. Amounts must be JSON strings with
// exactly the currency's ISO 4217 minor units ("150.00" NOK, "5" JPY) and
// greater than zero; a bban has at most 30 characters, and one of 11
// digits its MOD-11 check digit (any other notation, the printed form
// with spaces or dots included, is taken as written); an IBAN is in electronic form
// (upper case, no spaces); instant payments are in NOK; unknown fields are
// ignored, and field names are case-sensitive: a key naming a field in
// another case ("CREDITORNAME") is an unknown field, so a required field
// so written is missing (400 FORMAT_ERROR naming it; the text quotes the
// key). The 201 answer carries links self (GET, DELETE), status,
// startAuthorisation and the absolute scaRedirect; fees are 3.00 NOK per
// domestic payment, 2.00 EUR per SEPA payment, 50.00 NOK per cross-border
// payment, once per payment of a bulk, and none for instant payments and
// transfers between two accounts of one customer (transactionFeeIndicator
// says which).
//
// A second payment with the same TPP, service, product, debtor, creditor,
// amount, remittance and execution date as one that is neither RJCT nor
// CANC is a logical duplicate: 400 PAYMENT_FAILED, unless the query has
// allowLogicalDuplicate=true. A payment belongs to the TPP that created it;
// another TPP gets 404 RESOURCE_UNKNOWN as for an unknown id. Ids work in
// paths with "!" or "%21". The known issue of docs/interface.md section 4.2 is reproduced
// unless [WithKnownIssues](false): the details and status of a single
// domestic credit transfer not yet approved by SCA answer 404
// RESOURCE_UNKNOWN.
//
// After SCA the payment is ACTC, or PDNG when requestedExecutionDate is
// after the bank date (PDNG: self loses DELETE, startAuthorisation
// disappears). The debtor account must be one the PSU may pay from (own
// accounts and card accounts, or the accounts of the chosen corporate
// agreement); otherwise the payment becomes RJCT and the SCA redirect
// reports 400 PAYMENT_FAILED. A card account is the debtor of an NDCT
// only through debtorAccount.other with schemeNameProprietary
// creditCardAccount and, as identification, the relatedAccount of the
// card account details (docs/interface.md section 2.3a); its resourceId
// or masked PAN identify nothing. When the PSU cancels the SCA the payment
// stays RCVD and a new authorisation can start. [Server.RunBatch] takes it
// further.
//
// # Signing baskets
//
// The signing basket endpoints (docs/interface.md sections 2.7, 4.1, 8):
//
//	POST   /v1/signing-baskets                     {paymentIds}: 201 basketId, RCVD, _links (self, status, startAuthorisation, scaRedirect)
//	GET    /v1/signing-baskets/{id}                payments, transactionStatus, _links
//	GET    /v1/signing-baskets/{id}/status         transactionStatus
//	DELETE /v1/signing-baskets/{id}                204 while the basket is RCVD, else 405 CANCELLATION_INVALID
//	POST   /v1/signing-baskets/{id}/authorisations 201 scaStatus started + scaRedirect
//
// A basket holds 1 to 10 distinct ids of payments of the same TPP, each in
// RCVD and in no other basket; creating one needs the headers listed
// under Required headers, with PSU-ID and PSU-Corporate-ID checked as on
// payment creation.
// None or more than 10: 400 FORMAT_ERROR; an unknown id or another TPP's:
// 400 RESOURCE_UNKNOWN; a bulk or periodic payment: 400
// REFERENCE_MIX_INVALID; a payment not in RCVD or already in a basket: 409
// STATUS_INVALID. One SCA approves every payment of the basket still in
// RCVD, as the payment's own SCA does; the SCA of a deleted basket
// approves nothing. A basket is not atomic: its status is the worst case
// of its payments, from worst to best RJCT (a payment is RJCT or CANC),
// RCVD (none authorised), PATC (some authorised), ACTC (all authorised,
// whatever the batch did since).
//
// # Batch and faults
//
// The batch process ([Server.RunBatch], and 5 times a day on the clock),
// [Server.Payments] and fault injection ([Server.InjectFault]) are
// described on those names.
//
// # Scenario controls
//
// In-process methods bring about what a TPP must handle but cannot cause
// over the interface: [Server.SetRoles] registers a TPP only as AISP or
// only as PISP (the other role's calls answer 401 CERTIFICATE_INVALID);
// [Server.RemovePaymentPermission] takes away payment permission on an
// account that stays listed (its payments fail at SCA or in the batch);
// [Server.SetLastOnlineSCA] dates the PSU's last SCA at the bank, so that
// after 180 days its transactions cannot be read without it (401
// SCA_EXPIRED with a scaRedirect); [Server.GrantAgreement] gives a
// private PSU access to a company's agreement, and
// [Server.AuthorizeInContext] (or "Act as" on the SCA page) is the PSU
// choosing the PRIVATE or CORPORATE context during SCA: in CORPORATE
// context it sees and pays from the agreement's accounts only, with the
// agreement as PSU-Corporate-ID; [Server.AuthorizeCorporate] is a
// corporate customer choosing one of its agreements;
// [Server.RunBatch] moves payments along on demand; [Server.RevokeConsent]
// and [Server.InjectFault] are described on those names.
//
// # Signed answers
//
// With [WithResponseSigning] every API answer carries Date, Digest,
// X-Request-ID and a Signature made with a key the emulator's CA certified
// (docs/interface.md section 5.7); [Server.ResponseCertificate] is the certificate to give
// the SDK (client.WithBankCertificates). The faults [FaultCorruptSignature]
// and [FaultCorruptDigest] process a request normally and then spoil its
// answer's signature or body, for tests of response verification.
//
// # Timeouts and limits
//
// The server is a real network server (the standalone command runs for
// days): it closes connections that are slow to finish their TLS
// handshake or request headers, slow to send a request, or idle
// ([Timeouts], [DefaultTimeouts], [WithTimeouts]), and it caps the state
// it keeps: customers, accounts, agreements, transactions, payments,
// signing baskets, waiting SCA authorisations and PSU sessions
// ([Limits], [DefaultLimits], [WithLimits]). A request past a cap gets
// 507 Insufficient Storage with code SYSTEM_ERROR and the cap in its path
// ("Limits.Payments"); nothing is stored. Each TPP has its own share of
// waiting SCAs, payments and baskets (AuthorisationsPerTPP,
// PaymentsPerTPP, BasketsPerTPP) and its own mock-data caps, so one TPP
// past its share gets the 507 while the others go on. Sessions, PSU-IDs and access
// budgets of deleted customers and accounts are dropped.
//
// # Seeding and scale
//
// [Server.Seed] adds customers (private and corporate), accounts, card
// accounts, transactions, agreements and ready AIS consents in process, in
// one call, for tests and benchmarks with thousands of PSUs (10,000
// accounts with 10 transactions each take a fraction of a second). A
// seeded consent is what an SCA would have left: [SeededSession] carries
// the PSU-ID, TPP-Session-ID, context, agreements and times a TPP keeps
// in its session, so balances and transactions can be refreshed at once
// without the PSU. Seeded data and mock data enter by one path: the same
// code fills in their defaults, checks them (an input one refuses, the
// other refuses at the same field for the same reason) and builds the
// stored objects. The checks are the mock-data operations' own, which
// refuse nothing the interface shows the bank refusing beyond its body
// shapes, so seeding never needs input the bank would take but the
// emulator not. Two differences are deliberate: a seed states balances
// (seeded bookings do not move them), while a mock transaction posted
// over HTTP, or added by [Server.AddTransaction], moves the booked
// balance; and Seed gives a private customer no agreements (a limit of
// Seed: its seeded session could not use them). Seeded data counts against [Limits] (a [*SeedError] wrapping
// [ErrSeedLimit] past a cap).
//
// Every call finds its customer, account, card account or agreement by
// index (id, customer number, PSU-ID, BBAN, IBAN, card reference), so the
// time of a call does not grow with the number of accounts. Calls that
// only read (the account, card account, balances, transactions and
// agreements endpoints, GET /v1/user, the customer listings) share a read
// lock, JSON encoding included; the access budget of calls without the
// PSU has locks of its own per shard of accounts, and forgets a window
// once its calls are older than 24 hours. Everything that writes takes the
// server's lock alone. Answers are compact JSON.
//
// # Assumptions
//
// Where docs/interface.md (section 10 included) is silent the emulator assumes, in one
// place each:
//
//   - POST /v1/sandbox/initialize is the reset path; it resets the calling
//     TPP's sandbox (see Sandbox data) and answers 200 with the customers
//     (as GET /v1/sandbox/customers?withAccounts=true&withAgreements=true).
//   - Each TPP has a sandbox of its own (the interface says what
//     initialisation leaves, not whom mock data is shared with).
//   - GET and DELETE /v1/sandbox/agreements/{id}, GET and POST its
//     /engagements: the agreement's shape of the customer listing,
//     {"engagements": [account ids]}, and engagements as POST
//     /v1/sandbox/agreements takes them (one object or an array).
//   - Bodies of POST /v1/sandbox/customers ({customerNumber, customerType,
//     customerName}), /v1/sandbox/accounts ({customerId or customerNumber,
//     bban, currency, name, product, cashAccountType, balance,
//     creditLine}), /v1/sandbox/card-accounts ({customerId or
//     customerNumber, maskedPan, name, product, currency, creditLimit,
//     balance}) and the mock transactions (the AIS transaction fields plus
//     bookingStatus booked or pending); amounts may be strings or numbers.
//     The answers are the AIS shapes.
//   - GET /v1/user answers 401 with a scaRedirect without a session whose
//     SCA is less than one hour old, else 200 {"psuId", "psuCorporateId",
//     "context"}. Its SCA identifies the PSU but grants no AIS consent.
//   - PSU-Context is optional on payment creation. The interface calls
//     it "required for single-SCA payment initiation" (section 4.2)
//     without saying which those are, and the platform was recorded
//     creating a payment without it; one that is sent is checked.
//   - A PSU-ID on payment or basket creation that the emulator never
//     issued to this TPP is 401 PSU_CREDENTIALS_INVALID, the Berlin Group
//     code for a PSU-ID the bank cannot match, without a scaRedirect (the
//     TPP gets a PSU-ID through GET /v1/user).
//   - GET /v1/agreements answers {"agreements":[{"id","name"}]}; agreement
//     ids are UUIDs usable as PSU-Corporate-ID.
//   - GET /v1/accounts/{id} wraps the account as {"account": {...}}.
//   - Error codes where the spec names none: signature, Date and Digest
//     problems are 400 FORMAT_ERROR; missing headers 400
//     HTTP_HEADER_REQUIRED; a missing bookingStatus 400
//     QUERY_PARAMETER_REQUIRED; the 401 for a missing session carries
//     CONSENT_INVALID (clients should detect it by the scaRedirect link).
//   - An unknown customer number on the SCA page fails the SCA (redirect
//     with code PSU_CREDENTIALS_INVALID) instead of asking again.
//   - The 90-day history limit leaves older transactions out instead of
//     refusing the call.
//   - A bban of a domestic payment (NDCT, instant) is refused only where
//     the interface refuses it (section 2.3a): more than 30 characters, or
//     a Norwegian account number of 11 digits with a wrong MOD-11 check
//     digit (400 FORMAT_ERROR). Any other notation, the printed form with
//     spaces or dots ("8601 11 17947") included, is taken as written, as
//     the SDK's validation lets it through; neither rewrites it.
//     A creditor bban of no account of this bank is paid out of the bank
//     by the batch; a debtor bban that is not the PSU's fails the SCA.
//   - The bank's date ("today" for requestedExecutionDate and startDate,
//     a PDNG payment's due date, booking dates) is the date in
//     Europe/Oslo, whatever the time zone of the clock; the zone data is
//     embedded (time/tzdata).
//   - Characters the bank cannot process (docs/interface.md sections 1.6
//     and 7) are the Unicode Extended_Pictographic set above ISO 8859-1
//     (so "Acme® AS" passes) and anything outside the Basic Multilingual
//     Plane. The emulator reads the property off the grapheme cluster
//     rules of github.com/rivo/uniseg (internal/rules), not from the
//     SDK's table; a test checks that both agree on every code point.
package emulator
