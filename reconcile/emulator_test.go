package reconcile_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestSettledAgainstEmulator closes the loop end to end: a KID payment
// made through the payments service (with a journal) from one sandbox
// customer to a merchant's sandbox account is executed by the emulator's
// batch, the merchant's account is read through the accounts service and
// txsync, and the reconciler reports the payment settled by its KID.
// Every clock is the bank's, so the booking date and the window agree.
func TestSettledAgainstEmulator(t *testing.T) {
	t.Parallel()
	s, c := testtpp.Emulator(t)
	ctx := t.Context()
	now := s.Control().Now
	st := store.NewMemoryStore()

	res, err := s.Control().Seed(ctx, c.Credentials().Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{
		{Accounts: []emulator.SeedAccount{{Balance: "5000.00"}}, Consent: &emulator.SeedConsent{At: now().Add(-time.Minute)}},
		{Accounts: []emulator.SeedAccount{{Balance: "0.00", Name: "Driftskonto"}}, Consent: &emulator.SeedConsent{At: now().Add(-time.Minute)}},
	}})
	require.NoError(t, err)
	payer, merchant := res.Customers[0], res.Customers[1]
	sessionOf := func(cu emulator.SeededCustomer) client.RequestOption {
		sess := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID, Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		return sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.1"})
	}
	payerOpts, merchantOpts := sessionOf(payer), sessionOf(merchant)

	// The TPP reads the merchant's account: txsync links it, the
	// reconciler watches it, and a first read finds it empty.
	ais, err := accounts.New(c)
	require.NoError(t, err)
	listed, err := ais.List(ctx, nil, merchantOpts)
	require.NoError(t, err)
	require.Len(t, listed, 1)
	sy, err := txsync.New(st, txsync.WithClock(now))
	require.NoError(t, err)
	linked, err := sy.Link(ctx, "merchant", listed, nil)
	require.NoError(t, err)
	key := linked.Accounts[0].Key
	r, err := reconcile.New(st, reconcile.WithClock(now))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, key, listed[0]))
	read := func() (*txsync.Delta, *reconcile.Round) {
		t.Helper()
		d, err := sy.Sync(ctx, ais, listed[0].ResourceID, merchantOpts)
		require.NoError(t, err)
		round, err := r.Apply(ctx, d)
		require.NoError(t, err)
		return d, round
	}
	_, round := read()
	assert.Empty(t, round.Settled)

	// The payer pays an invoice by KID; the journal has the create.
	j, err := journal.New(st, journal.WithClient(c))
	require.NoError(t, err)
	pis, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	const reqID, kid = "6f1c0e2a-0000-4000-8000-0000000000a1", "1234567890128"
	init, err := pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: nok("120.00"), CreditorName: "Eksempel Handel AS",
		CreditorAccount: payments.AccountReference{BBAN: merchant.Accounts[0].BBAN, Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:                        payments.AccountReference{BBAN: payer.Accounts[0].BBAN, Currency: "NOK"},
		RemittanceInformationStructuredArray: []payments.StructuredReference{payments.KID(kid)},
	}, payerOpts, client.WithRequestID(reqID))
	require.NoError(t, err)
	n, err := r.TrackJournal(ctx, j)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Tracked{New: 1}, n)

	_, err = s.Control().Authorize(ctx, init.SCARedirect(), payer.Number)
	require.NoError(t, err)
	status := func() payments.TransactionStatus {
		t.Helper()
		ps, err := pis.Status(ctx, init.Ref(), payerOpts)
		require.NoError(t, err)
		require.NoError(t, r.Status(ctx, reqID, ps.TransactionStatus))
		return ps.TransactionStatus
	}
	assert.Equal(t, payments.StatusACTC, status())
	_, round = read()
	assert.Empty(t, round.Settled, "not booked before the batch")

	s.Control().RunBatch()
	assert.Equal(t, payments.StatusACSC, status())
	d, round := read()

	// The credit is on the merchant's account, with the KID.
	require.Len(t, d.Added, 1)
	credit := d.Added[0].Transaction
	assert.Equal(t, "120.00 NOK", credit.TransactionAmount.String())
	var structured string
	require.NoError(t, json.Unmarshal(credit.RemittanceInformationStructured, &structured))
	assert.Equal(t, kid, structured)

	require.Len(t, round.Settled, 1)
	got := round.Settled[0]
	assert.Equal(t, []any{reqID, reconcile.Settled, reconcile.ByKID, d.Added[0].Key, "120.00 NOK"},
		[]any{got.Payment, got.Settlement, got.By, got.Booking, got.Booked.String()})
	assert.Empty(t, round.Unmatched)

	// A read that brings nothing new changes nothing.
	_, round = read()
	assert.Empty(t, round.Settled)
}
