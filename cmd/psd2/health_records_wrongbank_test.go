package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestHealthRecordsOfABankTheStoreDoesNotKnow: psd2 health records with
// a -url (or -bank, or certificate) of which the store holds nothing, no
// record, no breaker, no trace of a forgotten record, no budget ledger,
// is refused with exit status 3, as psd2 health and health report refuse
// it, never "0 downtime record(s)" with exit 0: a wrong bank flag read
// as a bank never unavailable. A store that holds the bank's budget
// ledger but no downtime record lists none, exit 0.
func TestHealthRecordsOfABankTheStoreDoesNotKnow(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	// The service's store: records of another bank only.
	now := time.Now()
	putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-3 * time.Hour), End: now.Add(-2 * time.Hour), Failures: 5})
	wrong := append([]string{"health", "records"}, args...)
	wrong[3] = "https://other-bank.localhost:1/api" // -url
	for _, extra := range [][]string{nil, {"--json"}} {
		out, errOut, code := psd2(t, append(append([]string{}, wrong...), extra...)...)
		t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		assert.Equal(t, exitRuntime, code, "a bank the store holds nothing of is no all-clear")
		assert.NotContains(t, out, "0 downtime record(s)")
		assert.Contains(t, errOut, "holds nothing of bank")
	}

	// The bank's budget ledger, no downtime record: a bank never seen
	// unavailable.
	c2, st2, _, args2 := recordsSetup(t)
	require.NoError(t, st2.Put(t.Context(), "accounts/budget/"+c2.Scope()+"/acc-1", []byte(`{}`), time.Hour))
	out, errOut, code := psd2(t, append([]string{"health", "records"}, args2...)...)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 downtime record(s)")
}
