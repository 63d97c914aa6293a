package txsync

import (
	"strconv"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
)

// AccountKey is the SDK's key of an account: assigned when the account is
// first linked ([Syncer.Link]) and kept for it across consents, whatever
// resource id the bank gives it. It is random, so it reveals nothing of
// the account; a TPP may store and log it.
type AccountKey string

// Key is the SDK's key of a transaction: assigned when the entry is first
// seen and kept for it while the sync tracks it, through id changes at the
// bank and from pending to booked. It starts with its account's
// [AccountKey]. Store the entries of the TPP's own ledger by it.
type Key string

// Entry is a transaction as the sync reports it: its key and the entry
// as the bank sent it in this read (one of Transaction and Card is set).
type Entry struct {
	Key Key
	// Occurrence is the entry's rank among the entries of this read with
	// the same facts (0 for the first): identical twins (two 49.00 NOK
	// coffees on one day) keep two keys.
	Occurrence int
	// Transaction is the entry of an account; Card that of a card
	// account.
	Transaction *accounts.Transaction
	Card        *accounts.CardTransaction
}

// What says which facts of an entry a [Change] changed.
type What uint8

// The facts a change may concern.
const (
	// Booked: a pending entry became booked.
	Booked What = 1 << iota
	// Amount: the amount or its currency changed.
	Amount
	// Text: the counterparty, the remittance information or a
	// proprietary reference changed.
	Text
	// Dates: the booking or value date changed.
	Dates
	// Unbooked: a booked entry came back as pending (rare; reported so
	// that nothing is hidden).
	Unbooked
)

// String lists the facts, such as "booked+amount".
func (w What) String() string {
	names := []string{"booked", "amount", "text", "dates", "unbooked"}
	s := ""
	for i, n := range names {
		if w&(1<<i) != 0 {
			if s != "" {
				s += "+"
			}
			s += n
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// Change is an entry whose facts changed since the previous read: a
// pending entry that was booked (under another id, for another amount,
// possibly), or an entry whose amount, text or dates changed. An entry
// whose transactionId alone changed at the bank is not a change: the
// sync follows it silently.
type Change struct {
	Entry
	// Previous is the entry as the sync last saw it.
	Previous Version
	// What says which facts changed.
	What What
}

// Reason says why an entry was removed.
type Reason uint8

// Reasons of a [Removal].
const (
	// PendingVanished: a pending entry left the pending list and no
	// booked entry matches it (a reservation that was dropped).
	PendingVanished Reason = iota + 1
	// BookedGone: a booked entry within the read's dates is no longer
	// listed (a bank's correction).
	BookedGone
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case PendingVanished:
		return "pending vanished"
	case BookedGone:
		return "booked no longer listed"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Removal is an entry gone from the bank's answer.
type Removal struct {
	Key Key
	// Previous is the entry as the sync last saw it.
	Previous Version
	Reason   Reason
}

// Version is what the sync keeps of an entry: the facts it compares. It
// is the previous version of a [Change] or a [Removal].
//
// Its TransactionID, Amount and Currency are the bank's texts when they
// are at most 140 bytes (any id, amount and currency a bank sends); a
// longer one is kept as its start and a digest of the whole
// ("1234…#<24 hex digits>"), so that the state stays bounded and two
// long texts still compare as the texts do.
type Version struct {
	Status        accounts.BookingStatus
	TransactionID string
	BookingDate   date.Date
	ValueDate     date.Date
	// Amount is the amount's text ("-49.00"), Currency its code.
	Amount, Currency string
	// Counterparty is the creditor's name of money out, the debtor's of
	// money in (a card entry: its acceptor's details).
	Counterparty string
	// Text is the remittance information (a card entry: its
	// transactionDetails), cut to 140 characters.
	Text string
}

// Delta is what one read of an account changed: the three lists a TPP
// applies to its ledger, by key. Applying every Delta of an account in
// order gives the bank's list: nothing twice, nothing missed.
type Delta struct {
	// Account is the account's key.
	Account AccountKey
	// Added are entries seen for the first time, in the bank's order.
	Added []Entry
	// Changed are entries whose facts changed, each with its previous
	// version.
	Changed []Change
	// Removed are entries gone from the bank's answer, each with its
	// reason.
	Removed []Removal
	// From is the first booking date the read covered: booked entries
	// older than it were neither compared nor reported.
	From date.Date
	// First is set for the account's first read: every entry is Added
	// (but those of Overflow).
	First bool
	// Overflow counts the new entries of this read that the account's
	// state had no room for ([WithMaxEntries], or the bytes of a store
	// value, for entries of long texts): they are neither added
	// nor kept, and a later read adds each of them once a place frees
	// (a tracked entry leaves the bank's list or the overlap window),
	// while the bank still lists it in the window. Tracked entries keep
	// their places while the bank lists them, so an identical read
	// reports nothing and never an entry twice; each read reports its
	// overflow again. Above zero, the account holds more entries than
	// the limit (raise it), or than a store value holds.
	Overflow int
	// Anomalies are facts of this read's Added and Changed entries that
	// the sync does not trust: each comes with the entry it concerns,
	// when the entry is added or changed, not on every read.
	Anomalies []Anomaly
}

// Anomaly is a fact of a reported entry that the sync did not let act on
// its state.
type Anomaly struct {
	// Key is the entry's key, in Added or Changed of the same Delta.
	Key  Key
	Kind AnomalyKind
	// Date is the date the anomaly concerns (for FutureBooked, the
	// booking date as the bank sent it).
	Date date.Date
}

// AnomalyKind says what is wrong with an entry.
type AnomalyKind uint8

// Kinds of [Anomaly].
const (
	// FutureBooked: a booked entry dated more than [FutureDays] after
	// the bank's date (Europe/Oslo) of the read. It is reported and
	// tracked, but its date does not move the overlap window: the window
	// ends at the bank's date plus FutureDays, so the entries booked
	// after it are still asked for and reported. Pending entries may be
	// dated ahead (a payment due later) and are not anomalies.
	FutureBooked AnomalyKind = iota + 1
)

// String names the kind.
func (k AnomalyKind) String() string {
	if k == FutureBooked {
		return "booked in the future"
	}
	return "AnomalyKind(" + strconv.Itoa(int(k)) + ")"
}

// Empty reports whether the read changed nothing: no entry added, changed
// or removed ([Delta.Overflow] and [Delta.Anomalies] do not count).
func (d *Delta) Empty() bool {
	return d == nil || len(d.Added)+len(d.Changed)+len(d.Removed) == 0
}
