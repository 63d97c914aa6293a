// Package events turns what the SDK learns about consents, PSUs,
// payments and certificates into lifecycle events a TPP can act on:
//
//   - [ConsentRenewalDue], a configurable number of days before a
//     consent ends, once for each threshold (14, 7, 3 and 1 days by
//     default);
//   - [ConsentExpired], and [ConsentRevoked] when the bank answers that
//     the consent is no longer valid;
//   - [ReconnectRequired], when a call without the PSU meets a demand
//     for strong customer authentication: the PSU must come back;
//   - [PaymentStatusChanged];
//   - [PaymentOutcomeUnknown], for a create whose outcome is unknown, and
//     [PaymentInDoubt], for a journal entry still in doubt after a crash;
//   - [CertificateExpiring], for the signing or QWAC certificate;
//   - [PaymentSettled], [PaymentSettlementStalled], [PaymentReturned] and
//     [PaymentSettlementWithdrawn], for a payment whose creditor's account
//     the TPP watches: the money arrived, did not arrive within its
//     scheme's window, came back, or the credit that settled it was
//     withdrawn by the bank (package reconcile makes them).
//
// An [Emitter] makes them and hands each, wrapped in an [Envelope], to a
// [Sink]. In one process the Sink is a [Handler], called synchronously
// with the typed value ([Envelope.Event]). Across replicas the Sink is
// pgstore's outbox (module github.com/tppkit/psd2/pgstore, Store.Outbox):
// events go into a table, and consumers on any machine take them with
// SELECT ... FOR UPDATE SKIP LOCKED, each event once.
//
// # Identity
//
// Every event has a stable [Envelope.ID], derived from what it says (the
// kind, the reference, the threshold, the new status): the same fact
// emitted twice, by two replicas or after a restart, has the same ID, so
// that the Emitter (with a shared store) and the outbox deliver it once:
// replicas emitting one fact at the same moment take turns through a
// claim in the shared store, so a [Handler] on each of them sees it once
// between them.
// A consumer whose effect is outside the database (an e-mail) should
// still use the ID as its idempotency key: a consumer killed after the
// effect but before its commit gets the event again.
//
// A consent is named by the TPP's reference and by its end: the platform
// gives a consent no id, and a consent the PSU grants later under the same
// reference ends at another time. So each consent gets its own
// [ConsentExpired], [ConsentRevoked] and [ReconnectRequired], as it always
// got its own [ConsentRenewalDue]. (Versions before this one named the
// first three by the reference alone: a consent that expired before an
// upgrade and is checked again after it gets its ConsentExpired once
// more, under its new ID. A second event is the safe side of that change;
// the old IDs lost the events of every later consent.)
//
// [Envelope.Key] is the same for every event about one subject: one
// consent reference, one payment, one certificate role. pgstore's outbox
// delivers the events of one Key in the order they were published.
//
// IDs and Keys are hashes (128 bits of SHA-256), so the references in
// them are not readable where IDs are stored or logged.
//
// # Wiring
//
// The refresh and payments packages know nothing of this one; the TPP
// calls the Emitter where it learns the facts. A refresh job calls
// [Emitter.Consent] for each consent it keeps and, for a result whose
// outcome is refresh.ReconnectNeeded or refresh.Refused,
// [Emitter.ConsentError] with the result's Err and the consent's end
// (sca.Session.ConsentExpiresAt; the PSU is not present); a payment
// create that fails calls [Emitter.PaymentError]; a payment follower
// (payments.Service.Wait) calls [Emitter.PaymentStatus] with the status
// it last saw and the new one; start-up calls [Emitter.InDoubt] with the
// payments journal and [Emitter.Certificate] with the signing and QWAC
// certificates. A bank's breaker changes reach [Emitter.Breaker] through
// client.Health.OnChange, once each; start-up and a periodic job call
// [Emitter.Downtimes] with each bank's client, which publishes from the
// client's downtime records what a failed publication or a crash left
// out. Package reconcile, given the Emitter
// (reconcile.WithEmitter), emits the settlement events itself with
// [Emitter.Emit], each once per payment.
//
// # Personal data
//
// Events carry no personal data: a consent or payment is named by the
// TPP's own reference ([Emitter.Consent]'s ref, a payment's X-Request-ID),
// never by a PSU-ID, a session id, an account id or an IP address. A
// settlement names the booking by the SDK's key of it (txsync.Key, random)
// and carries amounts and dates, never the KID, the remittance text, the
// counterparty or an account number.
package events
