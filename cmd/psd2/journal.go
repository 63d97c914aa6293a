package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// journalUsage is the usage line of psd2 journal.
const journalUsage = "(list [-all] | show REQUEST-ID | resolve REQUEST-ID | settle -by WHO -reason WHY REQUEST-ID) -store STORE [-schema NAME]\n" +
	"       [(-bank ID | -url BASE) (-cert ... | -p12 ...) for resolve]"

func runJournal(ctx context.Context, e *env, args []string) error {
	subs := []string{"list", "show", "resolve", "settle"}
	if len(args) == 0 || !slices.Contains(subs, args[0]) {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(e.stderr, "Usage: psd2 journal %s\n", journalUsage)
			return nil
		}
		return usagef("want a subcommand: list, show, resolve or settle")
	}
	sub := args[0]
	fs := e.flags("journal "+sub, journalUsage)
	var cf credFlags
	var bf bankFlags
	var sf storeFlags
	cf.register(fs, true)
	bf.register(fs)
	sf.register(fs)
	by := fs.String("by", "", "settle: who settles the payment (an operator id; no PSU data)")
	reason := fs.String("reason", "", "settle: why, in one line (no PSU data)")
	all := fs.Bool("all", false, "list: every entry the journal keeps, settled ones too")
	stopped := fs.Bool("writers-stopped", false, "list, resolve, settle: every process that sends payments has stopped, so an entry without an answer, or whose outcome is unknown, is in doubt at once (never while the service runs)")
	if err := parse(fs, args[1:], sub != "list"); err != nil {
		return err
	}
	if sub != "list" && fs.NArg() != 1 {
		return usagef("%s takes one X-Request-ID (psd2 journal list shows them)", sub)
	}
	if sub == "settle" && (*by == "" || *reason == "") {
		return usagef("settle needs -by and -reason")
	}
	dir, err := directory(bf.banksFile)
	if err != nil {
		return err
	}
	st, done, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	var opts []journal.Option
	if *stopped {
		opts = append(opts, journal.WithWritersStopped())
	}
	j, err := journal.New(st, opts...)
	if err != nil {
		return err
	}
	now := time.Now()
	switch sub {
	case "list":
		return listJournal(ctx, e, j, dir, now, *all, *stopped)
	case "show":
		en, err := j.Entry(ctx, fs.Arg(0))
		if err != nil && errors.Is(err, journal.ErrLost) && e.json {
			// --json says it on stdout too, as list does: a document
			// with Lost and the state entry-lost, not nothing.
			if err := e.emit(lostRowOf(ctx, j, fs.Arg(0), now), nil); err != nil {
				return err
			}
		}
		if err != nil {
			return entryError(err, fs.Arg(0))
		}
		row := rowOf(en, dir, now)
		if err := e.emit(row, func(w io.Writer) { printEntry(w, row) }); err != nil {
			return err
		}
		if row.BodyUnreadable != "" {
			return errors.New(unreadableWords(1))
		}
		return nil
	case "settle":
		en, err := j.SettleByPerson(ctx, fs.Arg(0), *by, *reason)
		if err != nil {
			return settleError(err, fs.Arg(0))
		}
		row := rowOf(en, dir, now)
		rep := reportOf(row, *en.Resolution, nil)
		return e.emit(rep, func(w io.Writer) { printResolution(w, rep) })
	}
	en, err := j.Entry(ctx, fs.Arg(0))
	if err != nil {
		return entryError(err, fs.Arg(0))
	}
	c, err := newClient(&bf, &cf, client.WithStore(st))
	if err != nil {
		return err
	}
	return resolveEntry(ctx, e, j, c, en, dir, now)
}

// resolveEntry resolves en with c and prints what was found. Whatever
// the bank told it is printed, even when the journal could not record it
// or be read back: a payment the resend just created has its id and
// approval link nowhere else. Such a run exits non-zero and says what the
// journal lacks; so does one that leaves the payment in doubt
// (NeedsPerson).
func resolveEntry(ctx context.Context, e *env, j *journal.Journal, c *client.Client, en journal.Entry, dir *banks.Directory, now time.Time) error {
	requestID := en.RequestID
	res, err := j.Resolve(ctx, c, en)
	var conflict, notRecorded error
	switch {
	case errors.Is(err, journal.ErrConflict):
		conflict = err
	case errors.Is(err, journal.ErrNotRecorded):
		notRecorded = err
	case err != nil:
		return entryError(err, requestID)
	}
	var unread error
	if notRecorded == nil {
		// The entry as the journal now holds it; should it not be read
		// back, the one read before the resolve still says which
		// payment this is.
		if after, err := j.Entry(ctx, requestID); err != nil {
			unread = err
		} else {
			en = after
		}
	}
	rep := reportOf(rowOf(en, dir, now), res, conflict)
	switch {
	case notRecorded != nil:
		notRecordedReport(&rep, res, notRecorded)
	case unread != nil:
		rep.Journal = fmt.Sprintf("NOT READ BACK: psd2 recorded this, but could not read the entry back (%v): psd2 journal show %s says what the journal holds", unread, requestID)
	}
	if err := e.emit(rep, func(w io.Writer) { printResolution(w, rep) }); err != nil {
		return err
	}
	switch {
	case notRecorded != nil:
		return failedError{"the journal was not updated: record what psd2 found (above) with psd2 journal settle before anything else"}
	case conflict != nil:
		return failedError{"a person settled this payment while psd2 sent it again: their settlement stands; check it against what the resend found (above)"}
	case unread != nil:
		return failedError{"the entry could not be read back from the journal after the resolve (above)"}
	case res.Kind == journal.NeedsPerson:
		// Not settled: whether the payment exists is unknown.
		return failedError{"the payment is still in doubt: psd2 cannot tell whether it exists; a person settles it (Next, above)"}
	case rep.Finding == findingStatusUnknown:
		// The bank's answer is unusable, as a status read without a
		// transactionStatus (exit status 3): the payment exists, its
		// status does not say what became of it.
		if rep.Status == "" {
			return errors.New("the payment's status is unknown: the bank's answer gave no transactionStatus (Next, above)")
		}
		return fmt.Errorf("the payment's status is unknown: the bank answered transactionStatus %q, which psd2 does not know (Next, above)", rep.Status)
	}
	return nil
}

// findingStatusUnknown is the finding of a payment whose status the
// bank gave in a code psd2 does not know.
const findingStatusUnknown = "status-unknown"

// notRecordedReport adds to rep that the journal does not hold what was
// found (err, an error matching journal.ErrNotRecorded), and makes
// recording it the first next step: the entry is still in doubt, and a
// later resolve of a payment the resend created would send it again, be
// refused as a duplicate, and never show this id again.
func notRecordedReport(rep *resolveReport, res journal.Resolution, err error) {
	settle := fmt.Sprintf("psd2 journal settle -by YOU -reason %q %s", "resolved: "+findingWords(res), rep.Entry.RequestID)
	rep.Journal = fmt.Sprintf("NOT UPDATED: the journal could not record this (%v); it still lists the entry as in doubt", err)
	step := "First record this finding by hand, once the store works: " + settle + "."
	if res.Kind == journal.ResolvedCreated {
		step += " Do not run psd2 journal resolve on it before that: it would send the payment again, the bank would refuse it as a duplicate, and this id and approval link would not be shown again."
	}
	rep.NextStep = step + " Then: " + rep.NextStep
}

// findingWords is a one-line reason for a settlement of what res found:
// the payment's id and status, in no PSU data.
func findingWords(res journal.Resolution) string {
	out := string(res.Kind)
	if res.ID != "" {
		out += ", payment id " + res.ID
	}
	if res.Status != "" {
		out += ", status " + res.Status
	}
	if res.ResendRequestID != "" {
		out += ", resend X-Request-ID " + res.ResendRequestID
	}
	return out
}

// listJournal prints the entries in doubt (every entry with all) as a
// table, and what to do with them.
//
// Without all, the entries journal.InDoubt yields (those with an open
// marker) are not all that may be in doubt: an entry whose marker the
// store failed to write (the create was sent all the same) and whose
// outcome was never recorded has none, and InDoubt never yields it,
// though nobody knows whether its payment exists. listJournal therefore
// reads every entry too (missedInDoubt), so that such an entry is listed
// rather than a false "0 payment(s) in doubt".
func listJournal(ctx context.Context, e *env, j *journal.Journal, dir *banks.Directory, now time.Time, all, stopped bool) error {
	seq := j.InDoubt(ctx)
	if all {
		seq = j.Entries(ctx)
	}
	rows := []entryRow{}
	listed := map[string]bool{}
	// An entry the journal cannot read (journal.UnreadableEntryError) is
	// listed as such, in doubt, and the listing goes on: one damaged
	// entry does not hide the payments in doubt after it.
	damaged := 0
	addDamaged := func(ue *journal.UnreadableEntryError) {
		if !listed[ue.RequestID] {
			listed[ue.RequestID] = true
			rows = append(rows, unreadableEntryRow(ue))
			damaged++
		}
	}
	for en, err := range seq {
		if ue, ok := errors.AsType[*journal.UnreadableEntryError](err); ok {
			addDamaged(ue)
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the journal: %w", err)
		}
		listed[en.RequestID] = true
		rows = append(rows, rowOf(en, dir, now))
	}
	// A marker whose entry is missing: the payment may exist, and the
	// journal knows nothing else of it (journal.Lost).
	lost := 0
	for l, err := range j.Lost(ctx) {
		if err != nil {
			return fmt.Errorf("reading the journal: %w", err)
		}
		rows = append(rows, lostRow(l, now))
		lost++
	}
	empty := all && len(rows) == 0
	if !all {
		missed, unread, seen, err := missedInDoubt(ctx, j, listed, now, stopped)
		if err != nil {
			return fmt.Errorf("reading the journal: %w", err)
		}
		for _, en := range missed {
			rows = append(rows, rowOf(en, dir, now))
		}
		for _, ue := range unread {
			addDamaged(ue)
		}
		empty = !seen && lost == 0 && damaged == 0
	}
	if empty {
		// Nothing in doubt is a claim about the payment service's
		// journal: a store without any journal entry may be another
		// service's, or a mistyped one, and says so.
		fmt.Fprintln(e.stderr, noJournalNote)
	}
	unreadable := 0
	for _, r := range rows {
		if r.BodyUnreadable != "" {
			unreadable++
		}
	}
	err := e.emit(rows, func(w io.Writer) {
		if len(rows) > 0 {
			fmt.Fprintf(w, "%-36s  %-14s  %6s  %-18s  %15s  %-9s  %s\n", "REQUEST ID", "BANK", "AGE", "OPERATION", "AMOUNT", "CREDITOR", "STATE")
		}
		doubt, person, claimed := 0, 0, 0
		for _, r := range rows {
			fmt.Fprintf(w, "%-36s  %-14s  %6s  %-18s  %15s  %-9s  %s\n", r.RequestID, r.Bank, r.Age, r.What, r.amountText(), r.creditorText(), r.StateText)
			if r.InDoubt {
				doubt++
			}
			switch r.State {
			case stateNeedsPerson:
				person++
			case stateResending:
				claimed++
			}
		}
		if all {
			fmt.Fprintf(w, "%d journal entries, %d of them in doubt\n", len(rows), doubt)
		} else {
			fmt.Fprintf(w, "%d payment(s) in doubt\n", len(rows))
		}
		if lost > 0 {
			fmt.Fprintf(w, "LOST: %d of them with only their open marker left (the entry was deleted or lost): whether the payment exists is unknown. Ask the bank (its support, with the request id) or the PSU, then psd2 journal settle -by WHO -reason WHAT-YOU-FOUND REQUEST-ID.\n", lost)
		}
		if unreadable > 0 {
			fmt.Fprintf(w, "UNREADABLE: %d of them with a recorded body psd2 could not read: their amount and creditor are unknown, not absent (psd2 journal show REQUEST-ID says why).\n", unreadable)
		}
		if damaged > 0 {
			fmt.Fprintf(w, "ENTRY UNREADABLE: %d of them whose journal entry psd2 could not read at all (damaged, or written by a newer version): whether their payment exists is unknown, and psd2 can neither resolve nor settle them. Read each with the release of the service that wrote it (a newer one's), or ask the bank (its support, with the request id) or the PSU whether the payment exists and keep what you found; the entry stays listed until it is read or removed from the store.\n", damaged)
		}
		if doubt-person-claimed-lost-damaged > 0 {
			fmt.Fprintln(w, "Next: psd2 journal resolve REQUEST-ID, with the bank (-bank or -url) and the certificate the service uses: it finds out whether the bank has the payment, and says what to tell the PSU.")
		}
		if person > 0 {
			fmt.Fprintln(w, "An entry that needs a person: ask the bank or the PSU whether the payment exists, then psd2 journal settle -by WHO -reason WHAT-YOU-FOUND REQUEST-ID.")
		}
		if claimed > 0 {
			fmt.Fprintln(w, "An entry being resent is being resolved right now: leave it; psd2 journal show REQUEST-ID after the time it names.")
		}
	})
	if err != nil {
		return err
	}
	var errs []string
	if lost > 0 {
		errs = append(errs, fmt.Sprintf("%d payment(s) in doubt whose journal entry is lost, only its open marker left (above)", lost))
	}
	if unreadable > 0 {
		errs = append(errs, unreadableWords(unreadable))
	}
	if damaged > 0 {
		errs = append(errs, fmt.Sprintf("%d journal entr%s could not be read at all: whether %s payment exists is unknown (above)",
			damaged, map[bool]string{true: "y", false: "ies"}[damaged == 1], map[bool]string{true: "its", false: "their"}[damaged == 1]))
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// unreadableWords is the error of a listing (or show) with n entries
// whose body psd2 could not read (exit status 3: it cannot tell what
// they are).
func unreadableWords(n int) string {
	return fmt.Sprintf("the recorded body of %d journal entr%s could not be read: amount and creditor unknown (above)", n, map[bool]string{true: "y", false: "ies"}[n == 1])
}

// noJournalNote is said when a store holds no journal entry at all.
const noJournalNote = "note: this store holds no journal entry at all: either no payment was ever created with a journal on it, " +
	"or -store is not the payment service's store (check it before reading this as nothing in doubt)"

// missedInDoubt reads every entry of j and returns those in doubt that
// InDoubt did not yield (listed holds the request ids it did) and whose
// create cannot be running any more: entries without an open marker
// (see listJournal); stopped is -writers-stopped (nothing is running).
// seen reports whether j holds an entry at all.
func missedInDoubt(ctx context.Context, j *journal.Journal, listed map[string]bool, now time.Time, stopped bool) (missed []journal.Entry, unread []*journal.UnreadableEntryError, seen bool, err error) {
	for en, err := range j.Entries(ctx) {
		if ue, ok := errors.AsType[*journal.UnreadableEntryError](err); ok {
			seen = true
			unread = append(unread, ue)
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		seen = true
		if listed[en.RequestID] || !en.InDoubt() || en.Resolves != "" {
			continue
		}
		if en.Outcome == "" && !stopped && (now.Before(en.Until) || now.Sub(en.Created) < journal.DefaultInFlight) {
			continue // its create may still be running: InDoubt yields it later
		}
		missed = append(missed, en)
	}
	return missed, unread, seen, nil
}

// States of an entry, as psd2 names them.
const (
	stateNoAnswer    = "no-answer"         // no outcome: the process ended during the call
	stateUnknown     = "outcome-unknown"   // sent, no usable answer
	stateNeedsPerson = "needs-person"      // Resolve cannot settle it
	stateResending   = "resending"         // a Resolve holds its claim now
	stateInFlight    = "in-flight"         // no outcome yet, the call may still run
	stateCreated     = "created"           // the bank created it
	stateRefused     = "refused"           // the bank refused it: nothing created
	stateNotSent     = "not-sent"          // never left the machine
	stateResolved    = "resolved"          // settled by Resolve
	stateByPerson    = "settled-by-person" // settled by a person
	stateConflict    = "conflict"          // settled by a person; a resend found otherwise
	stateResend      = "resend"            // the entry of a resend made by Resolve
)

// entryRow is one journal entry in the operator's words: no body, no
// session, no PSU data; the creditor's account masked.
type entryRow struct {
	RequestID   string     `json:"requestId"`
	Bank        string     `json:"bank"`
	Environment string     `json:"environment,omitempty"`
	Created     time.Time  `json:"created"`
	Age         string     `json:"age"`
	Operation   string     `json:"operation"`
	What        string     `json:"what"`
	Amount      string     `json:"amount,omitempty"`
	Currency    string     `json:"currency,omitempty"`
	Payments    int        `json:"payments,omitempty"`
	Creditor    string     `json:"creditor,omitempty"`
	State       string     `json:"state"`
	StateText   string     `json:"stateText"`
	InDoubt     bool       `json:"inDoubt"`
	Outcome     string     `json:"outcome,omitempty"`
	ID          string     `json:"id,omitempty"`
	Claim       *claimInfo `json:"claim,omitempty"`
	Resolution  *resInfo   `json:"resolution,omitempty"`
	Trail       []resInfo  `json:"trail,omitempty"`
	Resolves    string     `json:"resolves,omitempty"`
	// BodyUnreadable is set when psd2 could not read the create's
	// recorded body: its amount, currency and creditor are then
	// unknown, not absent.
	BodyUnreadable string `json:"bodyUnreadable,omitempty"`
	// Lost is set for a payment in doubt whose entry is missing, only
	// its open marker left (journal.Lost), and for a person's
	// settlement of one: its create, amount and creditor are unknown.
	Lost bool `json:"lost,omitempty"`
}

// claimInfo is a live claim on an entry: a resend on its way.
type claimInfo struct {
	ResendRequestID string    `json:"resendRequestId"`
	Until           time.Time `json:"until"`
}

// resInfo is a resolution of an entry, recorded or in its trail.
type resInfo struct {
	Kind            journal.ResolutionKind `json:"kind"`
	ID              string                 `json:"id,omitempty"`
	Status          string                 `json:"status,omitempty"`
	FundsAvailable  *bool                  `json:"fundsAvailable,omitempty"`
	Reason          string                 `json:"reason,omitempty"`
	ResendRequestID string                 `json:"resendRequestId,omitempty"`
	At              time.Time              `json:"at"`
}

func infoOf(r journal.Resolution) resInfo {
	return resInfo{Kind: r.Kind, ID: r.ID, Status: r.Status, FundsAvailable: r.FundsAvailable, Reason: r.Reason,
		ResendRequestID: r.ResendRequestID, At: r.At.UTC()}
}

func (r entryRow) amountText() string {
	switch {
	case r.Lost:
		return lostAmount
	case r.BodyUnreadable != "":
		return unreadableAmount
	case r.Amount != "":
		return r.Amount + " " + r.Currency
	case r.Payments > 0:
		return fmt.Sprintf("%d payments", r.Payments)
	}
	return "-"
}

// unreadableAmount is the amount of an entry whose body psd2 could not
// read: unknown, never "-".
const unreadableAmount = "body unreadable"

// lostAmount is the amount of a lost entry (journal.Lost): unknown.
const lostAmount = "entry lost"

// creditorText is the creditor's masked account, "-" when the create
// names none, "?" when its body could not be read.
func (r entryRow) creditorText() string {
	if r.BodyUnreadable != "" || r.Lost {
		return "?"
	}
	return dash(r.Creditor)
}

// whatText is what the entry's create made, for a sentence: "the
// domestic payment of 12.50 NOK to ****8903".
func (r entryRow) whatText() string {
	if r.Lost {
		return "the payment (its journal entry is lost: what it was, and to whom, is unknown)"
	}
	if r.BodyUnreadable != "" {
		return fmt.Sprintf("the %s of an amount to a creditor psd2 could not read (its recorded body is unreadable)", r.What)
	}
	return fmt.Sprintf("the %s of %s to %s", r.What, r.amountText(), dash(r.Creditor))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stateLost is the state of a payment in doubt whose entry is lost.
const stateLost = "entry-lost"

// stateUnreadable is the state of an entry the journal cannot read
// (journal.UnreadableEntryError): in doubt, since nothing of it is known.
const stateUnreadable = "entry-unreadable"

// unreadableEntryRow describes an entry the journal cannot read: its
// request id alone, in doubt.
func unreadableEntryRow(ue *journal.UnreadableEntryError) entryRow {
	return entryRow{RequestID: ue.RequestID, Bank: "?", Age: "?", What: "payment", InDoubt: true,
		State: stateUnreadable, StateText: "ENTRY UNREADABLE: psd2 cannot read it; the payment may exist"}
}

// lostRow describes a lost entry (journal.Lost) for the operator at now.
func lostRow(l journal.Lost, now time.Time) entryRow {
	r := entryRow{RequestID: l.RequestID, Bank: "?", Created: l.Marked.UTC(), Age: "?", What: "payment", InDoubt: true, Lost: true,
		State: stateLost, StateText: "ENTRY LOST: only its open marker is left; the payment may exist"}
	if !l.Marked.IsZero() {
		r.Age = age(now.Sub(l.Marked))
	}
	return r
}

// lostRowOf describes the lost entry of requestID (journal.Lost) for
// the operator at now; when its marker is no longer listed (settled
// meanwhile), a row of its request id alone, still lost.
func lostRowOf(ctx context.Context, j *journal.Journal, requestID string, now time.Time) entryRow {
	for l, err := range j.Lost(ctx) {
		if err == nil && l.RequestID == requestID {
			return lostRow(l, now)
		}
	}
	return lostRow(journal.Lost{RequestID: requestID}, now)
}

// rowOf describes en for the operator at now.
func rowOf(en journal.Entry, dir *banks.Directory, now time.Time) entryRow {
	r := entryRow{
		RequestID: en.RequestID, Created: en.Created.UTC(), Age: age(now.Sub(en.Created)),
		Operation: en.Operation, What: operationWords(en.Operation), InDoubt: en.InDoubt(),
		Outcome: string(en.Outcome), ID: en.ID, Resolves: en.Resolves,
	}
	r.Bank, r.Environment = bankOf(en.URL, dir)
	if en.Lost {
		// A person's settlement of a lost entry: no create recorded.
		r.Lost, r.What = true, "payment"
	} else if err := describeBody(&r, en.Body); err != nil {
		r.BodyUnreadable = err.Error()
	} else if strings.HasPrefix(en.Operation, "payments.") && r.Amount == "" && r.Payments == 0 {
		// A payment's create always gives its amount (a bulk's, its
		// payments): one that names none is not read as "-".
		r.BodyUnreadable = "it names no instructedAmount (nor payments) where a payment's create gives one"
	}
	if c := en.Claimed(now); c != nil {
		r.Claim = &claimInfo{ResendRequestID: c.ResendRequestID, Until: c.Until.UTC()}
	}
	if en.Resolution != nil {
		ri := infoOf(*en.Resolution)
		r.Resolution = &ri
	}
	for _, t := range en.Trail {
		r.Trail = append(r.Trail, infoOf(t))
	}
	r.State, r.StateText = stateOf(en, r, now)
	return r
}

// stateOf names the entry's state, in a word and in a phrase.
func stateOf(en journal.Entry, r entryRow, now time.Time) (string, string) {
	switch {
	case en.Resolves != "":
		return stateResend, "the resend of " + en.Resolves
	case r.Claim != nil:
		return stateResending, fmt.Sprintf("being resolved: a resend is on its way (until %s)", r.Claim.Until.Format(time.TimeOnly+" MST"))
	case en.Resolution != nil && en.Resolution.Kind == journal.SettledByPerson:
		if conflictOf(en) != nil {
			return stateConflict, "conflict: settled by a person, but a later resend found otherwise (psd2 journal show " + en.RequestID + ")"
		}
		return stateByPerson, en.Resolution.Reason
	case en.Resolution != nil && en.Resolution.Kind == journal.NeedsPerson:
		return stateNeedsPerson, "needs a person: " + en.Resolution.Reason
	case en.Resolution != nil:
		return stateResolved, "resolved: " + kindWords(en.Resolution.Kind)
	case en.Outcome == journal.OutcomeUnknown:
		if from := resolvableFrom(en); now.Before(from) {
			return stateUnknown, "outcome unknown: sent, no usable answer; the bank may still be working on it: psd2 journal resolve acts from " +
				from.UTC().Format(time.TimeOnly+" MST")
		}
		return stateUnknown, "outcome unknown: sent, no usable answer"
	case en.Outcome == "" && !en.Until.IsZero() && now.Before(en.Until):
		return stateInFlight, "no answer yet: the call may still be running"
	case en.Outcome == "":
		return stateNoAnswer, "no answer recorded: the process ended during the call"
	case en.Outcome == journal.OutcomeCreated:
		return stateCreated, "created by the bank"
	case en.Outcome == journal.OutcomeRefused:
		return stateRefused, "refused by the bank: nothing created"
	case en.Outcome == journal.OutcomeNotSent:
		return stateNotSent, "never sent"
	}
	return string(en.Outcome), string(en.Outcome)
}

// resolvableFrom is when journal.Resolve sends the create of en, whose
// outcome is unknown, again at the earliest (with the journal's default
// in-flight time): the bank may still be working on it until then.
func resolvableFrom(en journal.Entry) time.Time {
	from := en.Created.Add(journal.DefaultInFlight)
	if en.Until.After(from) {
		from = en.Until
	}
	return from
}

// conflictOf is the resolution a resend found after a person's
// settlement (ErrConflict), kept in the trail; nil when none.
func conflictOf(en journal.Entry) *journal.Resolution {
	if en.Resolution == nil || en.Resolution.Kind != journal.SettledByPerson {
		return nil
	}
	for i := len(en.Trail) - 1; i >= 0; i-- {
		t := en.Trail[i]
		if t.Kind != journal.SettledByPerson && t.Kind != journal.NeedsPerson && t.At.After(en.Resolution.At) {
			return &t
		}
	}
	return nil
}

// bankOf names the bank of a create's URL: its directory id and
// environment, else its host.
func bankOf(raw string, dir *banks.Directory) (string, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "?", ""
	}
	for _, b := range dir.All() {
		for _, env := range []banks.Environment{banks.Sandbox, banks.Production} {
			base, err := url.Parse(b.BaseURL(env))
			if err != nil || !strings.EqualFold(base.Host, u.Host) {
				continue
			}
			p := strings.TrimRight(base.Path, "/")
			if u.Path == p || strings.HasPrefix(u.Path, p+"/") {
				return b.ID, string(env)
			}
		}
	}
	return u.Host, ""
}

// operationWords says what a journaled operation creates.
func operationWords(op string) string {
	switch op {
	case "payments.CreateNorwegianDomestic":
		return "domestic payment"
	case "payments.CreateSEPA":
		return "SEPA payment"
	case "payments.Create":
		return "payment"
	case "payments.CreatePeriodic":
		return "standing order"
	case "payments.CreateBulk":
		return "bulk payment"
	}
	if op == "journal.Resolve" {
		return "resend"
	}
	if strings.HasPrefix(op, "basket.") {
		return "signing basket"
	}
	return op
}

// describeBody reads the amount, currency and masked creditor account
// of a create's body; a bulk's or a basket's count of payments. A body
// it cannot decode is an error, in words without the body's content.
func describeBody(r *entryRow, body []byte) error {
	type account struct {
		IBAN, BBAN, PAN, MaskedPAN, MSISDN string
	}
	type payment struct {
		InstructedAmount *struct {
			Amount   json.Number `json:"amount"`
			Currency string      `json:"currency"`
		} `json:"instructedAmount"`
		CreditorAccount *account `json:"creditorAccount"`
	}
	var doc struct {
		payment
		Payments   []payment `json:"payments"`
		PaymentIDs []string  `json:"paymentIds"`
	}
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("its member %s is not of the form of a create's", te.Field)
		}
		return errors.New("it is not the JSON object of a create")
	}
	switch {
	case doc.InstructedAmount != nil:
		r.Amount, r.Currency = doc.InstructedAmount.Amount.String(), doc.InstructedAmount.Currency
		if a := doc.CreditorAccount; a != nil {
			r.Creditor = mask(a.IBAN + a.BBAN + a.PAN + a.MaskedPAN + a.MSISDN)
		}
	case len(doc.Payments) > 0:
		r.Payments = len(doc.Payments)
	case len(doc.PaymentIDs) > 0:
		r.Payments = len(doc.PaymentIDs)
	}
	return nil
}

// mask shows the last four characters of an account number.
func mask(acct string) string {
	acct = strings.ReplaceAll(acct, " ", "")
	if len(acct) <= 4 {
		return strings.Repeat("*", len(acct))
	}
	return "****" + acct[len(acct)-4:]
}

// age is a duration as an operator reads it: 45s, 12m, 3h05m, 2d04h.
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// printEntry prints one entry with its resolution and trail.
func printEntry(w io.Writer, r entryRow) {
	fmt.Fprintf(w, "request id  %s\n", r.RequestID)
	fmt.Fprintf(w, "bank        %s %s\n", r.Bank, r.Environment)
	fmt.Fprintf(w, "made        %s (%s ago)\n", r.Created.Format(time.RFC3339), r.Age)
	fmt.Fprintf(w, "what        %s of %s to %s (%s)\n", r.What, r.amountText(), r.creditorText(), r.Operation)
	if r.BodyUnreadable != "" {
		fmt.Fprintf(w, "body        UNREADABLE: psd2 could not read the create's recorded body (%s): its amount and creditor are unknown\n", r.BodyUnreadable)
	}
	fmt.Fprintf(w, "state       %s\n", r.StateText)
	if r.ID != "" {
		fmt.Fprintf(w, "bank's id   %s\n", r.ID)
	}
	if r.Claim != nil {
		fmt.Fprintf(w, "resend      X-Request-ID %s, on its way until %s at the latest: settle nothing before\n", r.Claim.ResendRequestID, r.Claim.Until.Format(time.RFC3339))
	}
	if r.Resolution != nil {
		fmt.Fprintf(w, "resolution  %s\n", resWords(*r.Resolution))
	}
	if r.State == stateConflict {
		fmt.Fprintln(w, "CONFLICT    a person settled this entry while psd2 sent it again: the settlement stands; check it against the resend's finding in the trail")
	}
	for _, t := range r.Trail {
		fmt.Fprintf(w, "trail       %s\n", resWords(t))
	}
}

// resWords is a resolution in one line.
func resWords(r resInfo) string {
	if r.Kind == journal.SettledByPerson && r.Reason != "" {
		// The reason says it: "settled by WHO: WHY", or "refused while ...".
		return r.At.Format(time.RFC3339) + " " + r.Reason
	}
	s := r.At.Format(time.RFC3339) + " " + kindWords(r.Kind)
	if r.ID != "" {
		s += ", id " + r.ID
	}
	if r.Status != "" {
		s += ", status " + r.Status
	}
	if r.FundsAvailable != nil && !*r.FundsAvailable {
		s += " (funds unavailable)"
	}
	if r.ResendRequestID != "" {
		s += ", resend " + r.ResendRequestID
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// kindWords says a resolution kind in words.
func kindWords(k journal.ResolutionKind) string {
	switch k {
	case journal.ResolvedStatus:
		return "the bank has it (status read)"
	case journal.ResolvedCreated:
		return "created by a resend (the first never arrived)"
	case journal.ResolvedDuplicate:
		return "the bank has it, id unknown (a resend was refused as a duplicate, or the create was answered 2xx without an id)"
	case journal.ResolvedNotCreated:
		return "nothing created"
	case journal.NeedsPerson:
		return "needs a person"
	case journal.SettledByPerson:
		return "settled by a person"
	}
	return string(k)
}

// settleError is entryError for psd2 journal settle: a settlement
// refused during a resend is not the entry's resolution, but the journal
// keeps it in the entry's trail (journal.SettleByPerson), so it is not
// "nothing changed".
func settleError(err error, requestID string) error {
	var ce *journal.ClaimedError
	if errors.As(err, &ce) {
		return fmt.Errorf("a resend of %s is on its way right now (X-Request-ID %s): your settlement was not recorded as its resolution (the entry's trail keeps it, as refused); look again after %s (psd2 journal show %s)",
			requestID, ce.ResendRequestID, ce.Until.UTC().Format(time.RFC3339), requestID)
	}
	return entryError(err, requestID)
}

// entryError says in the operator's words what went wrong with the
// entry of requestID.
func entryError(err error, requestID string) error {
	var ce *journal.ClaimedError
	var ue *journal.UnreadableEntryError
	switch {
	case errors.Is(err, journal.ErrLost):
		return fmt.Errorf("the journal entry of %s is lost: only its open marker is left, so the payment may exist and what it was is unknown; ask the bank (its support, with the request id) or the PSU whether it exists, then record what you found: psd2 journal settle -by WHO -reason WHAT-YOU-FOUND %s", requestID, requestID)
	case errors.As(err, &ue):
		return fmt.Errorf("the journal entry of %s could not be read (%v): it is damaged, or written by a newer version, and psd2 can neither resolve nor settle it; "+
			"read it with the release of the service that wrote it, or ask the bank (its support, with the request id) or the PSU whether the payment exists", requestID, ue.Err)
	case errors.Is(err, store.ErrNotStored):
		return fmt.Errorf("no journal entry with request id %s in this store (psd2 journal list -all shows them)", requestID)
	case errors.As(err, &ce):
		return fmt.Errorf("a resend of %s is on its way right now (X-Request-ID %s): nothing was changed or sent; look again after %s (psd2 journal show %s)",
			requestID, ce.ResendRequestID, ce.Until.UTC().Format(time.RFC3339), requestID)
	case errors.Is(err, journal.ErrNotInDoubt):
		return fmt.Errorf("%s is not in doubt: it is settled already (psd2 journal show %s says how)", requestID, requestID)
	case errors.Is(err, journal.ErrInFlight):
		return fmt.Errorf("%s may still be on its way: the call that sent it has no answer yet and may still run, or the bank may still be working on it; look again in a few minutes (with -writers-stopped when every process that sends payments has stopped and the bank is done with it)", requestID)
	case errors.Is(err, journal.ErrNotResolvable) && strings.Contains(err.Error(), "another TPP or bank"):
		return fmt.Errorf("%s was made with another bank or certificate than this command's: give the bank it was made at (psd2 journal show %s names it) and the service's certificate", requestID, requestID)
	case errors.Is(err, journal.ErrNotResolvable) && strings.Contains(err.Error(), "is a resend"):
		return fmt.Errorf("%s is the resend of another entry, made by psd2 journal resolve: resolve that one (psd2 journal show %s names it)", requestID, requestID)
	}
	return err
}

// resolveReport is what resolve and settle print: the entry, what was
// found, and what to do next.
type resolveReport struct {
	Entry entryRow `json:"entry"`
	// Kind is how the journal settled the entry (journal.ResolutionKind).
	Kind journal.ResolutionKind `json:"kind"`
	// Finding is the payment's state in a word: paid, awaiting-approval,
	// accepted, partially-accepted, funds-unavailable, rejected,
	// cancelled, not-created, exists-unapprovable, needs-person,
	// settled-by-person, status-unknown (a transactionStatus psd2 does
	// not know, or none in the answer to a resend that created the
	// payment; resolve exits 3).
	Finding string `json:"finding"`
	// ID is the bank's id of the payment, when known.
	ID string `json:"id,omitempty"`
	// Status is the transactionStatus the bank gave: the status read's,
	// or for a payment the resend created (ResolvedCreated) its create
	// answer's; absent when it gave none (StatusNote says why).
	Status     string `json:"status,omitempty"`
	StatusNote string `json:"statusNote,omitempty"`
	// FundsAvailable is the bank's fundsAvailable with the status, when
	// it gave one: false for a payment it cannot fund now.
	FundsAvailable *bool `json:"fundsAvailable,omitempty"`
	// SCARedirect is the approval link of a payment just created by the
	// resend; who must bring it to the PSU is in NextStep.
	SCARedirect     string `json:"scaRedirect,omitempty"`
	ResendRequestID string `json:"resendRequestId,omitempty"`
	Reason          string `json:"reason,omitempty"`
	// Meaning, TellPSU and NextStep are the operator's words.
	Meaning  string `json:"meaning"`
	TellPSU  string `json:"tellPSU"`
	NextStep string `json:"nextStep"`
	// Conflict is set when a person settled the entry while the resend
	// ran: their settlement stands.
	Conflict string `json:"conflict,omitempty"`
	// Journal is set when the journal does not hold this finding (it
	// could not be recorded) or could not be read back; NextStep then
	// starts with what to do about it.
	Journal string `json:"journal,omitempty"`
}

// reportOf says what res means for the payment of row, and what to do.
func reportOf(row entryRow, res journal.Resolution, conflict error) resolveReport {
	rep := resolveReport{Entry: row, Kind: res.Kind, ID: res.ID, Status: res.Status, FundsAvailable: res.FundsAvailable,
		ResendRequestID: res.ResendRequestID, Reason: res.Reason}
	what := row.whatText()
	settle := "psd2 journal settle -by YOU -reason 'WHAT YOU FOUND' " + row.RequestID
	switch res.Kind {
	case journal.ResolvedCreated:
		rep.SCARedirect = scaRedirectOf(res.Answer)
		// The answer's transactionStatus as the journal records it
		// (res.Status): bounded, journal.UnreadableStatus when it is
		// no status code; the answer's own member is the bank's text.
		rep.Status = res.Status
		if rep.Status == "" {
			// The answer's transactionStatus is required: without it
			// (or without an answer psd2 could read) whether the bank
			// took the payment for approval is not known.
			rep.Finding = findingStatusUnknown
			rep.StatusNote = "the bank's answer to the resend gave no transactionStatus"
			rep.Meaning = fmt.Sprintf("The first request never reached the bank, so psd2 sent it again and the bank created it now, id %s, but its status is unknown: the answer gave no transactionStatus, so whether %s is awaiting the PSU's approval, or was rejected at once, is not known.", dash(res.ID), what)
			rep.TellPSU = "We are checking your payment's status: do not pay again yet."
			rep.NextStep = "psd2 journal resolve again reads its status (the journal has its id now). If it is received (RCVD), your service brings the PSU to its scaRedirect (below, if the bank gave one; else it starts an authorisation, payments.Service.StartAuthorisation); unapproved, it expires unpaid."
			break
		}
		if s := payments.TransactionStatus(rep.Status); s != payments.StatusRCVD && s != payments.StatusPATC {
			// The bank gave the created payment another status at once
			// (rejected it, say): that is what it is, never "waiting
			// for approval"; one psd2 does not know leaves it unknown.
			created := res
			created.Status = rep.Status
			statusReport(&rep, created, what)
			rep.Meaning = "The first request never reached the bank, so psd2 sent it again and the bank created it now. " + rep.Meaning
			break
		}
		rep.Finding = "awaiting-approval"
		rep.Meaning = fmt.Sprintf("The first request never reached the bank, so psd2 sent it again and the bank created it now, id %s: %s exists once, not paid yet; it waits for the PSU's approval (SCA).", dash(res.ID), what)
		rep.TellPSU = fmt.Sprintf("Your %s is waiting for your approval at your bank.", row.What)
		if rep.SCARedirect != "" {
			rep.NextStep = "Your service must bring the PSU to the scaRedirect below (in the app or web page where the PSU made the payment, or a message to the PSU): only the PSU approves it, at the bank. Unapproved, it expires unpaid."
		} else {
			rep.NextStep = "The bank gave no scaRedirect: your service starts the payment's authorisation (payments.Service.StartAuthorisation) and brings the PSU to the scaRedirect it answers. Unapproved, it expires unpaid."
		}
	case journal.ResolvedStatus:
		statusReport(&rep, res, what)
	case journal.ResolvedDuplicate:
		rep.Finding = "exists-unapprovable"
		rep.Meaning = fmt.Sprintf("The first request reached the bank: %s exists there, but its id and approval link were lost with the answer, so nobody can approve it; it stays unsigned and expires, and nothing is debited.", what)
		rep.TellPSU = "Your payment was not completed: nothing was paid."
		rep.NextStep = "Do not report it as paid. To pay again, your service creates it again with payments.AllowLogicalDuplicate() once no other entry for it is in doubt (docs/design.md section 8)."
	case journal.ResolvedNotCreated:
		rep.Finding = "not-created"
		rep.Meaning = fmt.Sprintf("Nothing was created: the bank refused %s, or it was never sent.", what)
		rep.TellPSU = "Your payment was not made: nothing was paid; you may pay again."
		rep.NextStep = "Nothing to do in the journal."
	case journal.NeedsPerson:
		rep.Finding = "needs-person"
		rep.Meaning = "psd2 cannot settle this without risking a second payment: " + res.Reason + "."
		rep.TellPSU = "We are checking whether your payment went through: do not pay again yet."
		rep.NextStep = fmt.Sprintf("Ask the bank (its support, with the request id %s) or the PSU (their account) whether %s made %s exists; then record what you found: %s", row.RequestID, what, row.Created.Format(time.RFC3339), settle)
	case journal.SettledByPerson:
		rep.Finding = "settled-by-person"
		rep.Meaning = fmt.Sprintf("Settled by a person (%s): psd2 sends nothing for it, and no resolution replaces it.", res.Reason)
		rep.TellPSU = "What the person who settled it found (the reason above)."
		rep.NextStep = "Nothing to do in the journal."
	default:
		rep.Finding = string(res.Kind)
		rep.Meaning = kindWords(res.Kind)
		rep.NextStep = "psd2 journal show " + row.RequestID
	}
	if conflict != nil {
		// The person's reason is in the entry read back after the
		// resolve; when it could not be read, row is the entry before,
		// which has none.
		why := "psd2 journal show " + row.RequestID + " says why"
		if r := row.Resolution; r != nil && r.Kind == journal.SettledByPerson {
			why = r.Reason
		}
		rep.Conflict = fmt.Sprintf("a person settled this entry while the resend ran (%s); their settlement stands and this finding is in the entry's trail: check their decision against it", why)
	}
	return rep
}

// statusReport fills rep for a payment whose status the bank gave (or
// could not give yet).
func statusReport(rep *resolveReport, res journal.Resolution, what string) {
	s := payments.TransactionStatus(res.Status)
	known := fmt.Sprintf("The bank has %s, id %s", what, res.ID)
	switch {
	case res.Status == "":
		rep.Finding = "awaiting-approval"
		rep.StatusNote = "this bank shows a payment's status only once the PSU approved it"
		rep.Meaning = known + ": not approved by the PSU yet (the bank shows the status of an approved payment only)."
		rep.TellPSU = "Your payment is waiting for your approval at your bank."
		rep.NextStep = "If the PSU no longer has the approval link, your service starts a new authorisation (payments.Service.StartAuthorisation) and brings the PSU to its scaRedirect; unapproved, it expires unpaid. psd2 journal resolve again shows its status once approved."
	case res.Status == journal.UnreadableStatus:
		rep.Finding = findingStatusUnknown
		rep.Meaning = known + ", but its status is unknown: the bank answered a transactionStatus that is no status code (longer than four letters, or with other characters; not recorded), so whether it is paid, on its way or stopped is not known."
		rep.TellPSU = "We are checking your payment's status: do not pay again yet."
		rep.NextStep = "Ask the bank (its support, with the payment id) what status it gives this payment; psd2 journal resolve again reads the status anew."
	case s.IsExecuted():
		rep.Finding = "paid"
		rep.Meaning = known + ", executed (" + res.Status + "): the money has left the account."
		rep.TellPSU = "Your payment is done."
		rep.NextStep = "Nothing to do."
	case s.IsRejected():
		rep.Finding = "rejected"
		rep.Meaning = known + ", rejected (RJCT): nothing was paid."
		rep.TellPSU = "Your bank rejected the payment: nothing was paid."
		rep.NextStep = "Nothing to do in the journal; the PSU may pay again."
	case s.IsCancelled():
		rep.Finding = "cancelled"
		rep.Meaning = known + ", cancelled (CANC): nothing was paid."
		rep.TellPSU = "The payment was cancelled: nothing was paid."
		rep.NextStep = "Nothing to do in the journal."
	case s == payments.StatusRCVD || s == payments.StatusPATC:
		rep.Finding = "awaiting-approval"
		rep.Meaning = known + ", received (" + res.Status + "): not approved by the PSU yet."
		rep.TellPSU = "Your payment is waiting for your approval at your bank."
		rep.NextStep = "If the PSU no longer has the approval link, your service starts a new authorisation (payments.Service.StartAuthorisation) and brings the PSU to its scaRedirect; unapproved, it expires unpaid."
	case res.FundsAvailable != nil && !*res.FundsAvailable:
		// ACCP for lack of funds (docs/interface.md sections 2.6 and
		// 3): approved, but not on its way until the money is there.
		rep.Finding = "funds-unavailable"
		rep.Meaning = known + ", approved (" + res.Status + "), but the bank cannot fund it now (fundsAvailable false): it is not paid; the bank's batch tries again."
		rep.TellPSU = "Your payment is approved, but your account lacks the money for it: it is not paid yet. Add money to the account, or cancel the payment at your bank."
		rep.NextStep = "Your service follows its status: it is paid once the bank's batch finds the money, or rejected. psd2 journal resolve again shows its status."
	case s == payments.StatusPART:
		rep.Finding = "partially-accepted"
		rep.Meaning = known + ", partially accepted (PART): some of its payments were accepted, others not."
		rep.TellPSU = "Some of your payments were not accepted: check each of them at your bank."
		rep.NextStep = "Your service reads the status of each payment of it; the PSU may pay again those the bank did not accept."
	case s.IsAccepted() || s == payments.StatusPDNG:
		rep.Finding = "accepted"
		rep.Meaning = known + ", approved and accepted (" + res.Status + "): it is on its way, not yet executed."
		rep.TellPSU = "Your payment is approved and on its way."
		rep.NextStep = "Nothing to do; your service follows its status until it is executed."
	default:
		// Not a status of the interface's list (a new one, one of
		// another case, or the unnamed status of a payment on hold or
		// stopped): whether it is paid, on its way or stopped is
		// unknown, and resolve exits non-zero (statusUnknownError).
		rep.Finding = findingStatusUnknown
		rep.Meaning = known + ", but its status is unknown: the bank answered a transactionStatus psd2 does not know (" + res.Status + "), so whether it is paid, on its way or stopped is not known."
		rep.TellPSU = "We are checking your payment's status: do not pay again yet."
		rep.NextStep = "Ask the bank (its support, with the payment id) what status " + res.Status + " means for this payment; psd2 journal resolve again reads the status anew."
	}
}

// scaRedirectOf is the scaRedirect link of a create's answer.
func scaRedirectOf(answer json.RawMessage) string {
	var doc struct {
		Links struct {
			SCARedirect struct {
				Href string `json:"href"`
			} `json:"scaRedirect"`
		} `json:"_links"`
	}
	if json.Unmarshal(answer, &doc) != nil {
		return ""
	}
	return doc.Links.SCARedirect.Href
}

// printResolution prints a resolution as the operator reads it: what
// the payment is, what to tell the PSU, and the next step.
func printResolution(w io.Writer, rep resolveReport) {
	r := rep.Entry
	fmt.Fprintf(w, "%s: %s at %s, made %s ago\n", r.RequestID, strings.TrimPrefix(r.whatText(), "the "), r.Bank, r.Age)
	fmt.Fprintln(w, rep.Meaning)
	if rep.Conflict != "" {
		fmt.Fprintf(w, "CONFLICT: %s.\n", rep.Conflict)
	}
	if rep.ID != "" {
		fmt.Fprintf(w, "Payment id: %s\n", rep.ID)
	}
	if rep.Status != "" {
		fmt.Fprintf(w, "Status: %s\n", rep.Status)
	}
	if rep.SCARedirect != "" {
		fmt.Fprintf(w, "scaRedirect: %s\n", rep.SCARedirect)
	}
	if rep.Journal != "" {
		fmt.Fprintf(w, "JOURNAL %s.\n", rep.Journal)
	}
	fmt.Fprintf(w, "Tell the PSU: %s\n", rep.TellPSU)
	fmt.Fprintf(w, "Next: %s\n", rep.NextStep)
}
