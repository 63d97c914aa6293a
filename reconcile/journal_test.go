package reconcile_test

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestPaymentOf reads journal entries: the payments that may exist, with
// their KID, end-to-end id, text and resolved status; the others are
// ErrNotPayment.
func TestPaymentOf(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)
	body := func(v any) []byte {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	ndct := body(payments.NorwegianDomestic{InstructedAmount: nok("1250.00"), CreditorName: "Eksempel AS",
		CreditorAccount: payments.AccountReference{BBAN: merchantBBAN, Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:                        payments.AccountReference{BBAN: "12345678903", Currency: "NOK"},
		RemittanceInformationStructuredArray: []payments.StructuredReference{payments.KID("1234567890128")},
		RequestedExecutionDate:               date.Date{Year: 2026, Month: 3, Day: 18}})
	sepa := body(payments.SEPA{EndToEndIdentification: "E2E-42", InstructedAmount: money.MustParse("10.00", "EUR"), CreditorName: "X",
		CreditorAccount: payments.AccountReference{IBAN: merchantIBAN, Currency: "EUR"},
		DebtorAccount:   payments.AccountReference{IBAN: "NO9312345678903", Currency: "NOK"}, RemittanceInformationUnstructured: "Order 7"})
	base := "https://bank.example/api/v1/"
	entry := func(url string, b []byte, out journal.Outcome, res *journal.Resolution) journal.Entry {
		return journal.Entry{RequestID: "r1", URL: url, Body: b, Created: at, Outcome: out, Resolution: res}
	}
	p, err := reconcile.PaymentOf(entry(base+"payments/norwegian-domestic-credit-transfers", ndct, journal.OutcomeCreated, nil))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Payment{RequestID: "r1", Created: at, Product: payments.ProductNorwegianDomestic, Amount: nok("1250.00"),
		CreditorBBAN: merchantBBAN, KID: "1234567890128", ExecutionDate: date.Date{Year: 2026, Month: 3, Day: 18}}, p)

	p, err = reconcile.PaymentOf(entry(base+"payments/sepa-credit-transfers", sepa, "",
		&journal.Resolution{Kind: journal.ResolvedStatus, Status: "ACSC", At: at.Add(time.Hour)}))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Payment{RequestID: "r1", Created: at, Product: payments.ProductSEPA, Amount: money.MustParse("10.00", "EUR"),
		CreditorIBAN: merchantIBAN, EndToEndID: "E2E-42", Remittance: "Order 7", Status: payments.StatusACSC, StatusAt: at.Add(time.Hour)}, p)

	p, err = reconcile.PaymentOf(entry(base+"payments/sepa-credit-transfers", sepa, journal.OutcomeUnknown, nil))
	require.NoError(t, err, "in doubt: it may exist")
	assert.Equal(t, "E2E-42", p.EndToEndID)

	for name, e := range map[string]journal.Entry{
		"periodic":  entry(base+"periodic-payments/sepa-credit-transfers", sepa, journal.OutcomeCreated, nil),
		"bulk":      entry(base+"bulk-payments/sepa-credit-transfers", sepa, journal.OutcomeCreated, nil),
		"basket":    entry(base+"signing-baskets", []byte(`{"paymentIds":["x"]}`), journal.OutcomeCreated, nil),
		"status":    entry(base+"payments/sepa-credit-transfers/abc/status", sepa, journal.OutcomeCreated, nil),
		"refused":   entry(base+"payments/sepa-credit-transfers", sepa, journal.OutcomeRefused, nil),
		"not sent":  entry(base+"payments/sepa-credit-transfers", sepa, journal.OutcomeNotSent, nil),
		"resolved":  entry(base+"payments/sepa-credit-transfers", sepa, journal.OutcomeUnknown, &journal.Resolution{Kind: journal.ResolvedNotCreated}),
		"by resend": entry(base+"payments/sepa-credit-transfers", sepa, journal.OutcomeUnknown, &journal.Resolution{Kind: journal.ResolvedCreated, ResendRequestID: "r2"}),
		"bad url":   entry("://", sepa, journal.OutcomeCreated, nil),
	} {
		_, err := reconcile.PaymentOf(e)
		assert.ErrorIs(t, err, reconcile.ErrNotPayment, name)
	}
	_, err = reconcile.PaymentOf(entry(base+"payments/sepa-credit-transfers", []byte("{"), journal.OutcomeCreated, nil))
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
}

// TestTrackJournal creates payments through the payments service with a
// journal, against the emulator: TrackJournal tracks the one to the
// watched account once, reports the other as not applicable, and Report
// lists both.
func TestTrackJournal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	c, j, create := journalCreator(t, st)
	create("6f1c0e2a-0000-4000-8000-000000000001", merchantBBAN)
	create("6f1c0e2a-0000-4000-8000-000000000002", "91026527436")

	r, err := reconcile.New(st, reconcile.WithClock(c.Now))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}))
	n, err := r.TrackJournal(ctx, j)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Tracked{New: 1, NotApplicable: 1}, n)
	n, err = r.TrackJournal(ctx, j)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Tracked{Known: 1, NotApplicable: 1}, n)

	var list []reconcile.State
	for st, err := range r.Report(ctx, j, date.Date{}, date.Date{}) {
		require.NoError(t, err)
		list = append(list, st)
	}
	slices.SortFunc(list, func(a, b reconcile.State) int { return a.Created.Compare(b.Created) })
	require.Len(t, list, 2)
	assert.Equal(t, reconcile.Awaiting, list[0].Settlement)
	assert.Equal(t, reconcile.NotApplicable, list[1].Settlement)
	assert.Equal(t, "6f1c0e2a-0000-4000-8000-000000000002", list[1].Payment)
	tomorrow := date.Of(c.Now().In(date.Oslo()).AddDate(0, 0, 1))
	for st, err := range r.Report(ctx, j, tomorrow, date.Date{}) {
		require.NoError(t, err)
		t.Errorf("created today, listed from tomorrow: %v", st)
	}
}

// TestReportNeverLeavesOutAnUnreadablePayment: a payment of the journal
// whose recorded body cannot be read (the store garbled it) is not left
// out of the period's report as if it did not exist: Report yields an
// error naming it. Outside the period it is not read.
func TestReportNeverLeavesOutAnUnreadablePayment(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	const reqID = "6f1c0e2a-0000-4000-8000-0000000000aa"
	c, j, r := journaledPayment(t, st, reqID)

	// The store garbles the recorded body of the create.
	garbled := 0
	for key, err := range st.Keys(ctx, "") {
		require.NoError(t, err)
		raw, err := st.Get(ctx, key)
		require.NoError(t, err)
		var rec map[string]any
		if json.Unmarshal(raw, &rec) != nil || rec["requestId"] != reqID || rec["body"] == nil {
			continue
		}
		rec["body"] = []byte(`{"instructedAmount":`)
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		require.NoError(t, st.Put(ctx, key, b, 0))
		garbled++
	}
	require.Equal(t, 1, garbled)

	var list []reconcile.State
	var failed error
	for st, err := range r.Report(ctx, j, date.Date{}, date.Date{}) {
		if err != nil {
			failed = err
			break
		}
		list = append(list, st)
	}
	require.Error(t, failed, "listed %v: the unreadable payment left out", list)
	assert.ErrorIs(t, failed, reconcile.ErrInvalid)
	assert.Contains(t, failed.Error(), reqID)

	tomorrow := date.Of(c.Now().In(date.Oslo()).AddDate(0, 0, 1))
	for st, err := range r.Report(ctx, j, tomorrow, date.Date{}) {
		require.NoError(t, err, "created today: not read for a period from tomorrow")
		t.Errorf("listed %v", st)
	}
}

// trackingStore is a store on which the service's tracker runs once,
// right when Report turns from the tracked payments to the journal: the
// moment another process may track a payment Report has not seen yet.
type trackingStore struct {
	store.Store
	once  bool
	track func()
}

func (s *trackingStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	if !s.once && s.track != nil && !strings.HasPrefix(prefix, "reconcile/") {
		s.once = true
		s.track()
	}
	return s.Store.Keys(ctx, prefix)
}

// TestReportSeesAPaymentTrackedMeanwhile: a payment the service tracks
// while Report reads (after the tracked payments, before the journal) is
// listed, not skipped as "tracked, listed above" when it never was.
func TestReportSeesAPaymentTrackedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &trackingStore{Store: store.NewMemoryStore()}
	const reqID = "6f1c0e2a-0000-4000-8000-0000000000bb"
	c, j, r := journaledPayment(t, st, reqID)
	service, err := reconcile.New(st.Store, reconcile.WithClock(c.Now))
	require.NoError(t, err)
	st.track = func() {
		n, err := service.TrackJournal(ctx, j)
		require.NoError(t, err)
		require.Equal(t, 1, n.New)
	}

	var list []reconcile.State
	for st, err := range r.Report(ctx, j, date.Date{}, date.Date{}) {
		require.NoError(t, err)
		list = append(list, st)
	}
	require.True(t, st.once, "the service tracked it while Report read")
	require.Len(t, list, 1, "the payment tracked meanwhile is listed once")
	assert.Equal(t, reqID, list[0].Payment)
	assert.Equal(t, reconcile.Awaiting, list[0].Settlement)
}

// journalCreator returns a client of an emulator with a customer of its
// own, a journal on st, and create, which creates a payment of 120.00
// NOK from the customer to creditor, with request id reqID, through the
// journal.
func journalCreator(t *testing.T, st store.Store) (*client.Client, *journal.Journal, func(reqID, creditor string)) {
	t.Helper()
	s, c := testtpp.Emulator(t)
	ctx := t.Context()
	j, err := journal.New(st, journal.WithClient(c))
	require.NoError(t, err)
	pay, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	res, err := s.Control().Seed(ctx, c.Credentials().Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Accounts: []emulator.SeedAccount{{Balance: "5000.00"}}, Consent: &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)}}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	sess := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID, Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
	ro := sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.1"})
	return c, j, func(reqID, creditor string) {
		t.Helper()
		_, err := pay.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
			InstructedAmount: nok("120.00"), CreditorName: "Eksempel AS",
			CreditorAccount: payments.AccountReference{BBAN: creditor, Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
			DebtorAccount:                        payments.AccountReference{BBAN: cu.Accounts[0].BBAN, Currency: "NOK"},
			RemittanceInformationStructuredArray: []payments.StructuredReference{payments.KID("1234567890128")},
		}, ro, client.WithRequestID(reqID))
		require.NoError(t, err)
	}
}

// journaledPayment creates a payment to the watched merchant account
// with request id reqID through a journal on st (journalCreator), and
// returns the client, the journal and a Reconciler on st watching the
// merchant account.
func journaledPayment(t *testing.T, st store.Store, reqID string) (*client.Client, *journal.Journal, *reconcile.Reconciler) {
	t.Helper()
	c, j, create := journalCreator(t, st)
	create(reqID, merchantBBAN)
	r, err := reconcile.New(st, reconcile.WithClock(c.Now))
	require.NoError(t, err)
	require.NoError(t, r.Watch(t.Context(), acct, accounts.Account{BBAN: merchantBBAN}))
	return c, j, r
}
