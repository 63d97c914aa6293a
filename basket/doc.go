// Package basket groups payments in signing baskets, so that the PSU
// approves up to ten payments with one Strong Customer Authentication
// (docs/interface.md section 2.7, 4.1 and 8; docs/interface.md section 10 "Paths").
//
// A [Service] describes each call and sends it through a [client.Client];
// PSU and session headers are per-call [client.RequestOption]s.
//
//	b, err := basket.New(c)
//	if err != nil {
//		return err
//	}
//	// create the payments first and keep their ids, then:
//	bk, err := b.Create(ctx, ids, client.WithTPPSessionID(sid), client.WithRedirectURI(cb),
//		client.WithPSU(client.PSU{ID: psuID, IPAddress: ip}))
//	// send the PSU to bk.SCARedirect(); after the callback:
//	sts, err := b.PaymentStatuses(ctx, basket.Refs(payments.ProductNorwegianDomestic, ids...))
//
// # Creating
//
// [Service.Create] (POST /v1/signing-baskets, body
// {"paymentIds":[...]}) takes the ids of single payments the same TPP
// created with POST /v1/payments/{product} and that still await
// authorisation. Bulk and periodic payments cannot join a basket (400
// REFERENCE_MIX_INVALID, docs/interface.md section 7). The headers of docs/interface.md section 4.1 are
// required: TPP-Session-ID, TPP-Redirect-URI, PSU-ID and PSU-IP-Address
// (the client adds x-accept-fix: amount-as-string).
//
// # Validation
//
// Before sending, Create refuses an empty basket, more than
// [MaxPayments] (10) payments, empty or repeated ids and missing required
// headers with a [*client.ValidationError] matching [client.ErrValidation];
// [ValidatePaymentIDs] runs the id rules alone. [client.WithoutValidation]
// sends the request unchecked, for a bank that accepts more.
//
// # SCA
//
// The create answer usually carries scaRedirect ([Basket.SCARedirect]);
// otherwise, or when the PSU left the first SCA, [Service.StartAuthorisation]
// (POST .../{id}/authorisations) starts a new one. One SCA approves every
// payment of the basket that still awaits authorisation. The sca package
// parses the PSU's return to TPP-Redirect-URI.
//
// # Reading
//
// [Service.Get] returns the basket with its payment ids (the GET
// answer names the field payments, the request paymentIds; [Basket]
// decodes both) and [Service.Status] the basket's status alone. Both
// answer 200 with a transactionStatus (docs/interface.md section 2.7): a 200
// without one is a *payments.IncompleteAnswerError
// (payments.ErrIncompleteAnswer), another 2xx status a
// *client.UnexpectedStatusError.
//
// # Not atomic
//
// A basket's status (RCVD, ACTC, PATC, RJCT) is the worst case
// of its payments (docs/interface.md section 2.7); each payment is executed or rejected on
// its own. [Service.PaymentStatuses] reads every payment's own status with
// the payments package, one call per payment, each failure kept with its
// payment ([PaymentStatus]). Note the known issue of docs/interface.md section 4.2: the
// status of a domestic transfer cannot be read before it is approved.
//
// # Deleting
//
// [Service.Delete] (DELETE /v1/signing-baskets/{id}, 204) is
// allowed before the basket is authorised; its payments stay and may join
// another basket.
//
// # Retries
//
// Create is a POST that is never sent twice; when its outcome is
// unknown the error matches [client.ErrOutcomeUnknown]. StartAuthorisation
// moves no money but each one that reaches the bank is a new
// authorisation, so it is sent once too. Get, Status and Delete are
// retried by the client on transient failures. A Delete whose earlier
// attempt may have deleted the basket can have its retry refused (404):
// any error answer to such a retry matches [ErrDeleteUnconfirmed], and
// the basket's status says whether it is gone.
//
// # Answers
//
// Each call succeeds only with the status the interface names for it:
// Create and StartAuthorisation 201, Get and Status 200, Delete 204.
// Another 2xx is a [*client.UnexpectedStatusError] (inside a
// [*client.OutcomeUnknownError] for the two POSTs). The ids of an answer
// (basketId, the payments' ids) are held to [client.MaxIDLength] bytes,
// and an answer listing more than [MaxPayments] payments is refused
// ([TooManyPaymentsError]). Errors of the bank are [*client.Error]s
// carrying the tppMessages code, e.g. [client.CodeReferenceMixInvalid].
//
// Assumptions where the spec is silent, each in one place: the required
// headers are checked before sending (createHeaders, from the
// table of docs/interface.md section 4.1); a create answer without payment ids is
// completed with the ids sent.
package basket
