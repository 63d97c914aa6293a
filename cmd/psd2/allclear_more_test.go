package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// putRawEntry stores rec as the journal entry id, with its open marker,
// as a version of the SDK that wrote another form would.
// storeClient makes a file store in a new directory and a client of the
// emulator's TPP on it, as a payment service would run.
func storeClient(t *testing.T, s *emulator.Server, creds *signing.Credentials, opts ...client.Option) (string, store.Store, *client.Client) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, append([]client.Option{client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI))}, opts...)...)
	require.NoError(t, err)
	return dir, st, c
}

func putRawEntry(t *testing.T, st store.Store, id string, rec map[string]any) {
	t.Helper()
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, st.Put(t.Context(), "journal/entry/"+id, b, 0))
	created, _ := rec["created"].(string)
	require.NoError(t, st.Put(t.Context(), "journal/open/"+id, []byte(created), 0))
}

// An in-doubt entry in a newer stored form (v 2, an outcome this
// version does not know) is no all-clear: journal list fails and keeps
// the entry's open marker. On the code before, it read the entry as
// settled, removed the marker and printed "0 payment(s) in doubt".
func TestJournalNewerVersionEntryIsNoAllClear(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := uuid.NewString()
	created := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	putRawEntry(t, st, id, map[string]any{
		"v": 2, "requestId": id, "operation": "payments.CreateNorwegianDomestic",
		"url": "https://psd2.bank.example/v1/payments/norwegian-domestic-credit-transfers", "body": []byte(`{}`),
		"scope": "x", "created": created, "until": created,
		"outcome": "sent-awaiting-bank", // an outcome of a newer version
	})

	out, errOut, code := psd2(t, "journal", "list", "-store", dir)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	_, err = st.Get(t.Context(), "journal/open/"+id)
	assert.NoError(t, err, "the open marker of the newer version's entry is kept")
	assert.NotEqual(t, exitOK, code, "an entry psd2 cannot read is no all-clear")
	assert.NotContains(t, out, "0 payment(s) in doubt")
}

// journal settle refuses an entry whose create may still be on its way
// (ErrInFlight, as Resolve does). On the code before, a person's "no
// such payment" was recorded while the bank was still creating it.
func TestJournalSettleRefusesACreateInFlight(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	dir, st, c := storeClient(t, s, creds)
	sess := testpsu.Login(t, s, c, emulator.CustomerKari)
	j, err := journal.New(st)
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	// The bank takes 4 s to answer the create, then creates it.
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultHang, Delay: 4 * time.Second, Method: http.MethodPost, PathPrefix: "/v1/payments/", Count: 1})
	id := uuid.NewString()
	done := make(chan error, 1)
	go func() {
		_, err := svc.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
			InstructedAmount: money.MustParse("12.50", "NOK"), CreditorName: "Ola Eksempel",
			CreditorAccount: payments.AccountReference{BBAN: "12345678903", Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
			DebtorAccount: payments.AccountReference{BBAN: "95312776066", Currency: "NOK"}, RemittanceInformationUnstructured: "Test " + id[:8],
		}, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}), client.WithRequestID(id))
		done <- err
	}()
	require.Eventually(t, func() bool { _, err := st.Get(t.Context(), "journal/open/"+id); return err == nil }, 3*time.Second, 10*time.Millisecond)

	out, errOut, code := psd2(t, "journal", "settle", "-store", dir, "-by", "ops-anna", "-reason", "bank support finds no such payment", id)
	t.Logf("settle while the create is on its way: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	require.NoError(t, <-done, "the bank created the payment")
	show, _, _ := psd2(t, "journal", "show", "-store", dir, id)
	t.Logf("after the create landed:\n%s", show)
	assert.NotEqual(t, exitOK, code, "settle must refuse an entry whose create may still be on its way")
}

// psd2 budget fails on a ledger in another form rather than report its
// calls as 0 of 4. On the code before, it exited 0 with "next call
// allowed: now" over 4 calls made.
func TestBudgetNewerLedgerIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir, st, c := storeClient(t, s, creds)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, s, ais, emulator.CustomerKari)
	list, err := ais.List(ctx, nil, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
	require.NoError(t, err)
	account := list[0].ResourceID
	for range 4 { // the whole budget, without the PSU
		_, err := ais.Balances(ctx, account, sess.RequestOptions(nil))
		require.NoError(t, err)
	}
	// A newer version keeps the same four calls in another form.
	var keys []string
	for k, err := range st.Keys(ctx, "accounts/budget/") {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	require.Len(t, keys, 1)
	now := time.Now().UnixNano()
	newer, _ := json.Marshal(map[string]any{"v": 2, "calls": map[string][]int64{"balances": {now, now, now, now}}})
	require.NoError(t, st.Put(ctx, keys[0], newer, time.Hour))

	out, errOut, code := psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.NotEqual(t, exitOK, code, "a ledger psd2 cannot read is no all-clear")
	assert.NotContains(t, out, "0 of 4 counted in 24h0m0s; next call allowed: now")
}

// health report refuses a period the store keeps no records of (older
// than client.DowntimeKept, or in the future) rather than claim 100%
// uptime for it, as it did on the code before.
func TestHealthReportBeyondTheRecords(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir, _, c := storeClient(t, s, creds, client.WithRetryPolicy(client.RetryPolicy{}))
	// The bank went down once today: the store holds its record.
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/", Count: 5})
	for range 5 {
		_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	now := time.Now().UTC()
	for _, period := range [][2]time.Time{
		{now.Add(-500 * 24 * time.Hour), now.Add(-450 * 24 * time.Hour)}, // records of then are gone
		{now.Add(24 * time.Hour), now.Add(48 * time.Hour)},               // no record yet
	} {
		out, errOut, code := psd2(t, append([]string{"health", "report", "-from", period[0].Format(time.RFC3339), "-to", period[1].Format(time.RFC3339)}, args...)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", period, code, out, errOut)
		assert.NotEqual(t, exitOK, code, "a period the store holds no records of is no 100%% uptime")
		assert.NotContains(t, out, "uptime 100.000%")
	}
}

// A store whose oldest downtime records of the bank went to keep them
// within client.MaxDowntimes (a bank that flapped) still holds the bank:
// psd2 health reads it, and health report refuses only a period that
// begins before the records that went, rather than report it without
// their outages.
func TestHealthAfterDroppedDowntimes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	var clk atomic.Int64
	clk.Store(time.Now().UnixNano())
	dir, st, c := storeClient(t, s, creds, client.WithRetryPolicy(client.RetryPolicy{}),
		client.WithClock(func() time.Time { return time.Unix(0, clk.Load()) }))
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/", Count: 5})
	for range 5 {
		_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	require.Equal(t, client.BreakerOpen, c.BankHealth().State)
	clk.Add(int64(10 * time.Second))
	_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil) // the probe closes it
	require.Equal(t, client.BreakerClosed, c.BankHealth().State)
	// The records up to ten days ago went (what the client's store
	// holds once it dropped some: see client.ErrDowntimesDropped).
	dropped := time.Now().Add(-10 * 24 * time.Hour)
	require.NoError(t, st.Put(ctx, "client/downtime-dropped/"+c.Scope(), []byte(strconv.FormatInt(dropped.UnixNano(), 10)), client.DowntimeKept))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	out, errOut, code := psd2(t, append([]string{"health"}, args...)...)
	require.Equal(t, exitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "available (circuit breaker closed)")
	assert.Contains(t, out, "unavailable 1 time(s)")

	now := time.Now().UTC()
	out, errOut, code = psd2(t, append([]string{"health", "report", "-from", now.Add(-20 * 24 * time.Hour).Format(time.RFC3339), "-to", now.Format(time.RFC3339)}, args...)...)
	assert.Equal(t, exitRuntime, code, "%s%s", out, errOut)
	assert.NotContains(t, out, "uptime")
	assert.Contains(t, errOut, "dropped")

	out, errOut, code = psd2(t, append([]string{"health", "report", "-from", now.Add(-24 * time.Hour).Format(time.RFC3339), "-to", now.Add(time.Minute).Format(time.RFC3339)}, args...)...)
	require.Equal(t, exitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "unavailable: 1 time(s)")
}
