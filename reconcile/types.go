package reconcile

import (
	"strconv"
	"time"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/txsync"
)

// Payment is a payment as matching needs it: what its create sent, and
// the status last seen. [PaymentOf] reads it from the payments journal;
// [Reconciler.Track] takes it.
type Payment struct {
	// RequestID is the create's X-Request-ID: the TPP's own reference of
	// the payment, as the journal and the events name it (required).
	RequestID string
	// Created is when the create was made: payments are matched in this
	// order (initiation order), and no credit booked before its bank
	// date is taken for it (required).
	Created time.Time
	// Product is the payment product; Scheme the scheme, from the
	// product when zero ([SchemeOf]). One of them is required.
	Product payments.Product
	Scheme  Scheme
	// Amount is the instructed amount (required).
	Amount money.Amount
	// CreditorIBAN and CreditorBBAN are the creditor account as sent
	// (one required): it chooses the watched account.
	CreditorIBAN, CreditorBBAN string
	// KID is the structured creditor reference (a Norwegian KID), when
	// the payment carried one.
	KID string
	// EndToEndID is the endToEndIdentification, when the payment carried
	// one.
	EndToEndID string
	// Remittance is the unstructured remittance information.
	Remittance string
	// ExecutionDate is the requested execution date; zero for as soon as
	// possible. No credit booked before it (before the last banking day
	// on or before it) is taken for the payment.
	ExecutionDate date.Date
	// Status is the transaction status last seen, if any, and StatusAt
	// when: Track records it as [Reconciler.Status] would.
	Status   payments.TransactionStatus
	StatusAt time.Time
}

// Settlement is what became of a payment's money, as far as its
// creditor's watched account shows.
type Settlement uint8

// The settlement states of a payment.
const (
	// Awaiting: tracked, not booked yet, its window not over (or not
	// started: no accepted status seen).
	Awaiting Settlement = iota + 1
	// Settled: its credit was booked, for the amount instructed.
	Settled
	// SettledOtherAmount: its credit was booked for another amount (a
	// fee deducted, a partial payment, or another currency: the
	// conversion is never guessed); both amounts are reported.
	SettledOtherAmount
	// Returned: its credit was reversed by a later booking.
	Returned
	// Stalled: accepted, and not booked within its scheme's window.
	Stalled
	// NotExecuted: rejected or cancelled: no credit will come (a credit
	// that settled it before was another's: the settlement is withdrawn).
	NotExecuted
	// NotApplicable: its creditor account is not watched.
	NotApplicable
	// Untracked: the journal has it and its creditor account is
	// watched, but it was never tracked ([Reconciler.TrackJournal]
	// tracks it).
	Untracked
	// Withdrawn: the credit that settled it is no longer booked (the
	// bank no longer lists it, lists it as pending again, or changed it
	// so that it no longer settles the payment): the money is not known
	// to have arrived, and the payment waits for a credit again, as
	// Awaiting does (it still stalls after its window). The withdrawn
	// credit is in [State.WithdrawnBooking].
	Withdrawn
)

// String names the state ("settled", "settled-other-amount", ...).
func (s Settlement) String() string {
	switch s {
	case Awaiting:
		return "awaiting"
	case Settled:
		return "settled"
	case SettledOtherAmount:
		return "settled-other-amount"
	case Returned:
		return "returned"
	case Stalled:
		return "stalled"
	case NotExecuted:
		return "not-executed"
	case NotApplicable:
		return "not-applicable"
	case Untracked:
		return "untracked"
	case Withdrawn:
		return "withdrawn"
	}
	return "Settlement(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the state's name.
func (s Settlement) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Evidence is what matched a credit to its payment, strongest first.
type Evidence uint8

// The evidence, in the order matching tries it.
const (
	// ByKID: the KID the payment carried, echoed by the credit.
	ByKID Evidence = iota + 1
	// ByEndToEndID: the end-to-end id, echoed by the credit.
	ByEndToEndID
	// ByRemittance: the remittance text, echoed by the credit, for the
	// amount (or the amount less a fee) within the expected dates.
	ByRemittance
)

// String names the evidence: "kid", "end-to-end-id" or "remittance".
func (e Evidence) String() string {
	switch e {
	case ByKID:
		return "kid"
	case ByEndToEndID:
		return "end-to-end-id"
	case ByRemittance:
		return "remittance"
	case 0:
		return ""
	}
	return "Evidence(" + strconv.Itoa(int(e)) + ")"
}

// MarshalText writes the evidence's name.
func (e Evidence) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// State is a payment's settlement as the reconciler knows it. It carries
// no personal data: the TPP's reference, the SDK's keys, amounts and
// dates.
type State struct {
	// Payment is the create's X-Request-ID.
	Payment string `json:"payment"`
	// Account is the watched account's key (txsync.AccountKey); empty
	// when NotApplicable.
	Account txsync.AccountKey `json:"account,omitempty"`
	// Settlement is the state.
	Settlement Settlement `json:"settlement"`
	Scheme     Scheme     `json:"scheme,omitzero"`
	// Created is when the create was made.
	Created time.Time `json:"created"`
	// Instructed is the payment's amount.
	Instructed money.Amount `json:"instructed"`
	// Accepted is the bank date an accepted status was first seen, zero
	// when none was; Deadline the last banking day of the window (from
	// the creation date while none was).
	Accepted date.Date `json:"accepted,omitzero"`
	Deadline date.Date `json:"deadline,omitzero"`
	// WasStalled is set once the payment was reported stalled, also
	// when its credit came later.
	WasStalled bool `json:"wasStalled,omitempty"`
	// By, Booking, BookingDate and Booked describe the credit of a
	// settled (or returned) payment: the evidence, the credit's key and
	// date, and the amount booked. Late is set when it was booked after
	// the window.
	By          Evidence     `json:"by,omitzero"`
	Booking     txsync.Key   `json:"booking,omitempty"`
	BookingDate date.Date    `json:"bookingDate,omitzero"`
	Booked      money.Amount `json:"booked,omitzero"`
	Late        bool         `json:"late,omitempty"`
	// Reversal and ReversalDate are the key and date of the booking that
	// returned it.
	Reversal     txsync.Key `json:"reversal,omitempty"`
	ReversalDate date.Date  `json:"reversalDate,omitzero"`
	// Withdrawals counts the credits that settled the payment and that
	// the bank withdrew since (see [Withdrawn]; the payment may have
	// settled again since). WithdrawnBooking, WithdrawnBookingDate and
	// WithdrawnAmount are the last of them: its key, booking date and
	// amount as they settled the payment.
	Withdrawals          int          `json:"withdrawals,omitempty"`
	WithdrawnBooking     txsync.Key   `json:"withdrawnBooking,omitempty"`
	WithdrawnBookingDate date.Date    `json:"withdrawnBookingDate,omitzero"`
	WithdrawnAmount      money.Amount `json:"withdrawnAmount,omitzero"`
	// HeldBooking and HeldBookingDate are the key and booking date of
	// the credit held for a payment still waiting (Awaiting, Stalled or
	// Withdrawn): one that matches it but that txsync reported booked in
	// the future (txsync.FutureBooked). It settles the payment at the
	// first read from the day before its date on (its date no more than
	// txsync.FutureDays ahead), unless the bank withdraws or changes it
	// before, or books a credit that settles the payment first (the held
	// credit then goes to a waiting twin, or is reported unmatched; see
	// [Round.Held]).
	HeldBooking     txsync.Key `json:"heldBooking,omitempty"`
	HeldBookingDate date.Date  `json:"heldBookingDate,omitzero"`
	// HeldReversal and HeldReversalDate are the key and booking date of
	// the reversal held for a settled payment (Settled or
	// SettledOtherAmount): a debit that returns it but that txsync
	// reported booked in the future. It returns the payment at the first
	// read from the day before its date on, unless the bank withdraws or
	// changes it before, or another reversal returns the payment first
	// (see [Round.Held]).
	HeldReversal     txsync.Key `json:"heldReversal,omitempty"`
	HeldReversalDate date.Date  `json:"heldReversalDate,omitzero"`
}

// Credit is a credit booked on a watched account that matched no
// payment: it is reported, never forced onto one. Look it up in the
// TPP's ledger by its key. In [Round.UnmatchedReversals] it is a
// reversal (Amount negative); in [Round.Unreadable] an entry that cannot
// be read: BookingDate zero when the entry has no date, Amount as the
// bank sent it (unreadable, Amount.Err not nil; zero; or absent, the zero
// Amount, left out of the JSON).
type Credit struct {
	Key         txsync.Key   `json:"key"`
	BookingDate date.Date    `json:"bookingDate"`
	Amount      money.Amount `json:"amount,omitzero"`
}

// Round is what one call learned about a watched account: the payments
// it settled, returned, found stalled or held a credit for, and the
// credits no payment matched.
type Round struct {
	// Account is the account's key.
	Account txsync.AccountKey `json:"account"`
	// Watched is false for an account the reconciler does not watch:
	// nothing else is set.
	Watched bool `json:"watched"`
	// Settled are the payments settled (Settled or SettledOtherAmount)
	// by this call, Returned those returned, Stalled those found
	// stalled, Withdrawn those whose credit the bank withdrew (a
	// payment settled again by the same call is in Settled too, after).
	Settled   []State `json:"settled,omitempty"`
	Returned  []State `json:"returned,omitempty"`
	Stalled   []State `json:"stalled,omitempty"`
	Withdrawn []State `json:"withdrawn,omitempty"`
	// Held are the payments for which this call holds a credit that
	// matches them but that txsync reported booked in the future
	// (txsync.FutureBooked: a bank's clock or data error): it does not
	// settle them yet. Each still waits (Awaiting, or Stalled after its
	// window), the credit in [State.HeldBooking]; a later call settles
	// it, in Settled, once the credit's date is no more than
	// txsync.FutureDays ahead, and lets the credit go if the bank
	// withdraws or changes it first (a changed credit is matched again),
	// or if a credit not so reported settles the payment first (the held
	// one then held for a waiting twin, else in Unmatched), or if a
	// reversal of it is read first (the held one then in Unmatched).
	// The same goes for a reversal of a settled payment so reported: the
	// payment stays settled, the reversal in [State.HeldReversal], and a
	// later call returns it, in Returned.
	Held []State `json:"held,omitempty"`
	// Unmatched are the new credits no payment matched, after (first)
	// the credits a call that returns no Round ([Reconciler.Status],
	// Track) let go matching no payment, reported by the next Apply,
	// once (not when its delta withdraws such a credit, or changes it so
	// that a payment takes it, or so that it can no longer be read: then
	// in Unreadable). An entry reported in Unreadable that the bank
	// changes into a credit that can be read and matches no payment is
	// here too, as it now is, once (one it changes into a debit that can
	// be read is matched as a debit read for the first time: a reversal
	// returns its payment, or is held, or is in UnmatchedReversals with
	// the held credit it reverses, here).
	Unmatched []Credit `json:"unmatched,omitempty"`
	// UnmatchedReversals are the reversals (debits of a credit's amount,
	// with its payment's reference, Amount negative) let go with their
	// credit, that credit settling no payment: a reversal held (booked
	// in the future) for a settled payment whose credit the bank
	// withdrew, or changed so that it no longer settles a payment with
	// the reversal still reversing it (held again, another amount), or
	// whose payment was rejected or cancelled with no twin to take the
	// credit; and a reversal of a credit held for a payment. The credit
	// is in Unmatched, or in a payment's Withdrawn: the reversal says its
	// money went back (a reversal the bank no longer lists as booked is
	// let go unreported, as a held one withdrawn). A reversal held for a
	// settled payment that the bank changes so that it reverses no
	// payment (another amount, a date out of [ReturnDays], a text without
	// the payment's reference) is here too, as it now is (its Amount as
	// the bank now books it), the payment left settled: it was reported
	// in Held, and returns nothing. Each is reported
	// once; one that a call without a Round ([Reconciler.Status], Track)
	// let go, by the next Apply, first, as Unmatched's.
	UnmatchedReversals []Credit `json:"unmatchedReversals,omitempty"`
	// Unreadable are the booked entries of the delta that cannot be
	// read, so that no payment is matched with them: an amount that is
	// unreadable (Amount.Err not nil), absent or zero, or no booking nor
	// value date. An unreadable amount has no sign, and a zero one
	// neither credits nor debits: each may be a payment's credit or a
	// reversal, and is reported here, credit or debit alike, once (a
	// delta given again does not report it again), never dropped: look
	// it up in the TPP's ledger by its key. A payment it would have
	// settled waits (and stalls after its window). So is a credit or a
	// reversal the bank changes so that it can no longer be read, when
	// the change withdraws its settlement or lets its hold go, and a
	// credit reported before (in Unmatched, or here as it was) that the
	// bank changes so: what was reported is no longer what the bank
	// shows (once: a delta given again does not report it again; one
	// kept for this call's Unmatched is reported here instead).
	Unreadable []Credit `json:"unreadable,omitempty"`
	// Repeated counts the bookings of the delta matching had seen
	// before (the same credit under a new key, after the sync's state
	// was lost or the account linked anew): each is skipped.
	Repeated int `json:"repeated,omitempty"`
}

// Empty reports whether the call learned nothing.
func (r *Round) Empty() bool {
	return r == nil || len(r.Settled)+len(r.Returned)+len(r.Stalled)+len(r.Withdrawn)+len(r.Held)+len(r.Unmatched)+len(r.UnmatchedReversals)+len(r.Unreadable) == 0
}
