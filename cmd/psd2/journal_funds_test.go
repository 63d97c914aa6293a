package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// A journaled payment the PSU approved but the bank cannot fund (ACCP
// with fundsAvailable false, docs/interface.md sections 2.6 and 3: its
// batch tries again) is not "approved and on its way, nothing to do":
// psd2 journal resolve says the bank cannot fund it, as text and as JSON.
// On the code before it told the PSU "Your payment is approved and on its
// way" and the operator "Nothing to do".
func TestJournalResolveSaysWhenFundsAreUnavailable(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	sess := testpsu.Login(t, s, c, emulator.CustomerKari)
	j, err := journal.New(st, journal.WithClient(c))
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	id := uuid.NewString()
	init, err := svc.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("99999.00", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "91026527436", Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount: payments.AccountReference{BBAN: "95312776066", Currency: "NOK"}, RemittanceInformationUnstructured: "Test " + id[:8],
	}, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}), client.WithRequestID(id))
	require.NoError(t, err)
	require.NoError(t, j.Flush(t.Context()))
	_, err = s.Control().Authorize(t.Context(), init.SCARedirect(), emulator.CustomerKari)
	require.NoError(t, err)
	s.Control().RunBatch()
	st2, err := svc.Status(t.Context(), init.Ref())
	require.NoError(t, err)
	require.Equal(t, payments.StatusACCP, st2.TransactionStatus)
	require.True(t, st2.FundsUnavailable(), "the emulator's batch found too little money")

	args := []string{"journal", "resolve", "-store", dir, "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile, id}
	out, errOut, code := psd2(t, args...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.NotContains(t, out, "on its way")
	assert.NotContains(t, out, "Next: Nothing to do")
	assert.Contains(t, out, "cannot fund")

	out, _, _ = psd2(t, append([]string{"journal", "resolve", "--json"}, args[2:]...)...)
	var rep resolveReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, "funds-unavailable", rep.Finding)
	assert.Equal(t, "ACCP", rep.Status)
}
