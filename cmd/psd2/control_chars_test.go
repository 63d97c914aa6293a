package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// rawControl reports the first raw control character (other than a line
// break or a tab) in s, or -1: an escape sequence a terminal would act on.
func rawControl(s string) int {
	for i, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
			return i
		}
	}
	return -1
}

// The journal's stored entries hold what a bank answered (the payment's
// id, its transactionStatus) and the create's body: journal list and
// show print none of their control characters raw (an ESC sequence
// rewrites the operator's terminal, hides a line or retitles the
// window). On the code before, list and show printed them as stored.
func TestJournalPrintsNoRawControlCharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := uuid.NewString()
	created := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	at := time.Now().Add(-30 * time.Minute).UTC().Format(time.RFC3339Nano)
	putRawEntry(t, st, id, map[string]any{
		"v": 1, "requestId": id, "operation": "payments.CreateNorwegianDomestic\x1b[8m",
		"url":   "https://psd2.bank.example/v1/payments/norwegian-domestic-credit-transfers",
		"body":  []byte(`{"instructedAmount":{"amount":"12.50","currency":"NOK\u001b[2J"},"creditorAccount":{"bban":"1234567\u001b]0;x\u0007"}}`),
		"scope": "x", "created": created, "until": created, "outcome": "created",
		"paymentId": "pay\x1b[31m-1\u202e",
		"trail":     []map[string]any{{"kind": "status", "paymentId": "pay\x1b[31m-1", "status": "ACSC\x1b]0;owned\x07", "at": at}},
	})
	// An entry whose create the bank answered: in doubt by its marker.
	for _, args := range [][]string{
		{"journal", "list", "-store", dir},
		{"journal", "list", "-all", "-store", dir},
		{"journal", "show", "-store", dir, id},
	} {
		out, errOut, code := psd2(t, args...)
		t.Logf("%s: exit %d\nstdout: %q\nstderr: %q", strings.Join(args[:2], " "), code, out, errOut)
		assert.Equal(t, -1, rawControl(out), "%s: no raw control character on stdout: %q", args[1], out)
		assert.Equal(t, -1, rawControl(errOut), "%s: none on stderr: %q", args[1], errOut)
	}
}

// psd2 sandbox list prints the customers the bank's sandbox holds: a
// customer's name or number with an escape sequence in it is printed
// escaped. On the code before, it went to the terminal raw.
func TestSandboxListPrintsNoRawControlCharacters(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	seed := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(seed, []byte(`[{"customerNumber":"01017012345","customerType":"PRIVATE","customerName":"Ny \u001b[2J\u001b]0;owned\u0007Kunde"}]`), 0o600))
	_, errOut, code := psd2(t, append(append([]string{"sandbox", "seed"}, conn...), seed)...)
	require.Equal(t, exitOK, code, errOut)
	out, errOut, code := psd2(t, append([]string{"sandbox", "list"}, conn...)...)
	t.Logf("exit %d\nstdout: %q\nstderr: %q", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `Ny \x1b[2J\x1b]0;owned\aKunde`, "the name, escaped")
	assert.Equal(t, -1, rawControl(out), "no raw control character: %q", out)
}
