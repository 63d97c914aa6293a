package events_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestPaymentInDoubtAndUnknown makes a create whose connection drops
// after the bank acted: Error gives PaymentOutcomeUnknown, and InDoubt
// finds the journal entry (as at start-up after a crash), once.
func TestPaymentInDoubtAndUnknown(t *testing.T) {
	s, c := testtpp.Emulator(t)
	ctx := t.Context()
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)
	pay, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	res, err := s.Control().Seed(ctx, c.Credentials().Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Accounts: []emulator.SeedAccount{{Balance: "500.00"}}, Consent: &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)}}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	sess := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID, Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: "POST", PathPrefix: "/v1/payments/"})
	reqID := "5d2c8a1e-7b3f-4e9a-a6c4-1f8e0b2d9c37"
	_, perr := pay.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("10.00", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "91026527436", Currency: "NOK"},
		CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:   payments.AccountReference{BBAN: cu.Accounts[0].BBAN, Currency: "NOK"},
	}, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.1"}), client.WithRequestID(reqID))
	require.ErrorIs(t, perr, client.ErrOutcomeUnknown)

	col := &collector{}
	em, err := events.NewEmitter(col.handler())
	require.NoError(t, err)
	had, err := em.PaymentError(ctx, reqID, perr)
	require.NoError(t, err)
	assert.True(t, had)
	n, err := em.InDoubt(ctx, j)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = em.InDoubt(ctx, j) // a second start-up: nothing new
	require.NoError(t, err)
	require.Len(t, col.evs, 2)
	assert.Equal(t, events.PaymentOutcomeUnknown{Payment: reqID, Operation: "payments.CreateNorwegianDomestic"}, col.evs[0])
	assert.Equal(t, events.PaymentInDoubt{Payment: reqID, Operation: "payments.CreateNorwegianDomestic"}, col.evs[1])
}
