package refresh_test

import (
	"context"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/syncscript"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// synced is the scripted PSU's first account refreshed with a sync
// (refresh.WithSync), one job a round.
type synced struct {
	w      *syncscript.World
	s      *txsync.Syncer
	r      *refresh.Refresher
	cursor refresh.Cursor
}

func newSynced(t *testing.T, opts ...refresh.Option) *synced {
	t.Helper()
	w, err := syncscript.Start(t.Context())
	require.NoError(t, err)
	t.Cleanup(w.Close)
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(w.Clock.Now))
	require.NoError(t, err)
	r, err := refresh.New(w.Svc, append([]refresh.Option{refresh.WithWorkers(1), refresh.WithSync(s)}, opts...)...)
	require.NoError(t, err)
	return &synced{w: w, s: s, r: r}
}

func (f *synced) id() string { return f.w.Customer.Accounts[0].ID }

func (f *synced) link(t *testing.T) {
	t.Helper()
	listed, err := f.w.List(t.Context())
	require.NoError(t, err)
	_, err = f.s.Link(t.Context(), f.w.Owner, listed, nil)
	require.NoError(t, err)
}

// round refreshes the account's transactions 12 hours after the last
// round, through Refresh, the step a job engine runs (riverrefresh), and
// keeps the cursor.
func (f *synced) round(t *testing.T) refresh.Result {
	t.Helper()
	f.w.Wait(12*time.Hour + 6*time.Minute)
	res := f.r.Refresh(t.Context(), jobWith(newJob(t, f.w.Session, f.id(), false), func(j *refresh.Job) { j.Want = refresh.Transactions; j.Cursor = f.cursor }))
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	require.NotNil(t, res.Sync)
	f.cursor = res.Cursor
	return res
}

// hasText reports whether an entry of txs has remittance text.
func hasText(txs []accounts.Transaction, text string) bool {
	for _, tx := range txs {
		if tx.RemittanceInformationUnstructured == text {
			return true
		}
	}
	return false
}

func (f *synced) add(t *testing.T, tx emulator.SeedTransaction) string {
	t.Helper()
	ref, err := f.w.Srv.Control().AddTransaction(f.id(), tx)
	require.NoError(t, err)
	return ref
}

// TestResultsCarryTheSync: over the emulator's scenario controls, the
// results' Sync reports each case as the sync does (an id that changes is
// no new entry, a pending entry booked with another id and amount is one
// change, a dropped one a removal, twins stay two), while Booked holds
// every entry read, old ones included: the sync alone says what is new.
func TestResultsCarryTheSync(t *testing.T) {
	f := newSynced(t)
	f.link(t)
	res := f.round(t)
	require.True(t, res.Sync.First)
	require.Len(t, res.Sync.Added, 11) // the seed's 10 booked and 1 pending
	require.Len(t, res.Booked, 10)
	linked, err := f.s.KeyOf(t.Context(), f.id())
	require.NoError(t, err)
	assert.Equal(t, linked, res.Sync.Account)
	today := f.w.Clock.Now

	// A booked entry whose id changes.
	ref := f.add(t, emulator.SeedTransaction{BookingDate: today(), Amount: "-120.00", CounterpartyName: "Kiwi", Remittance: "Kiwi"})
	res = f.round(t)
	require.Len(t, res.Sync.Added, 1)
	_, err = f.w.Srv.Control().ChangeTransactionID(f.id(), ref)
	require.NoError(t, err)
	res = f.round(t)
	assert.True(t, res.Sync.Empty(), "the sync follows the new id: %v", res.Sync)
	assert.True(t, hasText(res.Booked, "Kiwi"), "the entry is read again; the sync says it is not new")

	// A pending entry booked with another id and amount.
	ref = f.add(t, emulator.SeedTransaction{Pending: true, BookingDate: today(), Amount: "-300.00", CounterpartyName: "Circle K", Remittance: "Drivstoff"})
	res = f.round(t)
	require.Len(t, res.Sync.Added, 1)
	key := res.Sync.Added[0].Key
	_, err = f.w.Srv.Control().BookPending(f.id(), ref, today(), "-287.40")
	require.NoError(t, err)
	res = f.round(t)
	require.Empty(t, res.Sync.Added)
	require.Empty(t, res.Sync.Removed)
	require.Len(t, res.Sync.Changed, 1)
	assert.Equal(t, key, res.Sync.Changed[0].Key)
	assert.Equal(t, accounts.BookingPending, res.Sync.Changed[0].Previous.Status)
	assert.Equal(t, "-287.40", res.Sync.Changed[0].Transaction.TransactionAmount.Text())
	assert.True(t, hasText(res.Booked, "Drivstoff"), "read as booked")

	// A pending entry dropped.
	ref = f.add(t, emulator.SeedTransaction{Pending: true, BookingDate: today(), Amount: "-99.00", CounterpartyName: "Hotell", Remittance: "Reservasjon"})
	res = f.round(t)
	require.Len(t, res.Sync.Added, 1)
	require.NoError(t, f.w.Srv.Control().DropPending(f.id(), ref))
	res = f.round(t)
	require.Len(t, res.Sync.Removed, 1)
	assert.Empty(t, res.Sync.Added)
	assert.Equal(t, txsync.PendingVanished, res.Sync.Removed[0].Reason)

	// Twins, one of which then changes its id.
	refs, err := f.w.Srv.Control().AddTwins(f.id(), emulator.SeedTransaction{BookingDate: today(), Amount: "-49.00", CounterpartyName: "Kaffebar", Remittance: "Kaffe"}, 2)
	require.NoError(t, err)
	res = f.round(t)
	require.Len(t, res.Sync.Added, 2)
	assert.NotEqual(t, res.Sync.Added[0].Key, res.Sync.Added[1].Key)
	_, err = f.w.Srv.Control().ChangeTransactionID(f.id(), refs[1])
	require.NoError(t, err)
	res = f.round(t)
	assert.True(t, res.Sync.Empty(), "%v", res.Sync)
	assert.True(t, hasText(res.Booked, "Kaffe"), "the twins are read again")
	assert.Contains(t, res.String(), " added=0 changed=0 removed=0")
}

// TestSyncOldPendingBooked: through Refresh with a sync, a pending entry
// older than the overlap window that the bank (filtering pending entries
// by date) books under its old date is that entry's change, not a
// removal and a missed booking, and is not reported again.
func TestSyncOldPendingBooked(t *testing.T) {
	f := newSynced(t)
	f.w.Srv.Control().SetUnfilteredPending(false)
	f.link(t)
	ref := f.add(t, emulator.SeedTransaction{Pending: true, BookingDate: f.w.Clock.Now().AddDate(0, 0, -20), Amount: "-1500.00", CounterpartyName: "Leiebil", Remittance: "Depositum"})
	res := f.round(t)
	require.Len(t, res.Sync.Added, 12) // the seed's 11 and the reservation
	res = f.round(t)
	require.True(t, res.Sync.Empty(), "%v", res.Sync)
	_, err := f.w.Srv.Control().BookPending(f.id(), ref, f.w.Clock.Now().AddDate(0, 0, -19), "")
	require.NoError(t, err)

	res = f.round(t)
	assert.Empty(t, res.Sync.Removed)
	assert.Empty(t, res.Sync.Added)
	require.Len(t, res.Sync.Changed, 1)
	assert.Equal(t, accounts.BookingPending, res.Sync.Changed[0].Previous.Status)
	assert.Equal(t, accounts.BookingBooked, res.Sync.Changed[0].Transaction.Status)
	res = f.round(t)
	assert.True(t, res.Sync.Empty(), "%v", res.Sync)
}

// TestSyncNotLinked: with a sync, a job for an account the sync never
// linked is refused before any call, and Run reports the sync's lists
// too.
func TestSyncNotLinked(t *testing.T) {
	f := newSynced(t)
	f.w.Wait(12 * time.Hour)
	res := f.r.Refresh(t.Context(), newJob(t, f.w.Session, f.id(), false))
	assert.Equal(t, refresh.Refused, res.Outcome)
	require.ErrorIs(t, res.Err, txsync.ErrNotLinked)
	assert.Zero(t, res.Calls)
	assert.Nil(t, res.Sync)

	// Balances only: the sync is not asked.
	res = f.r.Refresh(t.Context(), jobWith(newJob(t, f.w.Session, f.id(), false), func(j *refresh.Job) { j.Want = refresh.Balances }))
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	assert.Nil(t, res.Sync)

	// The SCA hour is over: link the accounts as the seed listed them.
	var listed []accounts.Account
	for _, a := range f.w.Customer.Accounts {
		listed = append(listed, accounts.Account{ResourceID: a.ID, BBAN: a.BBAN, IBAN: a.IBAN})
	}
	_, err := f.s.Link(t.Context(), f.w.Owner, listed, nil)
	require.NoError(t, err)
	var got []refresh.Result
	for res, err := range f.r.Run(t.Context(), func(yield func(refresh.Job) bool) {
		yield(jobWith(newJob(t, f.w.Session, f.id(), false), func(j *refresh.Job) { j.Want = refresh.Transactions; j.Force = true }))
	}) {
		require.NoError(t, err)
		got = append(got, res)
	}
	require.Len(t, got, 1)
	require.Equal(t, refresh.Done, got[0].Outcome, "%v", got[0].Err)
	require.NotNil(t, got[0].Sync)
	assert.Len(t, got[0].Sync.Added, 11)
}

// TestSyncPrintsRedacted: a Result with the sync's lists shows no
// transaction id, counterparty or text under any fmt verb or slog
// handler; String gives the lists' counts.
func TestSyncPrintsRedacted(t *testing.T) {
	t.Parallel()
	tx := accounts.Transaction{TransactionID: "tx-MARK-1", CreditorName: "MARK-creditor", RemittanceInformationUnstructured: "MARK-text"}
	prev := txsync.Version{TransactionID: "tx-MARK-0", Counterparty: "MARK-party", Text: "MARK-old-text", Amount: "-1.00"}
	res := refresh.Result{Job: newJob(t, newSession(time.Now()), "acc-MARK-1", false), Outcome: refresh.Done, Booked: []accounts.Transaction{tx},
		Sync: &txsync.Delta{Added: []txsync.Entry{{Key: "k1", Transaction: &tx}},
			Changed: []txsync.Change{{Entry: txsync.Entry{Key: "k2", Transaction: &tx}, Previous: prev}},
			Removed: []txsync.Removal{{Key: "k3", Previous: prev, Reason: txsync.PendingVanished}}}}
	raw := []string{"acc-MARK-1", "tx-MARK-1", "MARK-creditor", "MARK-text", "tx-MARK-0", "MARK-party", "MARK-old-text"}
	secrets := append([]string(nil), raw...)
	for _, s := range raw {
		secrets = append(secrets, hex.EncodeToString([]byte(s)))
	}
	redacttest.AssertHidden(t, res, secrets)
	redacttest.AssertHidden(t, &res, secrets)
	assert.True(t, strings.HasSuffix(res.String(), " added=1 changed=1 removed=1}"), res.String())
}

// TestRounds: WithRounds reports each due job's round with its class and
// when it was planned (the last refresh plus the spacing); a job not due
// is no round.
func TestRounds(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 1, time.Now().Add(-time.Hour)))
	var mu sync.Mutex
	var rounds []refresh.Round
	r := b.refresher(t, refresh.WithSpacing(time.Hour), refresh.WithRounds(func(_ context.Context, r refresh.Round) {
		mu.Lock()
		defer mu.Unlock()
		rounds = append(rounds, r)
	}))
	j := jobsOf(t, b)[0]
	res := r.Refresh(t.Context(), j)
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	j.Cursor = res.Cursor
	res = r.Refresh(t.Context(), j) // not due
	require.True(t, res.Deferred)
	b.clock.Add(90 * time.Minute)
	res = r.Refresh(t.Context(), j)
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)

	require.Len(t, rounds, 2)
	assert.Equal(t, "done", rounds[0].Class())
	assert.Zero(t, rounds[0].Late(), "a first refresh is planned when it starts")
	assert.Equal(t, j.Cursor.RefreshedAt.Add(time.Hour), rounds[1].Planned)
	assert.Equal(t, 30*time.Minute, rounds[1].Late())
	assert.Equal(t, "snoozed", refresh.Round{Outcome: refresh.BudgetExhausted}.Class())
	assert.Equal(t, "failed", refresh.Round{Outcome: refresh.Transient}.Class())
}
