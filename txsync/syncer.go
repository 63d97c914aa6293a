package txsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// DefaultOverlap is how many days before the newest booked date each read
// asks for again: 5 days cover a long weekend with a holiday on either
// side, under which a bank books entries late; they are, at a few
// entries a day, one page of the bank, so one call of the without-PSU
// budget of 4 a day (docs/interface.md section 8).
const DefaultOverlap = 5

// MaxOverlap is the longest overlap [WithOverlap] accepts: the days a
// read without the PSU reaches ([accounts.HistoryDaysWithoutPSU], 90),
// less a day for the bank's time zone: 89.
const MaxOverlap = accounts.HistoryDaysWithoutPSU - 1

// DefaultMaxEntries bounds the entries kept per account (the overlap
// window's booked entries and the pending list): past it new entries wait
// for a place ([Delta.Overflow]). See [WithMaxEntries].
const DefaultMaxEntries = 2000

// FutureDays is how many days after the bank's date (its calendar,
// Europe/Oslo, at the Syncer's clock) a booked entry may be dated and
// still move the overlap window: the bank's day may turn a few minutes
// before the clock's, and a bank may date an entry booked after its
// cut-off with the next day. A later booking date is a [FutureBooked]
// anomaly: the entry is reported, but the window ends at the bank's date
// plus FutureDays, so that one entry dated a year ahead cannot make every
// read ask from a date no entry has yet.
const FutureDays = 1

// MaxFirstReadDays is the deepest first read [WithFirstReadDays] accepts:
// two years of history, a bound on the first read's pages. The bank gives
// that much only in the hour after the PSU's SCA; later, 90 days
// (docs/interface.md sections 8 and 10).
const MaxFirstReadDays = 730

// MaxReadEntries bounds the entries, booked and pending, one
// [Syncer.Sync] or [Syncer.SyncCard] reads through the pages' next links
// before it applies them: with the PSU present no budget bounds the
// pages, and a bank whose next links never end would otherwise fill the
// memory. 100,000 entries is 137 a day over the deepest first read
// ([MaxFirstReadDays]), and 50 times the entries a state keeps by
// default ([DefaultMaxEntries]); a Syncer that keeps more
// ([WithMaxEntries]) reads as many as it keeps. A read past it, or past
// [MaxReadBytes], is [ErrReadTooLarge].
const MaxReadEntries = 100_000

// MaxReadBytes bounds the bytes of the entries one [Syncer.Sync] or
// [Syncer.SyncCard] holds (their texts, as decoded, and their fixed
// size) before it applies them: [MaxReadEntries] counts entries, and a
// bank whose pages each hold one entry of the 4 MB an answer may be
// would otherwise fill the memory within the iterator's
// accounts.MaxPages (10,000 pages, 40 GB). 256 MiB is more than 2 KB an
// entry over [MaxReadEntries]; a Syncer that keeps more entries
// ([WithMaxEntries]) holds 2.5 KB for each. A read past it is
// [ErrReadTooLarge].
const MaxReadBytes = 256 << 20

// readLimit is the most entries one read holds: [MaxReadEntries], or the
// entries the state keeps when [WithMaxEntries] set more.
func (s *Syncer) readLimit() int { return max(MaxReadEntries, s.t.maxEntries) }

// readBytes is the most bytes the entries of one read hold:
// [MaxReadBytes], or 2.5 KB an entry the state keeps when
// [WithMaxEntries] set more.
func (s *Syncer) readBytes() int { return max(MaxReadBytes, s.t.maxEntries*2560) }

// readBound counts the entries of one read and their bytes ([heldBytes]);
// add reports the read too large once either passes the Syncer's bound.
type readBound struct {
	s              *Syncer
	entries, bytes int
}

func (b *readBound) add(entry any) error {
	b.entries++
	b.bytes += heldBytes(entry)
	if n := b.s.readLimit(); b.entries > n {
		return fmt.Errorf("%w: more than %d", ErrReadTooLarge, n)
	}
	if n := b.s.readBytes(); b.bytes > n {
		return fmt.Errorf("%w: more than %d bytes", ErrReadTooLarge, n)
	}
	return nil
}

// DefaultStateTTL is how long the state of an account no read touches is
// kept: longer than a consent (90 days), so that a re-consent after it
// still finds the account's state.
const DefaultStateTTL = 180 * 24 * time.Hour

// Errors of the package.
var (
	// ErrNotLinked: [Syncer.KeyOf] (and Sync) for a resource id no
	// [Syncer.Link] recorded.
	ErrNotLinked = errors.New("txsync: account not linked")
	// ErrCorruptState: the stored state of an account fails its checksum
	// or cannot be decoded (the store damaged it, or something else
	// wrote it); nothing is applied. [Syncer.Forget] starts it over.
	ErrCorruptState = errors.New("txsync: corrupt state")
	// ErrNewerState: the stored state of an account is of a later form
	// than this release reads, its checksum sound: a replica of a later
	// release wrote it (during a rolling upgrade, say). Nothing is
	// applied, and the state is left as it is: upgrade the replica, and
	// do not Forget the state. It does not match ErrCorruptState. Every
	// release that changes the state's form gives it a new version byte
	// and keeps its envelope (the version byte first, the CRC-64 of all
	// before it last), so that an earlier release tells the two apart.
	ErrNewerState = errors.New("txsync: state written by a later release")
	// ErrInvalidOption: an option of [New] is out of range.
	ErrInvalidOption = errors.New("txsync: invalid option")
	// ErrReadTooLarge: the pages of one [Syncer.Sync] or
	// [Syncer.SyncCard] held more than [MaxReadEntries] entries, or
	// entries of more than [MaxReadBytes] (a bank whose next links never
	// end); no further page is read and nothing is applied.
	ErrReadTooLarge = errors.New("txsync: the read holds too many entries")
)

// Syncer keeps the sync state of accounts in a store.Store and reports,
// read after read, the added, changed and removed transactions of each
// account. It is safe for concurrent use; replicas on one shared store
// share the state, each read applied atomically (store.Store.Update), so
// two replicas reading the same account never report an entry twice
// under two keys.
//
// Each of its calls of the store waits at most 10 s (storeWait), however
// long the caller's context lasts: a slow or hung database ends the
// call with an error matching context.DeadlineExceeded, never holds it
// for ever, even on a context without a deadline; nothing is applied
// unless the store's atomic write reports it done.
type Syncer struct {
	st  store.Store
	t   tuning
	ttl time.Duration
	now func() time.Time
}

// Option configures a [Syncer].
type Option func(*Syncer) error

// WithOverlap sets the days before the newest booked date each read asks
// for again (1 to [MaxOverlap]; default [DefaultOverlap]). An entry a bank
// books later than that under an older date is missed; a longer window
// costs bytes of state and, past a page of the bank, calls of the budget.
func WithOverlap(days int) Option {
	return func(s *Syncer) error {
		if days < 1 || days > MaxOverlap {
			return fmt.Errorf("%w: overlap of %d days (1 to %d)", ErrInvalidOption, days, MaxOverlap)
		}
		s.t.overlap = days
		return nil
	}
}

// WithMaxEntries bounds the entries kept per account (at least 16;
// default [DefaultMaxEntries]). An entry keeps its place while the bank
// lists it; a new entry the state has no room for is not reported until a
// place frees ([Delta.Overflow]). Lowering the limit drops the oldest
// entries of a state above it: the bank's entries among them come back
// as added.
func WithMaxEntries(n int) Option {
	return func(s *Syncer) error {
		if n < 16 {
			return fmt.Errorf("%w: max entries %d (at least 16)", ErrInvalidOption, n)
		}
		s.t.maxEntries = n
		return nil
	}
}

// WithFirstReadDays sets how many days of history the account's first
// read asks for (the dateFrom of [Syncer.Sync] and the date
// [Syncer.From] gives before the first read): days before the bank's date
// (Europe/Oslo, at the Syncer's clock), 1 to [MaxFirstReadDays]. Without
// it the first read sends no dateFrom and takes the bank's default.
//
// Up to [MaxOverlap] (89) days any read reaches: a read without the PSU
// gets 90 days of history (docs/interface.md section 8). A deeper first
// read gets it only in the hour after the PSU's SCA, when the bank gives
// the full history (docs/interface.md section 10): make it right after
// [Syncer.Link]. Later the bank gives 90 days, and the first read reports
// those. The 180 days of the interface are another rule: a read without
// the PSU answers only for accounts the PSU used online with SCA in the
// last 180 days (accounts.OnlineSCARecency), whatever the depth.
func WithFirstReadDays(days int) Option {
	return func(s *Syncer) error {
		if days < 1 || days > MaxFirstReadDays {
			return fmt.Errorf("%w: first read of %d days (1 to %d)", ErrInvalidOption, days, MaxFirstReadDays)
		}
		s.t.firstDays = days
		return nil
	}
}

// WithStateTTL sets how long an account's state and links are kept after
// the last read that touched them (at least a day; default
// [DefaultStateTTL]). The records of a [Syncer.Link], which reads do not
// write, are kept for it and for the longest a consent may last (366
// days) after the Link, so that they outlive the reads of the consent.
func WithStateTTL(d time.Duration) Option {
	return func(s *Syncer) error {
		if d < 24*time.Hour {
			return fmt.Errorf("%w: state ttl %s (at least 24h)", ErrInvalidOption, d)
		}
		s.ttl = d
		return nil
	}
}

// WithClock sets the clock [Syncer.Sync] reads "today" from (default
// time.Now).
func WithClock(now func() time.Time) Option {
	return func(s *Syncer) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		s.now = now
		return nil
	}
}

// New returns a Syncer keeping its state in st (the SDK's store: give
// every replica the same one).
func New(st store.Store, opts ...Option) (*Syncer, error) {
	if st == nil {
		return nil, fmt.Errorf("%w: nil store", ErrInvalidOption)
	}
	s := &Syncer{st: storebound.Store{Store: st, Wait: storeWait}, t: tuning{overlap: DefaultOverlap, maxEntries: DefaultMaxEntries}, ttl: DefaultStateTTL, now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// storeWait bounds each of a Syncer's calls of its store (see
// storebound.Store), whatever the context it is made on.
const storeWait = 10 * time.Second

// Read is one read of an account's transactions: the booked entries the
// bank listed from From on (zero: the bank's default) and its pending
// list, every page's (pending entries repeated on every page by the known
// issue of docs/interface.md section 8 given once, as refresh and
// accounts.Service.TransactionsIter give them). Information entries are
// ignored. An entry without a Status (built in code) is booked in
// Booked and pending in Pending; the Delta's copy of an entry carries
// the status the sync counted.
type Read struct {
	From            date.Date
	Booked, Pending []accounts.Transaction
}

// CardRead is [Read] for a card account.
type CardRead struct {
	From            date.Date
	Booked, Pending []accounts.CardTransaction
}

func stateKey(a AccountKey) string { return "txsync/state/" + string(a) }

// Apply compares a read of the account with key acct with what the sync
// saw before and returns the added, changed and removed entries, storing
// the account's new state in one atomic step. The Delta holds copies of
// the entries it reports: r's slices may be reused at once. See
// [Syncer.ApplyResource] for a caller that knows the resource id only.
//
// Matching: an entry is the stored one with its transactionId; failing
// that, the one with the same fingerprint (booking and value date,
// amount and currency, counterparty, remittance and proprietary
// references; twins in order of occurrence), or with the same facts but
// another reference when the id changed too; a stored pending entry the
// read no longer lists is matched with the new entry most like it (same
// currency and direction, counterparty or text, a date from 3 days before
// to 14 days after, an amount within 50 %). Booked entries older than the
// overlap window (or than r.From) are not compared: they were reported by
// an earlier read. One of them may only be that of a tracked pending
// entry the read no longer lists (booked late under its old date): it is
// reported as that entry's change, and is not kept.
//
// A tracked entry r does not list is removed only when r asked for it:
// dated from r.From on (a card entry by its booking and its transaction
// date). A new entry the state has no room for ([WithMaxEntries]) is
// counted in [Delta.Overflow], not added; a booked entry dated after the
// bank's date plus [FutureDays] comes with a [FutureBooked] anomaly. A
// stored state that fails its checksum gives [ErrCorruptState] and
// nothing is applied.
func (s *Syncer) Apply(ctx context.Context, acct AccountKey, r Read) (*Delta, error) {
	in := readItems(r.Booked, r.Pending, func(t *accounts.Transaction) *accounts.BookingStatus { return &t.Status }, transactionItem)
	return s.apply(ctx, acct, in, r.From)
}

// ApplyCard is [Syncer.Apply] for a card account.
func (s *Syncer) ApplyCard(ctx context.Context, acct AccountKey, r CardRead) (*Delta, error) {
	in := readItems(r.Booked, r.Pending, func(t *accounts.CardTransaction) *accounts.BookingStatus { return &t.Status }, cardItem)
	return s.apply(ctx, acct, in, r.From)
}

// readItems is the items of a read's two lists, in order: an entry of
// the pending list without a status (built in code) is pending by its
// list, and is given that status on a copy (the caller's read is never
// written).
func readItems[T any](booked, pending []T, status func(*T) *accounts.BookingStatus, of func(*T) item) []item {
	in := make([]item, 0, len(booked)+len(pending))
	for i := range booked {
		in = append(in, of(&booked[i]))
	}
	for i := range pending {
		t := &pending[i]
		if *status(t) == "" {
			c := *t
			*status(&c) = accounts.BookingPending
			t = &c
		}
		in = append(in, of(t))
	}
	return in
}

func (s *Syncer) apply(ctx context.Context, acct AccountKey, in []item, from date.Date) (*Delta, error) {
	if err := checkAccount(acct); err != nil {
		return nil, err
	}
	// Entries keep their status from the page; one without (built in
	// code) counts as booked in the booked list, pending in the pending
	// list (Apply set it).
	for i := range in {
		if in[i].v.Status != accounts.BookingPending {
			in[i].v.Status = accounts.BookingBooked
		}
	}
	var d *Delta
	today := s.today()
	err := s.st.Update(ctx, stateKey(acct), func(old []byte, found bool) ([]byte, time.Duration, error) {
		st, err := decodeState(old, found)
		if err != nil {
			return nil, 0, err
		}
		var next state
		d, next = apply(acct, st, in, from, s.t, today)
		b, err := encodeState(next)
		return b, s.ttl, err
	})
	if err != nil {
		return nil, fmt.Errorf("txsync: %w", err)
	}
	return d, nil
}

// today is the bank's date at the Syncer's clock.
func (s *Syncer) today() date.Date { return date.Of(s.now().In(date.Oslo())) }

// From returns the first booking date the next read of the account must
// ask for: the start of the overlap window before the newest booked date
// seen (no later than the bank's date plus [FutureDays]), or an earlier
// date a tracked entry needs: the date of the oldest pending entry (a
// bank without the known issue of docs/interface.md section 8 filters
// pending entries by date too, and one left out would look vanished), the
// transaction date of a card entry of the window (the interface does not
// say whether a card account's list is filtered by booking or by
// transaction date; asked from both, the entry is listed either way).
// Before the first read: [WithFirstReadDays] days before the bank's date,
// or zero (the bank's default).
func (s *Syncer) From(ctx context.Context, acct AccountKey) (date.Date, error) {
	from, _, err := s.from(ctx, acct)
	return from, err
}

// from is From, and whether the read is the account's first.
func (s *Syncer) from(ctx context.Context, acct AccountKey) (date.Date, bool, error) {
	st, err := s.state(ctx, acct)
	if err != nil {
		return date.Date{}, false, err
	}
	today := s.today()
	if st.Reads == 0 {
		if s.t.firstDays == 0 {
			return date.Date{}, true, nil
		}
		return addDays(today, -s.t.firstDays), true, nil
	}
	start := windowStart(bounded(st.Newest, newestBound(today)), s.t.overlap)
	if start.IsZero() {
		return start, false, nil // no booked entry yet: the bank's default
	}
	from := start
	for _, e := range st.Entries {
		d := e.date()
		if !e.Pending {
			if !d.IsZero() && d.Before(start) {
				continue // older than the window: not compared
			}
			d = e.Txn
		}
		if !d.IsZero() && d.Before(from) {
			from = d
		}
	}
	return from, false, nil
}

// StateSize returns the bytes the account's state takes in the store.
func (s *Syncer) StateSize(ctx context.Context, acct AccountKey) (int, error) {
	if err := checkAccount(acct); err != nil {
		return 0, err
	}
	b, err := s.st.Get(ctx, stateKey(acct))
	if errors.Is(err, store.ErrNotStored) {
		return 0, nil
	}
	return len(b), err
}

// Forget deletes the account's state: its next read reports every entry
// as added, under new keys.
func (s *Syncer) Forget(ctx context.Context, acct AccountKey) error {
	if err := checkAccount(acct); err != nil {
		return err
	}
	return s.st.Delete(ctx, stateKey(acct))
}

func (s *Syncer) state(ctx context.Context, acct AccountKey) (state, error) {
	if err := checkAccount(acct); err != nil {
		return state{}, err
	}
	b, err := s.st.Get(ctx, stateKey(acct))
	if errors.Is(err, store.ErrNotStored) {
		return state{}, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("txsync: %w", err)
	}
	return decodeState(b, true)
}

// Sync reads the transactions of the account with resource id
// accountID from [Syncer.From] on (booked and pending, following the
// pages' next links: each page is a call of the without-PSU budget) and
// applies them ([Syncer.Apply]). A page that lists the pending entries
// again (the production platform lists all of them on every page), changed
// since the page before it, adds only the entries it lists more often
// than the pages before it: an entry listed by both is one entry, not two
// twins. The account must have been linked
// ([Syncer.Link]). When a page cannot be read nothing is applied: the
// next Sync reads it all again. Pages holding more than [MaxReadEntries]
// entries, or more than [MaxReadBytes] of them, end the read in
// [ErrReadTooLarge], nothing applied.
func (s *Syncer) Sync(ctx context.Context, svc *accounts.Service, accountID string, ro ...client.RequestOption) (*Delta, error) {
	acct, from, err := s.before(ctx, accountID)
	if err != nil {
		return nil, err
	}
	r := Read{From: from}
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: from}
	bound := readBound{s: s}
	var pend PendingPages
	for tr, err := range svc.TransactionsIter(ctx, accountID, q, ro...) {
		if err != nil {
			return nil, err
		}
		if tr.Status != accounts.BookingPending && tr.Status != accounts.BookingBooked {
			continue
		}
		if err := bound.add(tr); err != nil {
			return nil, err
		}
		if tr.Status == accounts.BookingPending {
			pend.Add(tr)
		} else {
			pend.EndList()
			r.Booked = append(r.Booked, *tr)
		}
	}
	r.Pending = pend.Entries()
	return s.Apply(ctx, acct, r)
}

// SyncCard is [Syncer.Sync] for a card account.
func (s *Syncer) SyncCard(ctx context.Context, svc *accounts.Service, cardAccountID string, ro ...client.RequestOption) (*Delta, error) {
	acct, from, err := s.before(ctx, cardAccountID)
	if err != nil {
		return nil, err
	}
	r := CardRead{From: from}
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: from}
	bound := readBound{s: s}
	var pend CardPendingPages
	for tr, err := range svc.CardTransactionsIter(ctx, cardAccountID, q, ro...) {
		if err != nil {
			return nil, err
		}
		if err := bound.add(tr); err != nil {
			return nil, err
		}
		if tr.Status == accounts.BookingPending {
			pend.Add(tr)
		} else {
			pend.EndList()
			r.Booked = append(r.Booked, *tr)
		}
	}
	r.Pending = pend.Entries()
	return s.ApplyCard(ctx, acct, r)
}

// before returns the key of resource id and the date its read starts at.
func (s *Syncer) before(ctx context.Context, resourceID string) (AccountKey, date.Date, error) {
	acct, err := s.KeyOf(ctx, resourceID)
	if err != nil {
		return "", date.Date{}, err
	}
	from, first, err := s.from(ctx, acct)
	if err != nil {
		return "", date.Date{}, err
	}
	// A later read reaches 90 days back (docs/interface.md section 8);
	// the first may reach further, in the hour after the SCA
	// ([WithFirstReadDays]).
	if floor := date.Of(s.now().UTC().AddDate(0, 0, -MaxOverlap)); !first && !from.IsZero() && from.Before(floor) {
		from = floor
	}
	return acct, from, nil
}

// ResourceFrom is [Syncer.From] for the account [Syncer.Link] recorded
// under resource id: the latest DateFrom a read of it may ask for.
func (s *Syncer) ResourceFrom(ctx context.Context, resourceID string) (date.Date, error) {
	acct, err := s.KeyOf(ctx, resourceID)
	if err != nil {
		return date.Date{}, err
	}
	return s.From(ctx, acct)
}

// ApplyResource is [Syncer.Apply] for the account [Syncer.Link] recorded
// under resource id: what a reader of the pages, such as package
// refresh, calls per account with every booked entry it read (not only
// the new ones), the pending list and the DateFrom it asked for, no later
// than [Syncer.ResourceFrom]. An account never linked gives
// [ErrNotLinked] and nothing is stored.
func (s *Syncer) ApplyResource(ctx context.Context, resourceID string, r Read) (*Delta, error) {
	acct, err := s.KeyOf(ctx, resourceID)
	if err != nil {
		return nil, err
	}
	return s.Apply(ctx, acct, r)
}

// ApplyCardResource is [Syncer.ApplyResource] for a card account.
func (s *Syncer) ApplyCardResource(ctx context.Context, resourceID string, r CardRead) (*Delta, error) {
	acct, err := s.KeyOf(ctx, resourceID)
	if err != nil {
		return nil, err
	}
	return s.ApplyCard(ctx, acct, r)
}

// pendingPages gathers the pending lists of a read's pages. The
// production platform lists every pending entry on every page
// (docs/interface.md section 8); the iterator skips a page's list when it
// is the list already yielded, but yields it again when it changed
// between two page reads (an entry booked, a new one authorised), so the
// entries on both come twice. A page's list (a run of pending entries
// after the page's booked ones) of which more than half was listed
// before, and which lists again at least half as many entries as the
// first page's list, is such a listing again: it adds only what it lists
// more often than the lists before it (a new entry, a new twin). Other
// lists (a bank that pages its pending entries as it pages the booked
// ones) are kept whole. Such a bank's page listing mostly twins of
// entries before it, as many as half the first page's list (a limit
// splitting a run of twins), is taken for a listing again: its twins are
// lost to this read. A page listing no booked entry and another pending
// list than the page before it cannot be told from it: its list is taken
// as a continuation of that page's.
type pendingPages[T any] struct {
	// ident names an entry by its id and every fact (listingOf).
	ident func(*T) string
	// kept are the entries gathered, seen how often each ident is among
	// them; run is the current page's list.
	kept   []T
	seen   map[string]int
	run    []T
	inList bool
	// first is the length of the first page's list.
	first int
}

// add takes a pending entry of the current page's list.
func (p *pendingPages[T]) add(t *T) {
	p.inList = true
	p.run = append(p.run, *t)
}

// end ends the current page's list (a booked entry came), merging it in.
func (p *pendingPages[T]) end() {
	if !p.inList {
		return
	}
	p.inList = false
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	ids := make([]string, len(p.run))
	again := 0
	inRun := map[string]int{}
	for i := range p.run {
		ids[i] = p.ident(&p.run[i])
		inRun[ids[i]]++
		if inRun[ids[i]] <= p.seen[ids[i]] {
			again++
		}
	}
	listedAgain := len(p.kept) > 0 && 2*again > len(p.run) && 2*again >= p.first
	if len(p.kept) == 0 {
		p.first = len(p.run)
	}
	inRun = map[string]int{}
	for i := range p.run {
		inRun[ids[i]]++
		if !listedAgain || inRun[ids[i]] > p.seen[ids[i]] {
			p.kept = append(p.kept, p.run[i])
		}
	}
	for id, n := range inRun {
		if !listedAgain {
			p.seen[id] += n
		} else {
			p.seen[id] = max(p.seen[id], n)
		}
	}
	p.run = p.run[:0]
}

// entries returns the pending entries of the read.
func (p *pendingPages[T]) entries() []T {
	p.end()
	return p.kept
}

// listingOf names an entry as a listing: its id and every fact.
func listingOf(it item) string { return it.v.TransactionID + "\x00" + u64(it.fp) }

// PendingPages gathers the pending entries of a read's pages as
// [Syncer.Sync] does (see pendingPages), for a reader that pages through
// the transactions itself (package refresh): Add every pending entry and
// call EndList at every booked one, in the order the iterator gives them;
// Entries returns the read's pending entries, a list the platform repeats
// on a later page counted once. The zero value is ready for use.
type PendingPages struct {
	p pendingPages[accounts.Transaction]
}

// Add takes a pending entry of the current page.
func (p *PendingPages) Add(t *accounts.Transaction) {
	if p.p.ident == nil {
		p.p.ident = func(t *accounts.Transaction) string { return listingOf(transactionItem(t)) }
	}
	p.p.add(t)
}

// EndList ends the current page's pending list (a booked entry came).
func (p *PendingPages) EndList() { p.p.end() }

// Len is the number of pending entries gathered so far, the current
// page's included.
func (p *PendingPages) Len() int { return len(p.p.kept) + len(p.p.run) }

// Entries returns the read's pending entries.
func (p *PendingPages) Entries() []accounts.Transaction { return p.p.entries() }

// CardPendingPages is [PendingPages] for a card account's entries.
type CardPendingPages struct {
	p pendingPages[accounts.CardTransaction]
}

// Add takes a pending entry of the current page.
func (p *CardPendingPages) Add(t *accounts.CardTransaction) {
	if p.p.ident == nil {
		p.p.ident = func(t *accounts.CardTransaction) string { return listingOf(cardItem(t)) }
	}
	p.p.add(t)
}

// EndList ends the current page's pending list (a booked entry came).
func (p *CardPendingPages) EndList() { p.p.end() }

// Len is the number of pending entries gathered so far, the current
// page's included.
func (p *CardPendingPages) Len() int { return len(p.p.kept) + len(p.p.run) }

// Entries returns the read's pending entries.
func (p *CardPendingPages) Entries() []accounts.CardTransaction { return p.p.entries() }
