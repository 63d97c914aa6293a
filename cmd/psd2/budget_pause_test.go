package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// The bank asked the TPP to slow down (429 with a Retry-After): the
// budget pauses the bank, and no refresh calls it before the pause
// ends. psd2 budget says so, and never "next call allowed: now" during
// the pause, as it did on the code before while the account still had
// calls left.
func TestBudgetDuringTheBanksPause(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir, _, c := storeClient(t, s, creds, client.WithRetryPolicy(client.RetryPolicy{}))
	ais, err := accounts.New(c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, s, ais, emulator.CustomerKari)
	list, err := ais.List(ctx, nil, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
	require.NoError(t, err)
	account := list[0].ResourceID
	_, err = ais.Balances(ctx, account, sess.RequestOptions(nil)) // one call without the PSU
	require.NoError(t, err)
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: 50 * time.Second, PathPrefix: "/v1/accounts", Count: 1})
	_, err = ais.Balances(ctx, account, sess.RequestOptions(nil))
	require.Error(t, err, "the bank asks to slow down")

	args := []string{"budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account}
	out, errOut, code := psd2(t, args...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.NotContains(t, out, "next call allowed: now", "no call is allowed during the bank's pause")
	assert.Contains(t, out, "paused")

	out, _, _ = psd2(t, append(args, "--json")...)
	var reps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &reps), out)
	require.NotEmpty(t, reps)
	for _, r := range reps {
		assert.Equal(t, false, r["allowedNow"], "%v", r)
		assert.Contains(t, r, "bankPausedUntil")
	}
}

// A pause of the bank the store holds in a form psd2 cannot read (a
// newer version's, a garbled value) is no all-clear: psd2 budget says it
// could not read it and fails, rather than print "next call allowed:
// now" as if the bank had not asked the TPP to slow down. On the code
// before, it exited 0 with every endpoint allowed now.
func TestBudgetUnreadablePauseIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir, st, c := storeClient(t, s, creds, client.WithRetryPolicy(client.RetryPolicy{}))
	ais, err := accounts.New(c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, s, ais, emulator.CustomerKari)
	list, err := ais.List(ctx, nil, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
	require.NoError(t, err)
	account := list[0].ResourceID
	_, err = ais.Balances(ctx, account, sess.RequestOptions(nil)) // one call without the PSU: a ledger
	require.NoError(t, err)
	// The bank's pause, as a newer version keeps it.
	until := time.Now().Add(50 * time.Second).UTC()
	newer, err := json.Marshal(map[string]any{"v": 2, "until": until.Format(time.RFC3339Nano)})
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "budget/pause/"+c.Scope(), newer, time.Hour))

	args := []string{"budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account}
	for _, extra := range [][]string{nil, {"--json"}} {
		out, errOut, code := psd2(t, append(args, extra...)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", extra, code, out, errOut)
		assert.Equal(t, exitRuntime, code, "%v: a pause psd2 cannot read is no all-clear", extra)
		assert.NotContains(t, out, "next call allowed: now", "%v", extra)
		assert.NotContains(t, out, `"allowedNow": true`, "%v", extra)
		assert.Contains(t, errOut, "pause", "%v: the error names what could not be read", extra)
	}
}
