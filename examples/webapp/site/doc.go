// Package site is the example TPP web application of examples/webapp:
// a small but complete site over the SDK that a PSU uses in a browser,
// without JavaScript. Every SCA is a redirect to the bank's page and back
// to the site's /callback, served by sca.Manager.HandlerFor bound to the
// PSU's cookie (docs/interface.md sections 5.8, 5.9 and 6).
//
// # Journeys
//
// Connect the bank: "Connect your bank" starts a bank-offered consent in a
// new SCA session (sca.Manager.Begin); after the bank's page the PSU sees
// the accounts with their balances and latest booked transactions.
//
// Pay: a PSU the site has no PSU-ID for first identifies at the bank (GET
// /v1/user, sca.User). The payment form (a Norwegian domestic credit
// transfer: amount, creditor name and account, a message or a KID, the
// debtor account) is validated by the SDK
// (payments.NorwegianDomestic.Validate); each *client.ValidationError is
// shown next to the form field its JSON path names, and the bank's
// tppMessages likewise by their path, as a sentence about their code the
// PSU understands (their text, written for the TPP's developers, such as
// "Set allowLogicalDuplicate=true", is logged and never shown). "Pay now" creates the payment in a
// new SCA session and sends the PSU to the bank; the callback finds the
// payment by its TPP-Session-ID and the status page follows it to a final
// status with payments.Service.Wait, waiting server-side up to
// Config.WaitTimeout and reloading itself with <meta http-equiv=refresh>
// while the bank is not done. "Add to basket" keeps payments for one
// approval of a signing basket (package basket). Every payment and
// basket create is journaled in the site's store before it is sent
// (payments.WithJournal, basket.WithJournal): one whose outcome is
// unknown gets a page that says so and stays in doubt in the journal
// until psd2 journal resolve settles it; it is never sent again blindly.
//
// Corporate: a PSU acting for a company chooses the agreement
// (PSU-Corporate-ID, sca.Manager.UseAgreement) on the Company page; the
// bank asks for SCA for an agreement without consent.
//
// Failure: a PSU who cancels or fails SCA comes back to a page that says
// what was not done and why, in a sentence about the failed-SCA
// redirect's code, with the code and status (sca.CallbackError; the
// bank's message is for developers and is not shown). A replayed, forged or
// expired callback gets a refusal page (400) and changes nothing. A
// callback brought by another browser than the one that started the SCA
// (a bank link someone sent the PSU) gets a wrong-browser page (403,
// sca.ErrWrongBrowser): the SCA is used up and no session is made for
// anyone.
//
// # State
//
// The PSU is known by a cookie the site issued (a real TPP uses its own
// login). The site keeps the issued values server side and refuses any
// other: a browser bringing one gets a new cookie for a new PSU. Each
// completed SCA gives the browser a new value and retires the old one, so
// a value planted in a PSU's browser before she connects her bank never
// reads her accounts (session fixation). Over https (a TLS request, or
// Config.Secure behind a proxy) the cookie is Secure and named
// "__Host-tpp_user". The PSU's key, for the sca.Manager and the site's
// records, never leaves the server.
// Sessions, pending SCAs and the site's records (payments, baskets, single-
// use form tokens against double submits and cross-site posts) live in the
// sca.Manager's store.Store.
//
// # Running it
//
// [StartSandbox] wires the site to an in-process bank sandbox (package
// sandbox/emulator) with a TPP it trusts and runs the bank's payment batch
// every few seconds; the command examples/webapp and the browser tests of
// module github.com/tppkit/psd2/e2e use it.
package site
