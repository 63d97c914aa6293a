package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// editEntry changes the stored record of the journal entry of id, as a
// resolver in another process would have left it.
func editEntry(t *testing.T, st store.Store, id string, edit func(rec map[string]any)) {
	t.Helper()
	require.NoError(t, st.Update(t.Context(), "journal/entry/"+id, func(old []byte, found bool) ([]byte, time.Duration, error) {
		require.True(t, found)
		var rec map[string]any
		require.NoError(t, json.Unmarshal(old, &rec))
		edit(rec)
		b, err := json.Marshal(rec)
		return b, 0, err
	}))
}

// TestJournalSpeaksTheOperatorsLanguage: journal list is a table (bank
// id, age, operation, amount and currency, masked creditor, state),
// resolve says what the payment is, what to tell the PSU and the next
// step, with the scaRedirect of a payment it just created, and --json
// carries the same facts; a second resolve says the payment awaits
// approval, not a bare "status"; claims and conflicts are shown.
func TestJournalSpeaksTheOperatorsLanguage(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	banksFile := filepath.Join(t.TempDir(), "banks.json")
	require.NoError(t, os.WriteFile(banksFile, fmt.Appendf(nil, `{"banks":[{"id":"testbank","name":"Test Bank","group":"other",
	  "production":"https://psd2.testbank.example/api","sandbox":%q,"source":"test","verified":"2026"}]}`, s.URL), 0o600))
	storeArgs := []string{"-store", dir, "-banks-file", banksFile}
	bank := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}

	out, errOut, code := psd2In(t, t.TempDir(), nil, append([]string{"journal", "list"}, storeArgs...)...)
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 3, out)
	for _, col := range []string{"REQUEST ID", "BANK", "AGE", "OPERATION", "AMOUNT", "CREDITOR", "STATE"} {
		assert.Contains(t, lines[0], col)
	}
	row := lines[1]
	for _, want := range []string{id, "testbank", "domestic payment", "12.50 NOK", "****8903", "outcome unknown"} {
		assert.Contains(t, row, want)
	}
	assert.NotContains(t, out, "journal.Entry{", "no Go")
	assert.NotContains(t, out, "12345678903", "the creditor's account is masked")
	assert.NotContains(t, out, "Ola Eksempel", "no payee name")
	assert.Contains(t, out, "1 payment(s) in doubt")
	assert.Contains(t, out, "Next: psd2 journal resolve REQUEST-ID")

	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "--json"}, storeArgs...)...)
	require.Equal(t, exitOK, code, errOut)
	var rows []entryRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, "testbank", rows[0].Bank)
	assert.Equal(t, "sandbox", rows[0].Environment)
	assert.Equal(t, "12.50", rows[0].Amount)
	assert.Equal(t, "NOK", rows[0].Currency)
	assert.Equal(t, "****8903", rows[0].Creditor)
	assert.Equal(t, stateUnknown, rows[0].State)
	assert.Equal(t, "payments.CreateNorwegianDomestic", rows[0].Operation)
	assert.NotEmpty(t, rows[0].Age)

	// resolve: the dropped create never arrived; the resend creates the
	// payment, which awaits the PSU's SCA.
	text, errOut, code := psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "resolve"}, append(storeArgs, bank...)...), id)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, text, "scaRedirect: https://")
	assert.Contains(t, text, "Tell the PSU: Your domestic payment is waiting for your approval")
	assert.Contains(t, text, "Next: Your service must bring the PSU to the scaRedirect")
	assert.NotContains(t, text, "payments.Resolution{")
	var redirect string
	for _, l := range strings.Split(text, "\n") {
		if r, ok := strings.CutPrefix(l, "scaRedirect: "); ok {
			redirect = r
		}
	}
	require.NotEmpty(t, redirect)

	// A second resolve reads the created payment's status: it says the
	// payment awaits approval, as text and as JSON.
	out, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "resolve", "--json"}, append(storeArgs, bank...)...), id)...)
	require.Equal(t, exitOK, code, errOut)
	var rep resolveReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "status", string(rep.Kind))
	assert.Equal(t, "awaiting-approval", rep.Finding)
	assert.True(t, rep.Status != "" || rep.StatusNote != "", "a status, or why there is none: %s", out)
	assert.NotEmpty(t, rep.ID)
	assert.NotEmpty(t, rep.TellPSU)
	assert.NotEmpty(t, rep.NextStep)
	assert.Equal(t, "testbank", rep.Entry.Bank)

	// The PSU approves: resolve says it is accepted or paid.
	_, err = s.Control().Authorize(t.Context(), redirect, emulator.CustomerKari)
	require.NoError(t, err)
	out, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "resolve", "--json"}, append(storeArgs, bank...)...), id)...)
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.NotEmpty(t, rep.Status, out)
	assert.Contains(t, []string{"paid", "accepted"}, rep.Finding, out)

	// Settled: settle refuses in words.
	_, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "settle", "-by", "ops", "-reason", "x"}, storeArgs...), id)...)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, id+" is not in doubt")

	// A claimed entry: listed as being resolved; settle and resolve
	// refuse, naming the resend.
	claimed := inDoubt(t, s, creds, st)
	until := time.Now().Add(time.Hour).UTC()
	editEntry(t, st, claimed, func(rec map[string]any) {
		rec["claim"] = map[string]any{"token": "other-resolver", "requestId": "resend-0001", "until": until}
	})
	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "--json"}, storeArgs...)...)
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, stateResending, rows[0].State)
	require.NotNil(t, rows[0].Claim)
	assert.Equal(t, "resend-0001", rows[0].Claim.ResendRequestID)
	out, _, _ = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list"}, storeArgs...)...)
	assert.Contains(t, out, "being resolved: a resend is on its way")
	for _, cmd := range [][]string{{"journal", "settle", "-by", "ops", "-reason", "checked"}, append([]string{"journal", "resolve"}, bank...)} {
		_, errOut, code = psd2In(t, t.TempDir(), nil, append(append(cmd, storeArgs...), claimed)...)
		assert.Equal(t, exitRuntime, code, errOut)
		assert.Contains(t, errOut, "a resend of "+claimed+" is on its way right now (X-Request-ID resend-0001): ")
		if cmd[1] == "settle" {
			assert.Contains(t, errOut, "your settlement was not recorded as its resolution (the entry's trail keeps it, as refused); look again after "+until.Format(time.RFC3339))
		} else {
			assert.Contains(t, errOut, "nothing was changed or sent; look again after "+until.Format(time.RFC3339))
		}
	}

	// A conflict: a person settled it, and a resend found it created
	// afterwards.
	at := time.Now().UTC()
	editEntry(t, st, claimed, func(rec map[string]any) {
		delete(rec, "claim")
		rec["resolution"] = map[string]any{"kind": "settled-by-person", "reason": "settled by ops: nothing arrived", "at": at}
		rec["trail"] = []any{map[string]any{"kind": "created", "paymentId": "pay-77", "resendRequestId": "resend-0001", "at": at.Add(time.Minute)}}
	})
	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "-all"}, storeArgs...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "conflict: settled by a person, but a later resend found otherwise")
	out, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "show"}, storeArgs...), claimed)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "resolution  "+at.Format(time.RFC3339)+" settled by ops: nothing arrived")
	assert.Contains(t, out, "CONFLICT")
	assert.Contains(t, out, "created by a resend (the first never arrived), id pay-77")

	// An unknown request id, in words.
	_, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "show"}, storeArgs...), "no-such-id")...)
	assert.Equal(t, exitRuntime, code)
	assert.Equal(t, "psd2 journal: no journal entry with request id no-such-id in this store (psd2 journal list -all shows them)\n", errOut)
}

// A payment whose outcome just became unknown is listed in doubt at once,
// with the time from which psd2 journal resolve acts on it (the bank may
// still be working on it until then); resolve before it sends nothing.
func TestJournalListSaysWhenAnUnknownOutcomeIsResolvable(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubtAt(t, s, creds, st, time.Now)
	posts := len(s.Control().Payments())

	out, errOut, code := psd2In(t, t.TempDir(), nil, "journal", "list", "-store", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "1 payment(s) in doubt")
	assert.Contains(t, out, id)
	out, errOut, code = psd2In(t, t.TempDir(), nil, "journal", "show", id, "-store", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the bank may still be working on it: psd2 journal resolve acts from")

	_, errOut, code = psd2In(t, t.TempDir(), nil, "journal", "resolve", id, "-store", dir,
		"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "may still be on its way")
	assert.Len(t, s.Control().Payments(), posts, "nothing sent again")
}
