package events

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// Kind names an event type; it is the Envelope's Kind.
type Kind string

// The event kinds, one per event type of this package.
const (
	KindConsentRenewalDue     Kind = "consent.renewal_due"
	KindConsentExpired        Kind = "consent.expired"
	KindConsentRevoked        Kind = "consent.revoked"
	KindReconnectRequired     Kind = "psu.reconnect_required"
	KindPaymentStatusChanged  Kind = "payment.status_changed"
	KindPaymentOutcomeUnknown Kind = "payment.outcome_unknown"
	KindPaymentInDoubt        Kind = "payment.in_doubt"
	KindCertificateExpiring   Kind = "certificate.expiring"

	KindPaymentSettled           Kind = "payment.settled"
	KindPaymentSettlementStalled Kind = "payment.settlement_stalled"
	KindPaymentReturned          Kind = "payment.returned"
	// KindPaymentSettlementWithdrawn is the kind of
	// [PaymentSettlementWithdrawn].
	KindPaymentSettlementWithdrawn Kind = "payment.settlement_withdrawn"
	KindBankUnavailable            Kind = "bank.unavailable"
	KindBankAvailable              Kind = "bank.available"
)

// Event is one of the typed events of this package.
type Event interface {
	// Kind names the event's type.
	Kind() Kind
	// identity is what makes two events the same fact.
	identity() string
	// subject is what the event is about (a consent's or a payment's
	// reference, a certificate's role): events of one subject share
	// their Envelope.Key.
	subject() string
}

// ConsentRenewalDue says a consent ends within Threshold days: ask the
// PSU to renew it. It comes once per threshold.
type ConsentRenewalDue struct {
	// Consent is the TPP's own reference of the consent.
	Consent string `json:"consent"`
	// Ends is when the consent ends.
	Ends time.Time `json:"ends"`
	// DaysLeft is the whole days left when the event was made.
	DaysLeft int `json:"daysLeft"`
	// Threshold is the configured number of days that was crossed.
	Threshold int `json:"threshold"`
}

// ConsentExpired says a consent has ended (its end passed, or the bank
// answered CONSENT_EXPIRED). It comes once per consent: a later consent
// under the same reference, which ends at another time, gets its own.
type ConsentExpired struct {
	// Consent is the TPP's own reference of the consent.
	Consent string `json:"consent"`
	// Ends is the consent's end, which tells it from the other consents
	// under the same reference. It is zero only in events made before
	// this field named the consent.
	Ends time.Time `json:"ends,omitzero"`
}

// ConsentRevoked says the bank answered that the consent is not valid
// any more (CONSENT_INVALID or CONSENT_UNKNOWN): the PSU or the bank
// withdrew it. It comes once per consent.
type ConsentRevoked struct {
	// Consent is the TPP's own reference of the consent.
	Consent string `json:"consent"`
	// Ends is the end the consent had, which tells it from the other
	// consents under the same reference (zero in events made before this
	// field existed).
	Ends time.Time `json:"ends,omitzero"`
	// Code is the bank's tppMessage code.
	Code string `json:"code"`
}

// ReconnectRequired says the PSU must come back and authenticate: a call
// without the PSU present met a demand for SCA. It comes at most once a
// day per consent.
type ReconnectRequired struct {
	// Consent is the TPP's own reference of the consent.
	Consent string `json:"consent"`
	// Ends is the consent's end, which tells it from the other consents
	// under the same reference (zero in events made before this field
	// existed).
	Ends time.Time `json:"ends,omitzero"`
	// Day is the UTC date (2006-01-02) it was found on.
	Day string `json:"day"`
}

// PaymentStatusChanged says a payment's transaction status changed.
type PaymentStatusChanged struct {
	// Payment is the TPP's reference of the payment (its create's
	// X-Request-ID, as the payments journal keys it).
	Payment string `json:"payment"`
	// From and To are the transaction statuses (RCVD, ACTC, ACSC, RJCT...);
	// a status outside the interface's list (payments.TransactionStatus.IsKnown)
	// is OTHER: it is the bank's own text.
	From string `json:"from"`
	To   string `json:"to"`
}

// PaymentOutcomeUnknown says a payment create may have reached the bank
// without a usable answer: it must not be sent again; resolve it
// (journal.Journal).
type PaymentOutcomeUnknown struct {
	// Payment is the create's X-Request-ID.
	Payment string `json:"payment"`
	// Operation is the SDK call, such as "payments.CreateNorwegianDomestic".
	Operation string `json:"operation"`
}

// PaymentInDoubt says a payments journal entry is still in doubt, for
// example after a crash between sending and recording the answer.
type PaymentInDoubt struct {
	// Payment is the create's X-Request-ID (JournalEntry.RequestID).
	Payment string `json:"payment"`
	// Operation is the SDK call of the create; "" when its journal
	// entry is lost, only its open marker left (journal.Lost).
	Operation string `json:"operation"`
}

// CertificateExpiring says a certificate expires within Threshold days.
type CertificateExpiring struct {
	// Role is "signing" or "qwac".
	Role string `json:"role"`
	// NotAfter is the certificate's expiry.
	NotAfter time.Time `json:"notAfter"`
	// DaysLeft is the whole days left (0 once expired).
	DaysLeft int `json:"daysLeft"`
	// Threshold is the configured number of days that was crossed.
	Threshold int `json:"threshold"`
}

// PaymentSettled says the money of a payment was booked on its
// creditor's account, which the TPP watches (package reconcile): the
// booking's key and date, the amount booked and the amount instructed.
// When the two differ (a fee deducted, a partial payment, another
// currency: no conversion is guessed) DifferentAmount is set. It comes
// once per payment, and once more after each
// [PaymentSettlementWithdrawn] when another credit settles it again.
type PaymentSettled struct {
	// Payment is the TPP's reference of the payment (its create's
	// X-Request-ID, as the payments journal keys it).
	Payment string `json:"payment"`
	// Booking is the credit's key under the SDK's transaction sync
	// (txsync.Key): the TPP's own key of the entry in its ledger.
	Booking string `json:"booking"`
	// BookingDate is the credit's booking date.
	BookingDate date.Date `json:"bookingDate"`
	// Amount is the amount booked; Instructed the payment's amount.
	Amount     money.Amount `json:"amount"`
	Instructed money.Amount `json:"instructed"`
	// DifferentAmount is set when Amount is not Instructed.
	DifferentAmount bool `json:"differentAmount,omitempty"`
	// MatchedBy names the evidence: "kid", "end-to-end-id" or
	// "remittance".
	MatchedBy string `json:"matchedBy"`
	// Late is set when the credit was booked after the scheme's window.
	Late bool `json:"late,omitempty"`
	// Withdrawals counts the earlier settlements of the payment that the
	// bank withdrew ([PaymentSettlementWithdrawn]): 0 for its first
	// settlement. A settlement after a withdrawal is a fact of its own,
	// with an ID of its own.
	Withdrawals int `json:"withdrawals,omitempty"`
}

// PaymentSettlementWithdrawn says the credit that settled a payment
// ([PaymentSettled]) is no longer booked: the bank no longer lists it,
// lists it as pending again, or changed it so that it no longer settles
// the payment (package reconcile). The money is not known to have
// arrived: the payment waits for a credit again, and a later one brings
// another PaymentSettled. It comes once per withdrawal.
type PaymentSettlementWithdrawn struct {
	// Payment is the TPP's reference of the payment (its create's
	// X-Request-ID).
	Payment string `json:"payment"`
	// Booking is the withdrawn credit's key (txsync.Key), BookingDate
	// and Amount its booking date and amount as they settled the
	// payment.
	Booking     string       `json:"booking"`
	BookingDate date.Date    `json:"bookingDate"`
	Amount      money.Amount `json:"amount"`
	// Withdrawal counts the payment's withdrawals: 1 for its first.
	Withdrawal int `json:"withdrawal"`
}

// PaymentSettlementStalled says an accepted payment was not booked on
// its creditor's watched account within its scheme's window (package
// reconcile). It comes once per payment; a later booking still brings
// [PaymentSettled].
type PaymentSettlementStalled struct {
	// Payment is the TPP's reference of the payment (its create's
	// X-Request-ID).
	Payment string `json:"payment"`
	// Scheme is the payment's scheme ("domestic", "instant", "sepa",
	// "cross-border").
	Scheme string `json:"scheme"`
	// Accepted is the bank date the payment was first seen accepted;
	// Deadline the last banking day of its window.
	Accepted date.Date `json:"accepted"`
	Deadline date.Date `json:"deadline"`
}

// PaymentReturned says the credit of a settled payment was reversed: a
// debit of the same amount, with the payment's reference, was booked
// later on the creditor's watched account (package reconcile). It comes
// once per payment.
type PaymentReturned struct {
	// Payment is the TPP's reference of the payment (its create's
	// X-Request-ID).
	Payment string `json:"payment"`
	// Booking is the reversal's key (txsync.Key); Settled the key of
	// the credit it reverses.
	Booking string `json:"booking"`
	Settled string `json:"settled"`
	// BookingDate is the reversal's booking date, Amount its amount
	// (negative).
	BookingDate date.Date    `json:"bookingDate"`
	Amount      money.Amount `json:"amount"`
}

// BankUnavailable says a bank stopped answering: the client's circuit
// breaker opened (client.BreakerChange). It carries the start of the
// unavailability and its evidence (the failed requests' X-Request-IDs,
// statuses and times), no personal data. It comes once per
// unavailability.
type BankUnavailable struct {
	// Scope is the client's scope (client.Client.Scope): this TPP at
	// this bank.
	Scope string `json:"scope"`
	// Downtime is the record so far (End zero).
	Downtime client.Downtime `json:"downtime"`
}

// BankAvailable says a bank answers again: the breaker closed. Its
// Downtime is the whole record, start to end, that a TPP can file.
type BankAvailable struct {
	// Scope is the client's scope.
	Scope string `json:"scope"`
	// Downtime is the record, End set.
	Downtime client.Downtime `json:"downtime"`
}

// Kind returns [KindBankUnavailable].
func (BankUnavailable) Kind() Kind { return KindBankUnavailable }

// Kind returns [KindBankAvailable].
func (BankAvailable) Kind() Kind { return KindBankAvailable }

func (e BankUnavailable) identity() string {
	return e.Scope + "|" + e.Downtime.Start.UTC().Format(time.RFC3339Nano)
}
func (e BankAvailable) identity() string {
	return e.Scope + "|" + e.Downtime.Start.UTC().Format(time.RFC3339Nano)
}
func (e BankUnavailable) subject() string { return "bank|" + e.Scope }
func (e BankAvailable) subject() string   { return "bank|" + e.Scope }

// Kind returns [KindConsentRenewalDue].
func (ConsentRenewalDue) Kind() Kind { return KindConsentRenewalDue }

// Kind returns [KindConsentExpired].
func (ConsentExpired) Kind() Kind { return KindConsentExpired }

// Kind returns [KindConsentRevoked].
func (ConsentRevoked) Kind() Kind { return KindConsentRevoked }

// Kind returns [KindReconnectRequired].
func (ReconnectRequired) Kind() Kind { return KindReconnectRequired }

// Kind returns [KindPaymentStatusChanged].
func (PaymentStatusChanged) Kind() Kind { return KindPaymentStatusChanged }

// Kind returns [KindPaymentOutcomeUnknown].
func (PaymentOutcomeUnknown) Kind() Kind { return KindPaymentOutcomeUnknown }

// Kind returns [KindPaymentInDoubt].
func (PaymentInDoubt) Kind() Kind { return KindPaymentInDoubt }

// Kind returns [KindCertificateExpiring].
func (CertificateExpiring) Kind() Kind { return KindCertificateExpiring }

// Kind returns [KindPaymentSettled].
func (PaymentSettled) Kind() Kind { return KindPaymentSettled }

// Kind returns [KindPaymentSettlementStalled].
func (PaymentSettlementStalled) Kind() Kind { return KindPaymentSettlementStalled }

// Kind returns [KindPaymentReturned].
func (PaymentReturned) Kind() Kind { return KindPaymentReturned }

// Kind returns [KindPaymentSettlementWithdrawn].
func (PaymentSettlementWithdrawn) Kind() Kind { return KindPaymentSettlementWithdrawn }

// A consent is named by the TPP's reference and its end: the platform
// gives a consent no id of its own, and a consent granted later under the
// same reference (the PSU came back) ends at another time. The end is no
// personal data, and an ID is a hash in any case.
func (e ConsentRenewalDue) identity() string {
	return consentIdentity(e.Consent, e.Ends) + "|" + strconv.Itoa(e.Threshold)
}
func (e ConsentExpired) identity() string { return consentIdentity(e.Consent, e.Ends) }
func (e ConsentRevoked) identity() string { return consentIdentity(e.Consent, e.Ends) }
func (e ReconnectRequired) identity() string {
	return consentIdentity(e.Consent, e.Ends) + "|" + e.Day
}
func (e PaymentStatusChanged) identity() string  { return e.Payment + "|" + e.To }
func (e PaymentOutcomeUnknown) identity() string { return e.Payment }
func (e PaymentInDoubt) identity() string        { return e.Payment }

// A payment settles, stalls and is returned at most once: its reference
// names each fact, so that a replica, a restart or a second read of the
// same booking (under another key, after a re-consent) emits the same ID.
// A settlement withdrawn by the bank is counted: each withdrawal, and the
// settlement after it, is a fact of its own (a first settlement keeps the
// ID it always had).
func (e PaymentSettled) identity() string {
	if e.Withdrawals == 0 {
		return e.Payment
	}
	return e.Payment + "|" + strconv.Itoa(e.Withdrawals)
}
func (e PaymentSettlementWithdrawn) identity() string {
	return e.Payment + "|" + strconv.Itoa(e.Withdrawal)
}
func (e PaymentSettlementWithdrawn) subject() string { return "payment|" + e.Payment }
func (e PaymentSettlementStalled) identity() string  { return e.Payment }
func (e PaymentReturned) identity() string           { return e.Payment }
func (e CertificateExpiring) identity() string {
	return e.Role + "|" + e.NotAfter.UTC().Format(time.RFC3339) + "|" + strconv.Itoa(e.Threshold)
}

// consentIdentity names one consent: the TPP's reference and the end, in
// UTC to the second (the form ConsentRenewalDue's IDs always had).
func consentIdentity(ref string, ends time.Time) string {
	return ref + "|" + ends.UTC().Format(time.RFC3339)
}

func (e ConsentRenewalDue) subject() string     { return "consent|" + e.Consent }
func (e ConsentExpired) subject() string        { return "consent|" + e.Consent }
func (e ConsentRevoked) subject() string        { return "consent|" + e.Consent }
func (e ReconnectRequired) subject() string     { return "consent|" + e.Consent }
func (e PaymentStatusChanged) subject() string  { return "payment|" + e.Payment }
func (e PaymentOutcomeUnknown) subject() string { return "payment|" + e.Payment }
func (e PaymentInDoubt) subject() string        { return "payment|" + e.Payment }
func (e CertificateExpiring) subject() string   { return "certificate|" + e.Role }
func (e PaymentSettled) subject() string        { return "payment|" + e.Payment }
func (e PaymentReturned) subject() string       { return "payment|" + e.Payment }

func (e PaymentSettlementStalled) subject() string { return "payment|" + e.Payment }

// Envelope is an event as it travels: its ID, key, kind, time and JSON
// form.
type Envelope struct {
	// ID is the same for the same fact (see the package documentation).
	ID string `json:"id"`
	// Key is the same for every event about the same subject: one
	// consent reference (whichever consent under it), one payment, one
	// certificate role. A Sink that delivers in order keeps the order per
	// Key (pgstore's outbox does). Like ID it is a hash, so it holds no
	// reference in clear. Empty in envelopes made before it existed.
	Key string `json:"key,omitempty"`
	// Kind is the event's Kind.
	Kind Kind `json:"kind"`
	// At is when the event was made.
	At time.Time `json:"at"`
	// Data is the event in JSON.
	Data json.RawMessage `json:"data"`
}

// ID returns the ID of ev: a hash of its kind and identity.
func ID(ev Event) string {
	h := sha256.New()
	id := ev.identity()
	fmt.Fprintf(h, "%d:%s;%d:%s;", len(ev.Kind()), ev.Kind(), len(id), id)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// KeyOf returns the Envelope.Key of ev: a hash of its subject (see
// [Envelope.Key]).
func KeyOf(ev Event) string {
	h := sha256.New()
	s := ev.subject()
	fmt.Fprintf(h, "key;%d:%s;", len(s), s)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Wrap puts ev in an Envelope made at at.
func Wrap(ev Event, at time.Time) (Envelope, error) {
	if ev == nil {
		return Envelope{}, errors.New("events: nil Event")
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: %w", err)
	}
	return Envelope{ID: ID(ev), Key: KeyOf(ev), Kind: ev.Kind(), At: at.UTC(), Data: data}, nil
}

// ErrUnknownKind matches an Envelope whose Kind this version does not know.
var ErrUnknownKind = errors.New("events: unknown kind")

// Event decodes the typed event of the envelope.
func (e Envelope) Event() (Event, error) {
	var ev Event
	switch e.Kind {
	case KindConsentRenewalDue:
		ev = decode[ConsentRenewalDue](e.Data)
	case KindConsentExpired:
		ev = decode[ConsentExpired](e.Data)
	case KindConsentRevoked:
		ev = decode[ConsentRevoked](e.Data)
	case KindReconnectRequired:
		ev = decode[ReconnectRequired](e.Data)
	case KindPaymentStatusChanged:
		ev = decode[PaymentStatusChanged](e.Data)
	case KindPaymentOutcomeUnknown:
		ev = decode[PaymentOutcomeUnknown](e.Data)
	case KindPaymentInDoubt:
		ev = decode[PaymentInDoubt](e.Data)
	case KindCertificateExpiring:
		ev = decode[CertificateExpiring](e.Data)
	case KindPaymentSettled:
		ev = decode[PaymentSettled](e.Data)
	case KindPaymentSettlementStalled:
		ev = decode[PaymentSettlementStalled](e.Data)
	case KindPaymentReturned:
		ev = decode[PaymentReturned](e.Data)
	case KindPaymentSettlementWithdrawn:
		ev = decode[PaymentSettlementWithdrawn](e.Data)
	case KindBankUnavailable:
		ev = decode[BankUnavailable](e.Data)
	case KindBankAvailable:
		ev = decode[BankAvailable](e.Data)
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownKind, e.Kind)
	}
	if ev == nil {
		return nil, fmt.Errorf("events: %s: data unreadable", e.Kind)
	}
	return ev, nil
}

// decode reads data as a T, nil when it cannot.
func decode[T Event](data []byte) Event {
	var v T
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	return v
}

// ErrSinkPanicked is the error of a publication whose Sink (a [Handler])
// panicked: the Emitter recovers the panic, reports it as this error
// (with a runtime error's message or the panic value's type, never the
// value: an event's errors hold no personal data), and does not remember
// the event, so that the next check publishes it again.
var ErrSinkPanicked = errors.New("events: sink panicked")

// Sink receives the events an Emitter makes.
type Sink interface {
	// Publish hands e on. An envelope whose ID was published before may
	// be dropped.
	Publish(ctx context.Context, e Envelope) error
}

// Handler delivers events in one process: as a Sink, it is called
// synchronously with each envelope. [Typed] adapts a function of the
// typed event. A Handler that panics is recovered by the Emitter: the
// publication fails with [ErrSinkPanicked] and is tried again at the
// next check.
type Handler func(ctx context.Context, e Envelope) error

// Publish calls h.
func (h Handler) Publish(ctx context.Context, e Envelope) error { return h(ctx, e) }

// Typed returns a Handler that decodes each envelope and calls fn with
// the typed event (a ConsentRenewalDue, a PaymentInDoubt, ...).
func Typed(fn func(ctx context.Context, ev Event) error) Handler {
	return func(ctx context.Context, e Envelope) error {
		ev, err := e.Event()
		if err != nil {
			return err
		}
		return fn(ctx, ev)
	}
}
