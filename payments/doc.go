// Package payments is the payment initiation service for PISPs: it creates
// Norwegian domestic (NDCT) and SEPA credit transfers and payments of the
// platform's other products, follows their status, reads their details,
// cancels them and starts their Strong Customer Authentication (SCA).
//
//	svc, err := payments.New(c)
//	if err != nil {
//		return err
//	}
//	// sid and psuID are the PSU's session: the callback of an earlier
//	// SCA (a login with sca.User, or a consent) brought them.
//	init, err := svc.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
//		InstructedAmount: money.MustParse("1250.00", "NOK"),
//		CreditorName:     "Ola Eksempel",
//		CreditorAccount:  payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
//		CreditorAddress:  &payments.Address{Country: "NO"},
//		DebtorAccount:    payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
//		RemittanceInformationUnstructured: "Hyttetur",
//	}, client.WithTPPSessionID(sid), client.WithRedirectURI(cb),
//		client.WithPSU(client.PSU{ID: psuID, IPAddress: ip}), client.WithPSUContext(client.Private))
//	// send the PSU to init.SCARedirect()
//
// # Creating
//
// [Service.CreateNorwegianDomestic] and [Service.CreateSEPA] send
// the typed requests [NorwegianDomestic] (docs/interface.md section 2.4)
// and [SEPA] (section 2.5) with POST /v1/payments/{product}. The answer is an
// [Initiation]: the paymentId, status RCVD, fees and the links self,
// status, startAuthorisation and scaRedirect. Amounts are [money.Amount]s
// written as strings (x-accept-fix amount-as-string, sent by the client).
// The bank refuses a logical duplicate (same debtor, creditor, amount,
// remittance and date as a live payment) unless the call carries
// [AllowLogicalDuplicate]. An NDCT pays from a card account with
// [CardDebtor] and the relatedAccount of the card account details
// (docs/interface.md section 2.3a).
//
// # SCA
//
// Send the PSU to [Initiation.SCARedirect]. When a create answer has
// no scaRedirect, or the PSU cancelled, [Service.StartAuthorisation] (or
// [Service.StartAuthorisationAt] with the startAuthorisation link) returns
// an [Authorisation] with a new one. After SCA the bank redirects to
// TPP-Redirect-URI (the sca package parses it) and the payment is ACTC, or
// PDNG when its requested execution date lies ahead. Several payments can
// be signed with one SCA in a signing basket (the basket package).
//
// # Following status
//
// [Service.Status] (or [Service.StatusAt] with the
// status link; the links are resolved against the base URL and never sent
// to another host) returns a [StatusResponse]. [TransactionStatus] says
// whether the status is final ([TransactionStatus.IsFinal]: ACSC, ACCC,
// RJCT, CANC) or may change. [Service.Wait] reads it until it is final,
// and stops at once with [ErrUnknownStatus] on a status the SDK does not
// know, or none (the status of payments on hold or stopped has no code in
// docs/interface.md section 3). ACCP with fundsAvailable false
// ([StatusResponse.FundsUnavailable]) means the bank cannot fund the
// payment now; its batch tries again (docs/interface.md sections 2.6 and 3). Known issue
// (docs/interface.md section 4.2): status and details of an NDCT cannot be
// read before the PSU approved it; the bank answers 404, which these calls
// return as an error matching [ErrNotYetReadable] (not a vanished
// payment; read again after the SCA). [Service.Get] returns the
// [Details] (the request echoed, no status). [Service.Cancel] deletes a
// payment while the self link allows DELETE (RCVD); after signing the bank
// refuses with a *client.Error (405 CANCELLATION_INVALID on this platform).
// Status and details are GETs, which the client retries on transport
// errors and 429, 502, 503, 504.
//
// # Validation
//
// Before anything is sent, the create calls run
// [NorwegianDomestic.Validate] or [SEPA.Validate] (and Validate(now
// time.Time) error of any body given to [Service.Create]) with the
// Service's clock ([client.WithClock]). Each broken rule is a
// [*client.ValidationError] naming the JSON path of the field; several
// are joined with errors.Join, and the whole is wrapped with the operation
// name, so errors.Is(err, client.ErrValidation) and errors.As work. The
// rules are those of docs/interface.md sections 2.3 to 2.5 and 8:
// required fields, lengths in characters, ISO 4217 currencies with their
// minor units and at most 13 digits before the decimal point (contract
// precision 18, scale 5; see package money), ISO 3166 countries
// ([IsCountry]), purpose codes ([PurposeCodes]), the structured array or
// the unstructured remittance text but not both (section 2.4; the single
// structured reference goes with either), Norwegian account numbers with
// their MOD-11 check digit ([CheckBBAN]), IBANs with their registry
// length and mod-97
// ([CheckIBAN]), KIDs in a structured reference of type KID, compared
// case-insensitively ([CheckKID], [ReferenceTypeKID]), the BIC of
// creditorAgent ([CheckBIC]), an execution date not before today in
// Norway ([BankLocation]), and no character the bank's downstream systems
// cannot process (docs/interface.md sections 1.6 and 7) in any text: no
// emoji or other pictograph of the Unicode Extended_Pictographic set
// (U+2705, U+2615, U+2764, ...) and nothing outside the Basic Multilingual
// Plane. ISO 8859-1 is text: "Acme® AS" and © pass. The same character set, generated from the Unicode emoji data,
// is what the bank emulator refuses. No text holds a control character
// (a line break, a tab, NUL, ESC, DEL, a C1 control) or a bidirectional
// override or isolate (U+202A-U+202E, U+2066-U+2069). A required text
// (creditorName, a structured reference), the unstructured remittance
// text and a structured reference's type and issuer are not spaces only.
// An amount decoded from a bank
// document that could not be read (money.Amount.Err) is refused.
// A body of the caller's own, without a Validate method (a cross-border,
// bulk or periodic payment written as a map), is checked for those
// characters and control characters too, in every string of its
// encoding.
// [client.WithoutValidation] skips the checks for a bank that accepts
// more; the bank still checks.
//
// # Norwegian account numbers
//
// A bban is refused only where
// docs/interface.md section 2.3a refuses it: more than 30 characters, or
// exactly 11 ASCII digits (a Norwegian account number in electronic form)
// with a wrong MOD-11 digit. Any other bban of up to 30 characters, the
// printed form with spaces or dots ("8601 11 17947", "8601.11.17947")
// included, is sent as written, never rewritten, and left to the bank;
// the bank emulator takes the same set. [NormalizeBBAN] turns form input
// into the electronic form "86011117947" so that its check digit is
// checked before sending.
//
// Other assumptions where the spec is silent, each kept in one place: the
// bank's "today" is the date in Europe/Oslo (UTC+1 in winter, UTC+2 in
// summer; the zone data is embedded with time/tzdata, so no machine falls
// back to a fixed offset), as in the bank emulator; the deprecated single
// structured reference may go with the array or with the unstructured
// text (only those two exclude each other); a Norwegian IBAN's BBAN is
// MOD-11 checked.
//
// # Safety and reconciliation
//
// A create is an operation that is not
// repeatable. The client sends it again only when it certainly never left
// the machine. When it may have reached the bank without a clear answer
// (the connection dropped, the context deadline passed, or the bank
// answered 5xx) the call returns a [*client.OutcomeUnknownError] (errors.Is
// [client.ErrOutcomeUnknown]) carrying the X-Request-ID, and the payment
// may or may not exist. Money is never doubled by the SDK; to reconcile:
//
//  1. Record the request id before sending: pass
//     client.WithRequestID(uuid) and store it with your order.
//  2. If the payment id is known (for example from your logs), read its
//     status with [Service.Status].
//  3. Otherwise retry deliberately with exactly the same content and
//     WITHOUT [AllowLogicalDuplicate]: if the first attempt reached the
//     bank, the bank refuses the second as a logical duplicate (a
//     *client.Error, 400 PAYMENT_FAILED on this platform) and no second
//     payment exists; if it did not, the retry creates the payment once.
//
// A [journal.Journal] does these steps for you and survives a crash:
// with [WithJournal] every create is recorded in a store.Store before it
// is sent (a store error stops it) and its outcome after. A process that
// crashed, or got ErrOutcomeUnknown, or another replica on the same
// store, lists [journal.Journal.InDoubt] and settles each entry with
// [journal.Journal.Resolve] and a client of the same TPP and bank, which
// reads the status when the id is known and otherwise sends the same
// body again as step 3 says; an entry created with
// [AllowLogicalDuplicate] is reported as [journal.NeedsPerson], never
// resent. An entry already settled is never sent again (Resolve returns
// its recorded resolution), nor is one without an outcome whose create
// may still be running ([journal.ErrInFlight]), so resolving every entry
// of [journal.Journal.Entries] is as safe as resolving those of
// InDoubt. When the resend created the payment
// ([journal.ResolvedCreated]), the resolution's Answer is the bank's
// answer to it: decode it into an [Initiation] (json.Unmarshal) for its
// scaRedirect, and read the payment under the service and product of
// the entry's URL. A create refused as a logical duplicate matches
// [ErrLogicalDuplicate]; docs/design.md section 8 says when paying the
// same payee the same amount again is safe.
//
// A create that returned [client.ErrNotSent] with a Journal was not sent
// and never will be by the SDK: not by this call, nor later by
// [journal.Journal.Resolve], even when the journal's store wrote the
// entry while reporting an error (a database connection lost after
// COMMIT). The journal then marks the entry not sent
// ([journal.OutcomeNotSent]); should that fail too, the entry stays
// without an outcome, InDoubt does not yield it and Resolve reports
// [journal.NeedsPerson] instead of sending it. Sending the payment
// again, with a new X-Request-ID, is the caller's decision; as for any
// create, the bank refuses a logical duplicate of a live payment.
//
// # Other products
//
// [Service.Create] sends a body of your own for
// [ProductCrossBorder], [ProductInstantNorwegianDomestic] or any product
// by name; [Service.CreatePeriodic] and [Service.CreateBulk] use
// /v1/periodic-payments and /v1/bulk-payments. Their bodies are validated
// when they have a Validate(now time.Time) error method, or a pointer to
// them has one (a type embedding [NorwegianDomestic] by value), and a
// [NorwegianDomestic] or [SEPA] sent under another product is held to
// that product's account forms (a bban on both accounts and a
// creditorAddress for a domestic product, an iban on both for
// [ProductSEPA], a creditorAddress and an iban or a bban on both for
// [ProductCrossBorder], where the creditor's bban is foreign, so not held
// to MOD-11, a card account cannot pay and creditorAgent is not
// required); a periodic payment's schedule (startDate, required and
// not before today in Norway, endDate, frequency, required,
// executionRule, dayOfExecution, and under frequency MonthlyVariable
// monthsOfExecution without a month twice) is checked on its encoded body whatever its type
// ([ValidateSchedule]). A payment's
// status, details, cancellation and authorisation are under the service
// it was created under ([PaymentService]: [ServiceSingle],
// [ServicePeriodic], [ServiceBulk]), which [Initiation.Service] records.
// The calls on a payment take its [Ref] (service, product and id), which
// [Initiation.Ref] hands out; keep it (it is JSON) to come back later:
//
//	init, err := svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder, opts...)
//	ref := init.Ref()
//	// ... after the PSU's SCA:
//	st, err := svc.Status(ctx, ref, opts...)
//	c, err := svc.Cancel(ctx, ref, opts...)
//
// The links of an answer ([Service.StatusAt] and the other *At calls)
// work for every service.
//
// # Check digits
//
// [CheckBBAN], [CheckIBAN], [CheckKID] and [CheckBIC] are
// usable on their own (for example on a form); their [*CheckError] never
// quotes the value.
package payments
