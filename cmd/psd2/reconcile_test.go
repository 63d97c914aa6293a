package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// reconcileAccount is the watched account of the command's tests.
const reconcileAccount txsync.AccountKey = "amerchantaccount1"

// seedDay is the bank day seedReconcile makes its payments on: a Monday
// a month or more ago, well within the reconciler's retention (a period
// from before it is refused), that begins four banking days in a row, as
// 16 March 2026 did: the stalled payment's deadline is the next day, and
// the account is read the day after.
func seedDay(t *testing.T) date.Date {
	t.Helper()
	d := date.Of(time.Now().In(date.Oslo()).AddDate(0, 0, -30))
	for range 60 {
		if d.Time(nil).Weekday() == time.Monday && date.AddBankingDays(d, 3) == dayAfter(d, 3) {
			return d
		}
		d = dayAfter(d, -1)
	}
	t.Fatal("no Monday of four banking days in a row in two months")
	return date.Date{}
}

// dayAfter is the day n days after d.
func dayAfter(d date.Date, n int) date.Date { return date.Of(d.Time(nil).AddDate(0, 0, n)) }

// seedPeriod is -from and -to of a period around seedDay's payments.
func seedPeriod(t *testing.T) []string {
	d := seedDay(t)
	return []string{"-from", dayAfter(d, -15).String(), "-to", dayAfter(d, 15).String()}
}

// seedReconcile watches an account in st and tracks four payments made
// on seedDay: one settled by its KID, one stalled, one rejected and
// one to an account nobody watches (not kept).
func seedReconcile(t *testing.T, st store.Store) {
	t.Helper()
	ctx := t.Context()
	day := seedDay(t)
	now := day.Time(nil).Add(9 * time.Hour)
	r, err := reconcile.New(st, reconcile.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, reconcileAccount, accounts.Account{BBAN: "86011117947"}))
	for i, p := range []reconcile.Payment{
		{RequestID: "pay-settled", KID: "1234567890128", Status: payments.StatusACTC},
		{RequestID: "pay-stalled", KID: "99887766", Status: payments.StatusACTC},
		{RequestID: "pay-rejected", Status: payments.StatusRJCT},
		{RequestID: "pay-elsewhere", CreditorBBAN: "12345678903"},
	} {
		p.Created, p.Product, p.Amount = now.Add(time.Duration(i)*time.Minute), payments.ProductNorwegianDomestic, money.MustParse("250.00", "NOK")
		if p.CreditorBBAN == "" {
			p.CreditorBBAN = "86011117947"
		}
		_, err := r.Track(ctx, p)
		require.NoError(t, err)
	}
	now = day.Time(nil).Add(2*24*time.Hour + 18*time.Hour)
	_, err = r.Apply(ctx, &txsync.Delta{Account: reconcileAccount, Added: []txsync.Entry{{Key: txsync.Key(reconcileAccount + "-1"),
		Transaction: &accounts.Transaction{Status: accounts.BookingBooked, BookingDate: day,
			TransactionAmount: money.MustParse("250.00", "NOK"), RemittanceInformationUnstructured: "1234567890128"}}}})
	require.NoError(t, err)
}

// fileStoreDir is a directory for a file store (made 0700 by it).
func fileStoreDir(t *testing.T) string { return filepath.Join(t.TempDir(), "store") }

// TestReconcileCommand lists a period's payments from a file store, as
// JSON and as a table; a period without them lists none.
func TestReconcileCommand(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	day, period := seedDay(t), seedPeriod(t)

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir, "--json"}, period...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		From     string `json:"from"`
		Payments []struct {
			Payment, Settlement, Booking, BookingDate, By string
			Booked                                        *struct{ Amount, Currency string }
		} `json:"payments"`
		Counts map[string]int `json:"counts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, period[1], rep.From)
	require.Len(t, rep.Payments, 3, "the payment to an unwatched account is not kept")
	got := map[string]string{}
	for _, p := range rep.Payments {
		got[p.Payment] = p.Settlement
	}
	assert.Equal(t, map[string]string{"pay-settled": "settled", "pay-stalled": "stalled", "pay-rejected": "not-executed"}, got)
	assert.Equal(t, "settled", rep.Payments[0].Settlement, "in creation order")
	assert.Equal(t, "kid", rep.Payments[0].By)
	assert.Equal(t, day.String(), rep.Payments[0].BookingDate)
	assert.Equal(t, map[string]int{"settled": 1, "stalled": 1, "not-executed": 1}, rep.Counts)

	out, errOut, code = psd2(t, append([]string{"reconcile", "-store", dir}, period...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "CREATED")
	assert.Regexp(t, `pay-settled +domestic +250\.00 NOK +settled +250\.00 NOK +`+day.String()+` +kid`, out)
	assert.Regexp(t, `pay-stalled +domestic +250\.00 NOK +stalled +by `+dayAfter(day, 1).String(), out)
	assert.Contains(t, out, "3 payment(s): 1 settled, 1 stalled, 1 not-executed")

	out, errOut, code = psd2(t, "reconcile", "-store", dir, "-from", dayAfter(day, 3).String(), "-to", dayAfter(day, 20).String())
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 payment(s)")
}

// TestReconcileRefusesUnreadableStores: a store that does not exist, is
// not a directory, holds no reconciliation state, or holds a corrupt one
// is an error (exit status 3), never an empty list; bad flags are
// usage errors.
func TestReconcileRefusesUnreadableStores(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	_, errOut, code := psd2(t, "reconcile", "-store", missing)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "does not exist")
	_, err := os.Stat(missing)
	assert.ErrorIs(t, err, os.ErrNotExist, "no store is made")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, errOut, code = psd2(t, "reconcile", "-store", file)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "not a directory")

	empty := fileStoreDir(t)
	other, err := store.NewFileStore(empty)
	require.NoError(t, err)
	require.NoError(t, other.Put(context.Background(), "journal/other", []byte("x"), 0))
	_, errOut, code = psd2(t, "reconcile", "-store", empty)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "no reconciliation state")

	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	key := "reconcile/account/" + string(reconcileAccount)
	b, err := st.Get(context.Background(), key)
	require.NoError(t, err)
	b[len(b)-12] ^= 0x10
	require.NoError(t, st.Put(context.Background(), key, b, 0))
	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "corrupt")
	assert.NotContains(t, out, "0 payment(s)")

	for _, args := range [][]string{{"-store", dir, "-from", "16.03.2026"}, {"-store", dir, "-from", "2026-03-31", "-to", "2026-03-01"},
		{"-store", dir, "-limit", "0"}, {"-store", dir, "extra"}} {
		_, _, code := psd2(t, append([]string{"reconcile"}, args...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
	}
}

// TestReconcileCommandPostgres lists the payments of a pgstore, and
// refuses a schema without one.
func TestReconcileCommandPostgres(t *testing.T) {
	conn := testPostgres(t)
	st, schema := outboxSchema(t, conn)
	seedReconcile(t, st)
	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", conn, "-schema", schema}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "3 payment(s): 1 settled, 1 stalled, 1 not-executed")
	_, errOut, code = psd2(t, "reconcile", "-store", conn, "-schema", schema+"_none")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "no pgstore in schema")
}

// TestReconcileWrongStoresNeverQuoted: reconcile opens -store as journal
// and budget do. A URL of another scheme is refused without quoting it
// (it may hold a password), a directory of another application is named
// as such, and nothing is created there.
func TestReconcileWrongStoresNeverQuoted(t *testing.T) {
	t.Parallel()
	foreign := filepath.Join(t.TempDir(), "home")
	require.NoError(t, os.Mkdir(foreign, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, ".bashrc"), []byte("x"), 0o600))
	for _, c := range []struct{ store, says string }{
		{"redis://ops:s3cret@cache.internal:6379/0", "redis:// URL, no store of the SDK"},
		{"mysql://ops:s3cret@db.internal/tpp", "mysql:// URL, no store of the SDK"},
		{foreign, `holds ".bashrc"`},
	} {
		out, errOut, code := psd2(t, "reconcile", "-store", c.store)
		assert.Equal(t, exitRuntime, code, c.store)
		assert.Empty(t, out, c.store)
		assert.Contains(t, errOut, c.says, c.store)
		assert.NotContains(t, errOut, "s3cret", "the connection string is never quoted")
	}
	left, err := os.ReadDir(foreign)
	require.NoError(t, err)
	assert.Len(t, left, 1, "nothing written into another application's directory")
}

// TestReconcileTakesTheSettings: -store and -schema of reconcile come
// from PSD2_STORE and PSD2_SCHEMA, and from a profile, as every other
// store command's: with PSD2_SCHEMA naming the service's schema, reconcile
// reads that schema, not pgstore's default.
func TestReconcileTakesTheSettings(t *testing.T) {
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.json")
	quoted, err := json.Marshal(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(`{"profiles":{"ops":{"store":`+string(quoted)+`}}}`), 0o600))
	out, errOut, code := psd2In(t, t.TempDir(), []string{"PSD2_CONFIG=" + cfg}, append([]string{"reconcile", "-profile", "ops"}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "3 payment(s)")

	conn := testPostgres(t)
	pst, schema := outboxSchema(t, conn)
	seedReconcile(t, pst)
	out, errOut, code = psd2In(t, t.TempDir(), []string{"PSD2_STORE=" + conn, "PSD2_SCHEMA=" + schema}, append([]string{"reconcile"}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "3 payment(s): 1 settled, 1 stalled, 1 not-executed")
}
