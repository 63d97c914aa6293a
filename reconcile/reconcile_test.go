package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestKIDSettles: a credit echoing the payment's KID and amount settles
// it, once, with its event.
func TestKIDSettles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	st := f.pay("p1", nok("1250.00"), "1234567890128", "")
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Equal(t, day("2026-03-17"), st.Deadline, "domestic: one banking day")
	f.at("2026-03-17")
	r := f.apply(credit("c1", "2026-03-17", nok("1250.00"), "KID 1234567890128"))
	require.Len(t, r.Settled, 1)
	got := r.Settled[0]
	assert.Equal(t, reconcile.Settled, got.Settlement)
	assert.Equal(t, reconcile.ByKID, got.By)
	assert.Equal(t, txsync.Key(string(acct)+"-c1"), got.Booking)
	assert.Equal(t, day("2026-03-17"), got.BookingDate)
	assert.True(t, nok("1250.00").Equal(got.Booked))
	assert.False(t, got.Late)
	assert.Empty(t, r.Unmatched)
	assert.Equal(t, []events.Event{events.PaymentSettled{Payment: "p1", Booking: string(got.Booking), BookingDate: got.BookingDate,
		Amount: got.Booked, Instructed: nok("1250.00"), MatchedBy: "kid"}}, f.col.events())

	again := f.apply(credit("c1", "2026-03-17", nok("1250.00"), "KID 1234567890128"))
	assert.True(t, again.Empty(), "the same booking again matches nothing")
	assert.Equal(t, 1, again.Repeated)
	assert.Len(t, f.col.events(), 1)
	assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
}

// TestStrongestEvidenceFirst: a credit whose text and amount fit one
// payment and whose KID fits another goes to the KID's; the end-to-end
// id beats the text.
func TestStrongestEvidenceFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("text", nok("500.00"), "", "Faktura 1001 fra Eksempel")
	f.pay("kid", nok("500.00"), "00000012345", "")
	r := f.apply(credit("c1", "2026-03-16", nok("500.00"), "Faktura 1001 fra Eksempel KID 00000012345"))
	require.Len(t, r.Settled, 1)
	assert.Equal(t, "kid", r.Settled[0].Payment)
	assert.Equal(t, reconcile.Awaiting, f.state("text").Settlement)

	g := newFixture(t, "2026-03-16")
	_, err := g.r.Track(t.Context(), reconcile.Payment{RequestID: "t", Created: g.clk.Now(), Product: payments.ProductSEPA,
		Amount: money.MustParse("20.00", "EUR"), CreditorIBAN: merchantIBAN, Remittance: "Order 77"})
	require.NoError(t, err)
	g.clk.Add(1)
	_, err = g.r.Track(t.Context(), reconcile.Payment{RequestID: "e", Created: g.clk.Now(), Product: payments.ProductSEPA,
		Amount: money.MustParse("20.00", "EUR"), CreditorIBAN: merchantIBAN, EndToEndID: "E2E-9"})
	require.NoError(t, err)
	c := credit("c", "2026-03-16", money.MustParse("20.00", "EUR"), "Order 77")
	c.Transaction.EndToEndID = "E2E-9"
	r = g.apply(c)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, "e", r.Settled[0].Payment)
	assert.Equal(t, reconcile.ByEndToEndID, r.Settled[0].By)
}

// TestTwinsOneToOne: two identical payments, two identical credits:
// each payment gets one, in initiation order; a third identical credit
// stays unmatched.
func TestTwinsOneToOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("first", nok("49.00"), "", "Kaffe")
	f.pay("second", nok("49.00"), "", "Kaffe")
	a, b := credit("a", "2026-03-16", nok("49.00"), "Kaffe"), credit("b", "2026-03-16", nok("49.00"), "Kaffe")
	b.Occurrence = 1
	r := f.apply(a, b)
	assert.Equal(t, []string{"first=" + string(acct) + "-a", "second=" + string(acct) + "-b"}, keys(r.Settled))
	c := credit("c", "2026-03-16", nok("49.00"), "Kaffe")
	c.Occurrence = 2
	r = f.apply(c)
	assert.Empty(t, r.Settled)
	require.Len(t, r.Unmatched, 1)
	assert.Equal(t, c.Key, r.Unmatched[0].Key)
}

// TestUnmatchedNeverForced: credits of the payments' amounts from
// elsewhere, without their references, settle nothing and are reported.
func TestUnmatchedNeverForced(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("kid", nok("300.00"), "4455667788", "")
	f.pay("text", nok("300.00"), "", "Husleie mars")
	r := f.apply(credit("x", "2026-03-16", nok("300.00"), "Tilbakebetaling"),
		credit("y", "2026-03-16", nok("300.00"), "KID 4455667789"),
		credit("z", "2026-03-16", nok("300.00"), ""))
	assert.Empty(t, r.Settled)
	assert.Len(t, r.Unmatched, 3)
	assert.Equal(t, reconcile.Awaiting, f.state("kid").Settlement)
}

// TestNoCurrencyGuessed: a euro payment credited in kroner settles only
// by its KID or end-to-end id, with both amounts; by its text it does
// not (the amounts cannot be compared without a rate).
func TestNoCurrencyGuessed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	for _, p := range []reconcile.Payment{
		{RequestID: "text", Remittance: "Invoice 5"},
		{RequestID: "kid", KID: "99887766"},
	} {
		f.clk.Add(1)
		p.Created, p.Product, p.Amount, p.CreditorIBAN = f.clk.Now(), payments.ProductSEPA, money.MustParse("100.00", "EUR"), merchantIBAN
		_, err := f.r.Track(t.Context(), p)
		require.NoError(t, err)
	}
	r := f.apply(credit("a", "2026-03-17", nok("1150.00"), "Invoice 5"), credit("b", "2026-03-17", nok("1150.00"), "99887766"))
	require.Len(t, r.Settled, 1)
	got := r.Settled[0]
	assert.Equal(t, "kid", got.Payment)
	assert.Equal(t, reconcile.SettledOtherAmount, got.Settlement)
	assert.True(t, money.MustParse("100.00", "EUR").Equal(got.Instructed))
	assert.True(t, nok("1150.00").Equal(got.Booked))
	require.Len(t, r.Unmatched, 1)
	ev := f.col.events()[0].(events.PaymentSettled)
	assert.True(t, ev.DifferentAmount)
}

// TestFees: a credit for less than instructed settles with both amounts:
// by KID whatever the amount, by text within FeeShare.
func TestFees(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("kid", nok("1000.00"), "1122334455", "")
	f.pay("fee", nok("1000.00"), "", "Kontingent 2026 Ola")
	f.pay("far", nok("1000.00"), "", "Kontingent 2026 Kari")
	r := f.apply(credit("a", "2026-03-16", nok("975.00"), "1122334455"),
		credit("b", "2026-03-16", nok("990.00"), "Kontingent 2026 Ola"),
		credit("c", "2026-03-16", nok("800.00"), "Kontingent 2026 Kari"))
	assert.Equal(t, []string{"kid=" + string(acct) + "-a", "fee=" + string(acct) + "-b"}, keys(r.Settled))
	for _, s := range r.Settled {
		assert.Equal(t, reconcile.SettledOtherAmount, s.Settlement)
	}
	require.Len(t, r.Unmatched, 1)
	assert.True(t, nok("800.00").Equal(r.Unmatched[0].Amount), "a fifth less is no fee")
}

// TestReturned: a settled payment whose credit is reversed by a later
// debit with its KID is returned; its events come in order.
func TestReturned(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p", nok("700.00"), "5544332211", "")
	f.apply(credit("in", "2026-03-16", nok("700.00"), "5544332211"))
	f.at("2026-03-20")
	r := f.apply(credit("other", "2026-03-20", nok("-700.00"), "Retur"), credit("back", "2026-03-20", nok("-700.00"), "Retur 5544332211"))
	require.Len(t, r.Returned, 1)
	got := r.Returned[0]
	assert.Equal(t, reconcile.Returned, got.Settlement)
	assert.Equal(t, txsync.Key(string(acct)+"-back"), got.Reversal)
	evs := f.col.events()
	require.Len(t, evs, 2)
	assert.IsType(t, events.PaymentSettled{}, evs[0])
	assert.Equal(t, events.PaymentReturned{Payment: "p", Booking: string(acct) + "-back", Settled: string(acct) + "-in",
		BookingDate: day("2026-03-20"), Amount: nok("-700.00")}, evs[1])
}

// TestStalledByScheme: an accepted payment is stalled at the first read
// after its window's last banking day (Norwegian holidays counted), not
// before; a late credit still settles it, marked late.
func TestStalledByScheme(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		product         payments.Product
		accepted        string
		deadline, after string
	}{
		{"domestic before Easter", payments.ProductNorwegianDomestic, "2026-04-01", "2026-04-07", "2026-04-08"},
		{"domestic on a Friday", payments.ProductNorwegianDomestic, "2026-03-20", "2026-03-23", "2026-03-24"},
		{"instant on a Saturday", payments.ProductInstantNorwegianDomestic, "2026-03-21", "2026-03-23", "2026-03-24"},
		{"instant on a Tuesday", payments.ProductInstantNorwegianDomestic, "2026-03-17", "2026-03-17", "2026-03-18"},
		{"sepa over Ascension", payments.ProductSEPA, "2026-05-13", "2026-05-18", "2026-05-19"},
		{"cross-border over Christmas", payments.ProductCrossBorder, "2026-12-22", "2027-01-04", "2027-01-05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.accepted)
			st, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p", Created: f.clk.Now(), Product: tc.product,
				Amount: nok("10.00"), CreditorIBAN: merchantIBAN, KID: "1234567890", Status: payments.StatusACSC, StatusAt: f.clk.Now()})
			require.NoError(t, err)
			assert.Equal(t, day(tc.deadline), st.Deadline)
			f.at(tc.deadline)
			assert.Empty(t, f.apply().Stalled, "not on the window's last day")
			f.at(tc.after)
			r := f.apply()
			require.Len(t, r.Stalled, 1)
			assert.Equal(t, reconcile.Stalled, r.Stalled[0].Settlement)
			assert.Empty(t, f.apply().Stalled, "once")
			r = f.apply(credit("late", tc.after, nok("10.00"), "1234567890"))
			require.Len(t, r.Settled, 1)
			assert.True(t, r.Settled[0].Late)
			assert.True(t, r.Settled[0].WasStalled)
			evs := f.col.events()
			require.Len(t, evs, 2)
			assert.Equal(t, events.PaymentSettlementStalled{Payment: "p", Scheme: st.Scheme.String(), Accepted: day(tc.accepted),
				Deadline: day(tc.deadline)}, evs[0])
			assert.True(t, evs[1].(events.PaymentSettled).Late)
		})
	}
}

// TestNoStallWithoutAcceptance: a payment never seen accepted, or
// rejected, or waiting for funds, never stalls.
func TestNoStallWithoutAcceptance(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	for i, s := range []payments.TransactionStatus{"", payments.StatusRCVD, payments.StatusACCP, payments.StatusRJCT} {
		_, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p" + itoa(i), Created: f.clk.Now(), Product: payments.ProductNorwegianDomestic,
			Amount: nok("10.00"), CreditorBBAN: "8601 11 17947", Status: s})
		require.NoError(t, err)
	}
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusCANC))
	f.at("2026-04-30")
	assert.Empty(t, f.apply().Stalled)
	assert.Equal(t, reconcile.NotExecuted, f.state("p3").Settlement)
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
	assert.Equal(t, reconcile.Awaiting, f.state("p2").Settlement)
	require.NoError(t, f.r.Status(t.Context(), "p2", payments.StatusACSC))
	f.at("2026-05-01")
	st := f.state("p2")
	assert.Equal(t, day("2026-04-30"), st.Accepted)
	assert.Equal(t, day("2026-05-04"), st.Deadline, "from the status, not the creation")
	assert.ErrorIs(t, f.r.Status(t.Context(), "never", payments.StatusACSC), reconcile.ErrNotTracked)
}

// TestNotApplicable: a payment to an account nobody watches is not kept.
func TestNotApplicable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	st, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "x", Created: f.clk.Now(), Product: payments.ProductNorwegianDomestic,
		Amount: nok("10.00"), CreditorBBAN: "12345678903"})
	require.NoError(t, err)
	assert.Equal(t, reconcile.NotApplicable, st.Settlement)
	_, err = f.r.Payment(t.Context(), "x")
	assert.ErrorIs(t, err, reconcile.ErrNotTracked)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: "aanotherone000001"})
	require.NoError(t, err)
	assert.False(t, r.Watched)
}

// TestCreditorByEitherNumber: the watched account is found by its IBAN,
// by its BBAN, and by the BBAN inside a Norwegian IBAN, in printed form.
func TestCreditorByEitherNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	for i, ref := range [][2]string{{merchantIBAN, ""}, {"", merchantBBAN}, {"", "8601.11.17947"}, {"no93 8601 1117 947", ""}} {
		st, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p" + itoa(i), Created: f.clk.Now(), Product: payments.ProductNorwegianDomestic,
			Amount: nok("10.00"), CreditorIBAN: ref[0], CreditorBBAN: ref[1]})
		require.NoError(t, err)
		assert.Equal(t, reconcile.Awaiting, st.Settlement, "%v", ref)
		assert.Equal(t, acct, st.Account)
	}
}

// TestInvalidInput: typed errors, no panics.
func TestInvalidInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	ctx := t.Context()
	for _, p := range []reconcile.Payment{
		{},
		{RequestID: "x", Created: f.clk.Now(), Amount: nok("1.00"), CreditorBBAN: merchantBBAN},                                           // no scheme
		{RequestID: "x", Created: f.clk.Now(), Product: payments.ProductSEPA, CreditorBBAN: merchantBBAN},                                 // no amount
		{RequestID: "x", Created: f.clk.Now(), Product: payments.ProductSEPA, Amount: nok("-1.00"), CreditorBBAN: merchantBBAN},           // negative
		{RequestID: "x", Created: f.clk.Now(), Product: payments.ProductSEPA, Amount: nok("1.00")},                                        // no creditor
		{RequestID: "x", Created: f.clk.Now().AddDate(0, 0, -200), Product: payments.ProductSEPA, Amount: nok("1.00"), CreditorBBAN: "1"}, // too old
	} {
		_, err := f.r.Track(ctx, p)
		assert.ErrorIs(t, err, reconcile.ErrInvalid, "%v", p)
	}
	_, err := f.r.Apply(ctx, nil)
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
	_, err = f.r.Apply(ctx, &txsync.Delta{Account: "../x"})
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
	assert.ErrorIs(t, f.r.Watch(ctx, acct, accounts.Account{}), reconcile.ErrInvalid)
	assert.ErrorIs(t, f.r.Watch(ctx, "A/B", accounts.Account{BBAN: "1"}), reconcile.ErrInvalid)
	_, err = reconcile.New(nil)
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
	_, err = reconcile.New(f.st, reconcile.WithClock(nil))
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
	_, err = reconcile.New(f.st, reconcile.WithEmitter(nil))
	assert.ErrorIs(t, err, reconcile.ErrInvalid)
}

// TestPendingThenBooked: a pending credit matches nothing until the sync
// reports it booked.
func TestPendingThenBooked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p", nok("80.00"), "", "Lunsj fredag")
	c := credit("c", "2026-03-16", nok("80.00"), "Lunsj fredag")
	c.Transaction.Status = accounts.BookingPending
	assert.True(t, f.apply(c).Empty())
	c.Transaction.Status = accounts.BookingBooked
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: c, What: txsync.Booked}}})
	require.NoError(t, err)
	assert.Len(t, r.Settled, 1)
}

// TestLateTwinIsNew: an identical twin credit that comes in a later read
// under its own key (booked late, its sibling already out of the sync's
// window, so both have occurrence 0) is a new credit: it settles the
// second twin payment.
func TestLateTwinIsNew(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("first", nok("49.00"), "", "Kaffe")
	f.pay("second", nok("49.00"), "", "Kaffe")
	require.Len(t, f.apply(credit("a", "2026-03-16", nok("49.00"), "Kaffe")).Settled, 1)
	f.at("2026-03-23")
	r := f.apply(credit("b", "2026-03-16", nok("49.00"), "Kaffe"))
	assert.Equal(t, []string{"second=" + string(acct) + "-b"}, keys(r.Settled))
	assert.Zero(t, r.Repeated)
}
