package reconcile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// Store keys, each under "reconcile/": the state of a watched account
// under "account/<account key>", the watched account of an account number
// under "watch/<digest>", and the account a tracked payment is kept on
// under "payment/<digest>" (digests are SHA-256, so that no account number
// or request id appears in a key).
const (
	prefix        = "reconcile/"
	accountPrefix = prefix + "account/"
	watchPrefix   = prefix + "watch/"
	paymentPrefix = prefix + "payment/"
)

// StateTTL is how long the state of a watched account, and its watch,
// stay in the store when no call touches them (every call that writes
// the state, and every [Reconciler.Watch], starts it again): as long as
// txsync keeps an account's sync state (txsync.DefaultStateTTL).
const StateTTL = txsync.DefaultStateTTL

// Errors of the package, matched with errors.Is.
var (
	// ErrInvalid matches the error of a call given invalid input: a
	// payment without its required facts, a nil delta, an account key
	// that is not one.
	ErrInvalid = errors.New("reconcile: invalid input")
	// ErrNotTracked matches the error of [Reconciler.Status] and
	// [Reconciler.Payment] for a payment never tracked, or no longer
	// kept (see [Retention]).
	ErrNotTracked = errors.New("reconcile: payment not tracked")
	// ErrStore matches the errors of the store.
	ErrStore = errors.New("reconcile: store")
)

// Reconciler matches payments to the credits booked on the accounts it
// watches (see the package documentation). Its state is in a store.Store:
// replicas on one shared store (a FileStore on one machine, pgstore) share
// it, and each payment and each booking is matched at most once, whoever
// reads. A Reconciler is safe for concurrent use.
//
// Each of its calls of the store waits at most 10 s (storeWait), and a
// listing at most as long for each key, however long the caller's
// context lasts: a slow or hung database ends the call with an error
// matching [ErrStore] and context.DeadlineExceeded, never holds it for
// ever, even on a context without a deadline.
type Reconciler struct {
	st  store.Store
	now func() time.Time
	em  *events.Emitter

	// cache keeps the decoded state of the accounts this Reconciler read
	// or wrote last, by the bytes of its body: a state read again with
	// the same body (no other replica wrote it since) is not decoded
	// again.
	mu    sync.Mutex
	cache map[txsync.AccountKey]*cached
}

// cached is a state as decoded or encoded, and its body's bytes. It is
// never changed: load gives out copies.
type cached struct {
	body []byte
	s    *acctState
}

// cacheAccounts bounds the states a Reconciler keeps decoded.
const cacheAccounts = 64

// load decodes the state b of account key, from the cache when its body
// is the one cached.
func (r *Reconciler) load(key txsync.AccountKey, b []byte) (*acctState, error) {
	h, err := decodeHeader(b)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	c := r.cache[key]
	r.mu.Unlock()
	if c != nil && bytes.Equal(c.body, h.body) {
		return &acctState{since: h.since, due: h.due, anns: h.anns, pays: slices.Clone(c.s.pays), seen: slices.Clone(c.s.seen),
			unreported: slices.Clone(c.s.unreported)}, nil
	}
	return decodeState(b)
}

// remember caches s, whose encoding is b.
func (r *Reconciler) remember(key txsync.AccountKey, b []byte, s *acctState) {
	h, err := decodeHeader(b)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.cache = map[txsync.AccountKey]*cached{}
	}
	if _, ok := r.cache[key]; !ok && len(r.cache) >= cacheAccounts {
		for k := range r.cache { // any one
			delete(r.cache, k)
			break
		}
	}
	r.cache[key] = &cached{body: h.body, s: s}
}

// Option configures a [Reconciler] in [New]; an invalid one makes New
// fail.
type Option func(*Reconciler) error

// WithClock makes the Reconciler read the time from now (the SDK's one
// clock: client.Client.Now) instead of time.Now. Bank dates are its
// dates in Europe/Oslo.
func WithClock(now func() time.Time) Option {
	return func(r *Reconciler) error {
		if now == nil {
			return fmt.Errorf("%w: WithClock(nil)", ErrInvalid)
		}
		r.now = now
		return nil
	}
}

// WithEmitter makes the Reconciler emit [events.PaymentSettled],
// [events.PaymentSettlementStalled] and [events.PaymentReturned] through
// em, each once per payment: an outcome is recorded with its
// announcement in the account's state, and the announcement is cleared
// once the event was handed to em; a call that finds one left by a call
// that crashed emits it (the event's stable ID makes the Emitter with a
// shared store, and pgstore's outbox, deliver it once).
func WithEmitter(em *events.Emitter) Option {
	return func(r *Reconciler) error {
		if em == nil {
			return fmt.Errorf("%w: WithEmitter(nil)", ErrInvalid)
		}
		r.em = em
		return nil
	}
}

// storeWait bounds each of a Reconciler's calls of its store (see
// storebound.Store), whatever the context it is made on.
const storeWait = 10 * time.Second

// New returns a Reconciler keeping its state in st.
func New(st store.Store, opts ...Option) (*Reconciler, error) {
	if st == nil {
		return nil, fmt.Errorf("%w: New needs a store", ErrInvalid)
	}
	r := &Reconciler{st: storebound.Store{Store: st, Wait: storeWait}, now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// digest is a store key element for a personal identifier or a
// reference.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// checkAccount refuses an account key that is not a store key element.
func checkAccount(a txsync.AccountKey) error {
	if len(a) == 0 || len(a) > 64 || strings.Trim(string(a), "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return fmt.Errorf("%w: not an account key of package txsync", ErrInvalid)
	}
	return nil
}

// numbers returns the watch keys of an account number: "iban:" and, for
// a Norwegian IBAN, the "bban:" inside it; "bban:" with the digits of a
// BBAN in its printed form. Compared, never sent: the SDK never rewrites
// a number it sends.
func numbers(iban, bban string) []string {
	var out []string
	if iban = compact(iban); iban != "" {
		out = append(out, "iban:"+iban)
		if len(iban) == 15 && strings.HasPrefix(iban, "NO") {
			out = append(out, "bban:"+iban[4:])
		}
	}
	if bban = compact(payments.NormalizeBBAN(strings.TrimSpace(bban))); bban != "" {
		if b := "bban:" + bban; !contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

func compact(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }

// Watch declares the account of key (the txsync.AccountKey Link gave
// it) as one whose credits settle payments: a payment whose creditor
// account is its IBAN or BBAN is matched against the deltas of key.
// Call it after every Link of the account (a re-consent keeps the key);
// credits booked before the first Watch are never matched. It refreshes
// the state's [StateTTL].
func (r *Reconciler) Watch(ctx context.Context, key txsync.AccountKey, acct accounts.Account) error {
	if err := checkAccount(key); err != nil {
		return err
	}
	nums := numbers(acct.IBAN, acct.BBAN)
	if len(nums) == 0 {
		return fmt.Errorf("%w: Watch needs the account's IBAN or BBAN", ErrInvalid)
	}
	today := bankDay(r.now())
	err := r.st.Update(ctx, accountPrefix+string(key), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if !found {
			return encodeState(&acctState{since: today}), StateTTL, nil
		}
		if _, err := decodeState(old); err != nil {
			return nil, 0, err
		}
		return old, StateTTL, nil
	})
	if err != nil {
		return r.storeErr(err)
	}
	for _, n := range nums {
		if err := r.st.Put(ctx, watchPrefix+digest(n), []byte(key), StateTTL); err != nil {
			return r.storeErr(err)
		}
	}
	return nil
}

// watched returns the key of the watched account of a creditor, "" when
// none. A watch whose value is no account key (garbled by the store, or
// written by something else) is ErrCorruptState, not "not watched": the
// creditor's payments would be reported as not applicable, and never
// tracked; another number of the creditor's watched still answers.
// Watching the account again rewrites it.
func (r *Reconciler) watched(ctx context.Context, iban, bban string) (txsync.AccountKey, error) {
	corrupt := false
	for _, n := range numbers(iban, bban) {
		b, err := r.st.Get(ctx, watchPrefix+digest(n))
		if errors.Is(err, store.ErrNotStored) {
			continue
		}
		if err != nil {
			return "", r.storeErr(err)
		}
		if checkAccount(txsync.AccountKey(b)) != nil {
			corrupt = true
			continue
		}
		return txsync.AccountKey(b), nil
	}
	if corrupt {
		return "", fmt.Errorf("%w: the watch of a creditor account holds no account key (Watch the account again)", ErrCorruptState)
	}
	return "", nil
}

// Forget removes the state of an account (one [ErrCorruptState] names):
// its payments are no longer tracked, and the next Watch starts it over.
func (r *Reconciler) Forget(ctx context.Context, key txsync.AccountKey) error {
	if err := checkAccount(key); err != nil {
		return err
	}
	if err := r.st.Delete(ctx, accountPrefix+string(key)); err != nil {
		return r.storeErr(err)
	}
	return nil
}

func (r *Reconciler) storeErr(err error) error {
	if errors.Is(err, ErrCorruptState) || errors.Is(err, ErrNewerState) || errors.Is(err, ErrFull) || errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotTracked) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrStore, err)
}

// Track starts matching a payment: if its creditor account is watched,
// it is kept (idempotently: a payment tracked before is left as it is)
// and matched against every later delta of that account. It returns the
// payment's state: [NotApplicable] when the creditor account is not
// watched (nothing is kept; track it again once it is). Track a payment
// before its credit can be read, right after its create (with
// [PaymentOf] of its journal entry) or with [Reconciler.TrackJournal]
// before each round: a credit read before its payment was tracked is
// reported unmatched, and stays so.
//
// A payment created more than [Retention] ago, or without its request id,
// creation time, amount, creditor account or scheme, is refused
// ([ErrInvalid]); one the account has no room for is refused with
// [ErrFull] (nothing is kept).
func (r *Reconciler) Track(ctx context.Context, p Payment) (State, error) {
	sch, err := checkPayment(&p)
	if err != nil {
		return State{}, err
	}
	now := r.now()
	if now.Sub(p.Created) > Retention {
		return State{}, fmt.Errorf("%w: payment created more than %v ago", ErrInvalid, Retention)
	}
	key, err := r.watched(ctx, p.CreditorIBAN, p.CreditorBBAN)
	if err != nil {
		return State{}, err
	}
	if key == "" {
		return State{Payment: p.RequestID, Settlement: NotApplicable, Scheme: sch, Created: p.Created.UTC(), Instructed: p.Amount}, nil
	}
	a, _ := amtOf(p.Amount)
	kid, ok := kidOf(p.KID) // as a credit's KIDs are read: "1234 5678 903" is 12345678903
	if !ok {
		kid = strings.TrimSpace(p.KID)
	}
	rec := pay{id: p.RequestID, created: p.Created.Unix(), scheme: sch, amt: a, kid: kid,
		e2e: strings.TrimSpace(p.EndToEndID), text: strings.Join(words(p.Remittance), " "), exec: dayOf(p.ExecutionDate)}
	if strings.EqualFold(rec.e2e, notProvided) {
		rec.e2e = ""
	}
	var st State
	var ttl time.Duration // the lookup key's (lookupTTL)
	committed, err := r.commit(ctx, key, func(m *mutation, s *acctState) error {
		i := s.find(rec.id)
		if i < 0 {
			p := rec
			p.deadline = deadline(&p, bankDay(time.Unix(p.created, 0)))
			s.insert(p)
			m.changed = true
			i = s.find(rec.id)
		}
		m.status(s, i, p.Status, p.StatusAt)
		st = s.pays[i].state(key)
		ttl = lookupTTL(&s.pays[i], time.Unix(m.now, 0))
		return nil
	}, true)
	if errors.Is(err, ErrNotTracked) { // watched, but its state is gone (Forget)
		return State{Payment: p.RequestID, Settlement: NotApplicable, Scheme: sch, Created: p.Created.UTC(), Instructed: p.Amount}, nil
	}
	if !committed {
		return State{}, err
	}
	if perr := r.st.Put(ctx, paymentPrefix+digest(p.RequestID), []byte(key), ttl); perr != nil {
		return st, errors.Join(err, r.storeErr(perr))
	}
	return st, err
}

// checkPayment checks p and returns its scheme.
func checkPayment(p *Payment) (Scheme, error) {
	sch := p.Scheme
	if sch == 0 {
		sch, _ = SchemeOf(p.Product)
	}
	var missing []string
	if strings.TrimSpace(p.RequestID) == "" || len(p.RequestID) > 200 {
		missing = append(missing, "RequestID")
	}
	if p.Created.IsZero() {
		missing = append(missing, "Created")
	}
	if _, ok := amtOf(p.Amount); !ok || !p.Amount.Positive() {
		missing = append(missing, "Amount")
	}
	if len(numbers(p.CreditorIBAN, p.CreditorBBAN)) == 0 {
		missing = append(missing, "CreditorIBAN or CreditorBBAN")
	}
	if !sch.valid() {
		missing = append(missing, "Scheme or a known Product")
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("%w: payment without %s", ErrInvalid, strings.Join(missing, ", "))
	}
	return sch, nil
}

// deadline is the window's last banking day of p, started on start (the
// bank date of its accepted status, else of its creation) or its
// requested execution date when later.
func deadline(p *pay, start int32) int32 {
	return dayOf(p.scheme.Deadline(dateOf(max(start, p.exec))))
}

// status records a transaction status seen at at of st.pays[i]: an
// accepted status (but ACCP, which on this platform also means waiting
// for funds) starts the window, a rejection or cancellation closes an
// open payment. A payment rejected or cancelled after a credit settled
// it was not executed: that credit was not its money (a twin's, another
// payer's of the same text and amount), and its settlement is withdrawn;
// a twin still waiting takes the credit (rematch).
func (m *mutation) status(st *acctState, i int, s payments.TransactionStatus, at time.Time) {
	p := &st.pays[i]
	if s == "" {
		return
	}
	switch {
	case s.IsRejected() || s.IsCancelled():
		var freed *outcome
		twin, future := *p, false
		switch p.out {
		case outSettled, outOther, outReturnHeld:
			freed = p.o
			m.withdraw(st, i)
		case outHeld: // it settled nothing: let go, and held for a twin
			freed, future = p.o, true
			m.letGo(st, i)
		}
		if p.open() {
			p.flags |= flagVoid
			p.enc = nil
			m.changed = true
		}
		// Void first: a credit the twin held, let go for the freed one
		// (displace), goes to another twin, never to this payment. A
		// credit no twin takes matches no payment: it is reported
		// unmatched.
		if freed != nil && !m.rematch(st, &twin, freed, future) {
			m.unmatched(st, freed)
		}
	case s.IsAccepted() && s != payments.StatusACCP && p.accepted == 0:
		day := m.today
		if !at.IsZero() {
			day = min(bankDay(at), m.today)
		}
		p.accepted = max(day, bankDay(time.Unix(p.created, 0)))
		p.deadline = deadline(p, p.accepted)
		p.enc = nil
		m.changed = true
	}
}

// Status records a payment's transaction status, as the TPP read it
// (payments.Service.Status or Wait): the first accepted status starts
// its window (ACCP does not: the payment may wait for funds), RJCT or
// CANC ends its wait. The payment must be tracked ([ErrNotTracked]).
func (r *Reconciler) Status(ctx context.Context, requestID string, s payments.TransactionStatus) error {
	key, err := r.accountOf(ctx, requestID)
	if err != nil {
		return err
	}
	_, err = r.commit(ctx, key, func(m *mutation, st *acctState) error {
		i := st.find(requestID)
		if i < 0 {
			return ErrNotTracked
		}
		m.status(st, i, s, time.Time{})
		return nil
	}, true)
	return err
}

// accountOf returns the watched account a tracked payment is kept on.
func (r *Reconciler) accountOf(ctx context.Context, requestID string) (txsync.AccountKey, error) {
	if requestID == "" {
		return "", fmt.Errorf("%w: empty request id", ErrInvalid)
	}
	b, err := r.st.Get(ctx, paymentPrefix+digest(requestID))
	if errors.Is(err, store.ErrNotStored) {
		return "", ErrNotTracked
	}
	if err != nil {
		return "", r.storeErr(err)
	}
	key := txsync.AccountKey(b)
	if checkAccount(key) != nil {
		return "", ErrNotTracked
	}
	return key, nil
}

// Payment returns the state of a tracked payment ([ErrNotTracked] for
// one never tracked).
func (r *Reconciler) Payment(ctx context.Context, requestID string) (State, error) {
	key, err := r.accountOf(ctx, requestID)
	if err != nil {
		return State{}, err
	}
	s, err := r.read(ctx, key)
	if err != nil {
		return State{}, err
	}
	if s == nil {
		return State{}, ErrNotTracked
	}
	i := s.find(requestID)
	if i < 0 {
		return State{}, ErrNotTracked
	}
	return s.pays[i].state(key), nil
}

// read returns the state of an account, nil when it is not watched.
func (r *Reconciler) read(ctx context.Context, key txsync.AccountKey) (*acctState, error) {
	b, err := r.st.Get(ctx, accountPrefix+string(key))
	if errors.Is(err, store.ErrNotStored) {
		return nil, nil
	}
	if err != nil {
		return nil, r.storeErr(err)
	}
	return decodeState(b)
}

// Apply matches a delta of a watched account (txsync's Syncer.Apply,
// Sync, or refresh's Result.Sync): its booked credits, added or booked
// since the last read, against the account's open payments, strongest
// evidence first; its debits against the settled payments (a return);
// and, as a read of the account, finds the accepted payments whose
// window ended without a credit (stalled). Call it after every read of
// the account, an empty delta included. Bookings seen before are
// skipped: under their keys (the same delta again, a re-consent, whose
// Link keeps the keys), and in a first read (d.First: the sync's state
// started over, every entry under a new key) by their facts too. The
// credits of d.Removed, of its changes to pending, and of its changed
// amounts, dates or texts withdraw the settlements they made ([Withdrawn],
// in Round.Withdrawn). A delta of an account that is not watched gives a
// Round with Watched false, at the cost of one store read. A delta whose
// outcome the account's state has no room for, once fit let go what it
// may (see [ErrFull]), fails with [ErrFull], nothing of it applied.
func (r *Reconciler) Apply(ctx context.Context, d *txsync.Delta) (*Round, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil delta", ErrInvalid)
	}
	if err := checkAccount(d.Account); err != nil {
		return nil, err
	}
	var bs, odd []booking // odd: the entries that cannot be read (unreadableOf)
	var rev revisions
	n := 0
	// The entries txsync reported booked in the future (see holds).
	var future map[txsync.Key]bool
	for _, a := range d.Anomalies {
		if a.Kind == txsync.FutureBooked {
			if future == nil {
				future = map[txsync.Key]bool{}
			}
			future[a.Key] = true
		}
	}
	for _, e := range d.Added {
		if b, ok := bookingOf(e, n); ok {
			b.future = future[e.Key]
			bs = append(bs, b)
		} else if b, ok := unreadableOf(e, n); ok {
			odd = append(odd, b)
		}
		n++
	}
	for _, c := range d.Changed {
		switch {
		case c.What&txsync.Booked != 0:
			if b, ok := bookingOf(c.Entry, n); ok {
				b.future = future[c.Key]
				bs = append(bs, b)
			} else if b, ok := unreadableOf(c.Entry, n); ok {
				odd = append(odd, b)
			}
		case c.What&txsync.Unbooked != 0:
			rev.unbooked = append(rev.unbooked, c.Key)
		case c.What&(txsync.Amount|txsync.Dates|txsync.Text) != 0:
			b, ok := bookingOf(c.Entry, n)
			if !ok {
				if b, ok = unreadableOf(c.Entry, n); !ok {
					b = booking{key: c.Key}
				}
				ok = false
			}
			b.future = future[c.Key]
			rev.changed = append(rev.changed, revised{b: b, ok: ok, previous: c.Previous})
		}
		n++
	}
	for _, rm := range d.Removed {
		if rm.Reason == txsync.BookedGone {
			rev.gone = append(rev.gone, rm.Key)
		}
	}
	if len(bs)+len(odd) == 0 && rev.empty() {
		// A first look, at the state's header alone: most reads of an
		// account bring no booking, end no window and find no event
		// left to emit.
		b, err := r.st.Get(ctx, accountPrefix+string(d.Account))
		if errors.Is(err, store.ErrNotStored) {
			return &Round{Account: d.Account}, nil
		}
		if err != nil {
			return nil, r.storeErr(err)
		}
		h, err := decodeHeader(b)
		if err != nil {
			return nil, err
		}
		now := r.now()
		if bankDay(now) < h.due && !slices.ContainsFunc(h.anns, func(a ann) bool { return claimable(&a, now.Unix()) }) {
			return &Round{Account: d.Account, Watched: true}, nil
		}
	}
	var round Round
	committed, err := r.commit(ctx, d.Account, func(m *mutation, s *acctState) error {
		m.run(s, bs, odd, d.First, &rev)
		round = m.round
		return nil
	}, false)
	if errors.Is(err, ErrNotTracked) {
		return &Round{Account: d.Account}, nil // not watched
	}
	if !committed {
		return nil, err
	}
	round.Watched = true
	return &round, err
}

// Observe is [Reconciler.Apply] for a hook that acts on the events
// alone (the Round is dropped): the function a refresh job or the River
// engine calls with the delta of every account it read, an empty one
// included (see the package documentation, "Where it runs"). Its error
// is Apply's; the delta may be given again: bookings seen are skipped.
func (r *Reconciler) Observe(ctx context.Context, d *txsync.Delta) error {
	_, err := r.Apply(ctx, d)
	return err
}

// run is the whole of an Apply's change of s.
func (m *mutation) run(s *acctState, bs, odd []booking, first bool, rev *revisions) {
	m.reports = true
	m.apply(s, bs, odd, first, rev)
	m.release(s)
	m.report(s, rev)
	m.stalls(s)
	m.expire(s)
	m.claim(s)
}

func (r *Reconciler) mutation(key txsync.AccountKey) *mutation {
	now := r.now()
	return &mutation{acct: key, today: bankDay(now), now: now.Unix(), emitting: r.em != nil}
}

// commit changes the state of account key with fn in one store.Update
// (nothing is written when fn changes nothing), then emits the events
// the change claimed and clears their announcements. An account without
// state is [ErrNotTracked]. With tidy, the state's expiry runs and the
// announcements left by other calls are claimed too (Apply's change does
// both itself). It reports whether the change was stored: an error
// emitting an event comes after the change was made.
func (r *Reconciler) commit(ctx context.Context, key txsync.AccountKey, fn func(m *mutation, s *acctState) error, tidy bool) (bool, error) {
	var m *mutation
	var due []pending
	var final *acctState
	var finalBytes []byte
	err := r.st.Update(ctx, accountPrefix+string(key), func(old []byte, found bool) ([]byte, time.Duration, error) {
		m, final, finalBytes = r.mutation(key), nil, nil
		if !found {
			return nil, 0, ErrNotTracked
		}
		s, err := r.load(key, old)
		if err != nil {
			return nil, 0, err
		}
		if err := fn(m, s); err != nil {
			return nil, 0, err
		}
		if tidy {
			m.expire(s)
			m.claim(s)
		}
		if !m.changed {
			final, finalBytes = s, old
			return old, StateTTL, nil
		}
		b, ok := fit(s)
		if !ok {
			return nil, 0, ErrFull
		}
		final, finalBytes = s, b
		due = due[:0]
		for _, i := range m.announce {
			a := s.anns[i]
			if j := s.find(a.id); j >= 0 {
				due = append(due, pending{s.pays[j].state(key), a.bits})
			}
		}
		return b, StateTTL, nil
	})
	if err != nil {
		return false, r.storeErr(err)
	}
	if final != nil {
		r.remember(key, finalBytes, final)
	}
	var lerr error
	if final != nil {
		lerr = r.refreshLookups(ctx, key, m, final)
	}
	return true, errors.Join(lerr, r.announce(ctx, key, due))
}

// refreshLookups keeps the key that finds the account of a payment
// (under "payment/") as long as the state s, just stored, keeps the
// payment (lookupTTL): for the payments whose stay the call m made
// longer, and for those s keeps past their retention (outlives), whose
// stay each call keeping them makes longer. Track writes the key of the
// payment it tracks.
func (r *Reconciler) refreshLookups(ctx context.Context, key txsync.AccountKey, m *mutation, s *acctState) error {
	now := time.Unix(m.now, 0)
	var errs error
	put := func(p *pay) {
		if err := r.st.Put(ctx, paymentPrefix+digest(p.id), []byte(key), lookupTTL(p, now)); err != nil {
			errs = errors.Join(errs, r.storeErr(err))
		}
	}
	done := map[string]bool{}
	for _, id := range m.retained {
		if i := s.find(id); i >= 0 && !done[id] {
			done[id] = true
			put(&s.pays[i])
		}
	}
	for i := range s.pays {
		if p := &s.pays[i]; !done[p.id] && s.outlives(p, m.today) {
			put(p)
		}
	}
	return errs
}

// pending is a payment's state and the announcements due for it.
type pending struct {
	st  State
	ann uint8
}

// announce emits the events due, in order per payment, then clears
// their announcements; a payment whose event failed keeps its
// announcements, free for the next call to take at once.
func (r *Reconciler) announce(ctx context.Context, key txsync.AccountKey, due []pending) error {
	if r.em == nil || len(due) == 0 {
		return nil
	}
	done := map[string]uint8{}
	failed := map[string]bool{}
	var emitErr error
	for _, d := range due {
		st := d.st
		evs, moot := eventsOf(st, d.ann)
		sent := moot // facts the state no longer shows: no event, cleared
		for _, ev := range evs {
			if _, err := r.em.Emit(ctx, ev.ev); err != nil {
				emitErr = errors.Join(emitErr, err)
				failed[st.Payment] = true
				break // the later facts wait: the order per payment holds
			}
			sent |= ev.ann
		}
		done[st.Payment] = sent
	}
	if len(done) > 0 {
		// The announcements are in the header: the body is kept as it
		// is, bytes and checksum.
		err := r.st.Update(ctx, accountPrefix+string(key), func(old []byte, found bool) ([]byte, time.Duration, error) {
			if !found {
				return nil, 0, nil
			}
			h, err := decodeHeader(old)
			if err != nil {
				return nil, 0, err
			}
			s := &acctState{since: h.since, due: h.due}
			changed := false
			for _, a := range h.anns {
				if bits, ok := done[a.id]; ok && a.bits&bits != 0 {
					a.bits &^= bits
					changed = true
				}
				if failed[a.id] && a.bits != 0 && a.lease != 0 {
					a.lease = 0 // free for the next call at once
					changed = true
				}
				if a.bits != 0 {
					s.anns = append(s.anns, a)
				}
			}
			if !changed {
				return old, StateTTL, nil
			}
			return encodeHeader(s, h.version, h.body, 0), StateTTL, nil
		})
		if err != nil {
			return errors.Join(emitErr, r.storeErr(err))
		}
	}
	return emitErr
}

// announcement is an event and the announcement it clears.
type announcement struct {
	ev  events.Event
	ann uint8
}

// eventsOf returns the events of the announcements ann of a state, in
// the order the facts happen: stalled, withdrawn, settled, returned (a
// call that announces one of a payment's facts claims its earlier ones
// with it, so that pgstore's outbox, which keeps the order per payment,
// delivers them in this order), and the announcements whose fact the
// state no longer shows (moot: a settlement withdrawn before its event
// went out), which are cleared without an event.
func eventsOf(st State, ann uint8) (out []announcement, moot uint8) {
	if ann&annStalled != 0 {
		if st.WasStalled {
			out = append(out, announcement{events.PaymentSettlementStalled{Payment: st.Payment, Scheme: st.Scheme.String(),
				Accepted: st.Accepted, Deadline: st.Deadline}, annStalled})
		} else {
			moot |= annStalled
		}
	}
	if ann&annWithdrawn != 0 {
		if st.Withdrawals > 0 {
			out = append(out, announcement{events.PaymentSettlementWithdrawn{Payment: st.Payment, Booking: string(st.WithdrawnBooking),
				BookingDate: st.WithdrawnBookingDate, Amount: st.WithdrawnAmount, Withdrawal: st.Withdrawals}, annWithdrawn})
		} else {
			moot |= annWithdrawn
		}
	}
	if ann&annSettled != 0 {
		if st.Booking != "" {
			out = append(out, announcement{events.PaymentSettled{Payment: st.Payment, Booking: string(st.Booking),
				BookingDate: st.BookingDate, Amount: st.Booked, Instructed: st.Instructed,
				DifferentAmount: !st.Booked.Equal(st.Instructed), MatchedBy: st.By.String(), Late: st.Late,
				Withdrawals: st.Withdrawals}, annSettled})
		} else {
			moot |= annSettled
		}
	}
	if ann&annReturned != 0 {
		if st.Settlement == Returned {
			out = append(out, announcement{events.PaymentReturned{Payment: st.Payment, Booking: string(st.Reversal),
				Settled: string(st.Booking), BookingDate: st.ReversalDate,
				Amount: bankAmount(st.Booked.Value.Neg(), st.Booked.Currency)}, annReturned})
		} else {
			moot |= annReturned
		}
	}
	return out, moot
}
