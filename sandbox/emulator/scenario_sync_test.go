package emulator

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBank is a server with one seeded private customer (two accounts,
// no history) and a client with its session, without the PSU.
type syncBank struct {
	s   *Server
	c   *tppClient
	cu  SeededCustomer
	now time.Time
}

func newSyncBank(t *testing.T, opts ...Option) *syncBank {
	t.Helper()
	clock := newFakeClock()
	s := startServer(t, append([]Option{WithClock(clock.Now)}, opts...)...)
	c := newTPPClient(t, s, "Sync")
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Accounts: []SeedAccount{{Balance: "100.00"}, {}}, CardAccounts: []SeedCardAccount{{}}, Consent: &SeedConsent{At: clock.Now()}}}})
	require.NoError(t, err)
	return &syncBank{s: s, c: c, cu: res.Customers[0], now: clock.Now()}
}

// page reads the first account's transactions (query after "?").
func (b *syncBank) page(t *testing.T, query string) txPage {
	t.Helper()
	r := b.c.get("/v1/accounts/"+b.cu.Accounts[0].ID+"/transactions?"+query, noPSU(b.cu.Session, "")...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	return decodeTxPage(t, r)
}

func TestScenarioIDChangeAndTwins(t *testing.T) {
	t.Parallel()
	b := newSyncBank(t)
	id := b.cu.Accounts[0].ID
	refs, err := b.s.Control().AddTwins(id, SeedTransaction{BookingDate: b.now, Amount: "-49.00", CounterpartyName: "Kaffebar", Remittance: "Kaffe"}, 2)
	require.NoError(t, err)
	require.Len(t, refs, 2)
	assert.NotEqual(t, refs[0], refs[1])
	p := b.page(t, "bookingStatus=both")
	require.Len(t, p.Transactions.Booked, 2)
	a, c := p.Transactions.Booked[0], p.Transactions.Booked[1]
	assert.Equal(t, a.TransactionAmount, c.TransactionAmount)
	assert.Equal(t, a.RemittanceInformationUnstructured, c.RemittanceInformationUnstructured)
	assert.ElementsMatch(t, refs, []string{a.TransactionID, c.TransactionID})

	next, err := b.s.Control().ChangeTransactionID(id, refs[0])
	require.NoError(t, err)
	assert.NotEqual(t, refs[0], next)
	p = b.page(t, "bookingStatus=booked")
	got := []string{p.Transactions.Booked[0].TransactionID, p.Transactions.Booked[1].TransactionID}
	assert.ElementsMatch(t, []string{next, refs[1]}, got)

	_, err = b.s.Control().ChangeTransactionID(id, refs[0])
	require.ErrorIs(t, err, ErrUnknownTransaction, "the old id is gone")
	_, err = b.s.Control().ChangeTransactionID("enc!!nope", next)
	require.ErrorIs(t, err, ErrUnknownTransaction)
	_, err = b.s.Control().AddTwins(id, SeedTransaction{Amount: "-1.00"}, 0)
	require.Error(t, err)
	_, err = b.s.Control().AddTransaction(id, SeedTransaction{Amount: "abc"})
	var se *SeedError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Amount", se.Path)
}

func TestScenarioBookAndDropPending(t *testing.T) {
	t.Parallel()
	b := newSyncBank(t)
	id := b.cu.Accounts[0].ID
	fuel, err := b.s.Control().AddTransaction(id, SeedTransaction{Pending: true, BookingDate: b.now, Amount: "-300.00", CounterpartyName: "Circle K"})
	require.NoError(t, err)
	hotel, err := b.s.Control().AddTransaction(id, SeedTransaction{Pending: true, BookingDate: b.now, Amount: "-990.00", CounterpartyName: "Hotell"})
	require.NoError(t, err)
	p := b.page(t, "bookingStatus=both")
	require.Len(t, p.Transactions.Pending, 2)
	for _, e := range p.Transactions.Pending {
		assert.Empty(t, e.TransactionID, "pending entries carry no id: the reference is the emulator's own")
	}
	_, err = b.s.Control().ChangeTransactionID(id, fuel)
	require.ErrorIs(t, err, ErrUnknownTransaction, "not a booked entry")

	booked, err := b.s.Control().BookPending(id, fuel, b.now.AddDate(0, 0, 1), "-287.40")
	require.NoError(t, err)
	require.NoError(t, b.s.Control().DropPending(id, hotel))
	require.ErrorIs(t, b.s.Control().DropPending(id, hotel), ErrUnknownTransaction)
	p = b.page(t, "bookingStatus=both")
	assert.Empty(t, p.Transactions.Pending)
	require.Len(t, p.Transactions.Booked, 1)
	e := p.Transactions.Booked[0]
	assert.Equal(t, booked, e.TransactionID)
	assert.Equal(t, "-287.40", e.TransactionAmount.Value.StringFixed(2))
	assert.Equal(t, b.now.AddDate(0, 0, 1).Format(time.DateOnly), e.BookingDate)
	assert.Equal(t, "Circle K", e.CreditorName)
	_, err = b.s.Control().BookPending(id, fuel, time.Time{}, "")
	require.ErrorIs(t, err, ErrUnknownTransaction)
}

func TestScenarioUnfilteredPending(t *testing.T) {
	t.Parallel()
	b := newSyncBank(t)
	id := b.cu.Accounts[0].ID
	_, err := b.s.Control().AddTransaction(id, SeedTransaction{Pending: true, BookingDate: b.now.AddDate(0, 0, -20), Amount: "-1500.00"})
	require.NoError(t, err)
	q := "bookingStatus=both&dateFrom=" + b.now.AddDate(0, 0, -5).Format(time.DateOnly)
	assert.Empty(t, b.page(t, q).Transactions.Pending, "the sandbox filters pending entries by date")
	b.s.Control().SetUnfilteredPending(true)
	assert.Len(t, b.page(t, q).Transactions.Pending, 1, "the production platform's known issue")
}

func TestScenarioReconsent(t *testing.T) {
	t.Parallel()
	b := newSyncBank(t)
	old := b.cu
	cu, err := b.s.Control().Reconsent(b.c.creds.Certificate, old.CustomerID)
	require.NoError(t, err)
	require.Len(t, cu.Accounts, 2)
	require.Len(t, cu.CardAccounts, 1)
	for i := range cu.Accounts {
		assert.NotEqual(t, old.Accounts[i].ID, cu.Accounts[i].ID)
		assert.Equal(t, old.Accounts[i].IBAN, cu.Accounts[i].IBAN)
	}
	assert.NotEqual(t, old.CardAccounts[0].ID, cu.CardAccounts[0].ID)
	assert.Equal(t, old.CardAccounts[0].MaskedPan, cu.CardAccounts[0].MaskedPan)
	assert.Equal(t, old.Session.PSUID, cu.Session.PSUID)
	assert.NotEqual(t, old.Session.TPPSessionID, cu.Session.TPPSessionID)

	// The new session lists the accounts under their new ids; the old
	// ids are unknown.
	b.cu = cu
	assert.Len(t, b.page(t, "bookingStatus=both").Transactions.Booked, 0)
	r := b.c.get("/v1/accounts/"+old.Accounts[0].ID+"/transactions?bookingStatus=both", noPSU(cu.Session, "")...)
	assert.Equal(t, http.StatusNotFound, r.status, string(r.body))
	psu := psuHeaders(cu.Session.PSUID, cu.Session.TPPSessionID)
	assert.ElementsMatch(t, []string{cu.Accounts[0].ID, cu.Accounts[1].ID}, b.c.accountIDs(psu...))

	_, err = b.s.Control().Reconsent(nil, old.CustomerID)
	require.ErrorIs(t, err, ErrUnknownTPP)
	_, err = b.s.Control().Reconsent(b.c.creds.Certificate, "enc!!nobody")
	require.ErrorIs(t, err, ErrUnknownTransaction)
}

func TestScenarioRespectsLimits(t *testing.T) {
	t.Parallel()
	b := newSyncBank(t)
	b.s.mu.Lock()
	st, _ := b.s.scenarioAccount(b.cu.Accounts[0].ID)
	b.s.limits.Transactions = st.txCount + 2 // room for 2 more
	b.s.mu.Unlock()
	id := b.cu.Accounts[0].ID
	_, err := b.s.Control().AddTwins(id, SeedTransaction{Amount: "-1.00"}, 3)
	require.ErrorIs(t, err, ErrSeedLimit)
	_, err = b.s.Control().AddTwins(id, SeedTransaction{Amount: "-1.00"}, 2)
	require.NoError(t, err)
	_, err = b.s.Control().AddTransaction(id, SeedTransaction{Amount: "-1.00"})
	require.ErrorIs(t, err, ErrSeedLimit)
}
