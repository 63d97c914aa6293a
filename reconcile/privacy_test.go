package reconcile_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// Planted personal data: the payer's and creditor's accounts and names,
// the KID (it names the payer's invoice), the remittance text and the
// end-to-end id the payer's bank passes on.
const (
	plantedDebtorBBAN = "12345678903"
	plantedDebtorName = "Kari Nordmann"
	plantedKID        = "01017012345"
	plantedText       = "Husleie Storgata 12 Kari"
	plantedE2E        = "E2E-KARI-0101"
)

var planted = []string{merchantIBAN, merchantBBAN, plantedDebtorBBAN, plantedDebtorName, plantedKID, plantedText, "Storgata", plantedE2E}

// envelopes keeps every envelope a sink got.
type envelopes struct {
	mu  sync.Mutex
	all []events.Envelope
}

func (e *envelopes) Publish(_ context.Context, env events.Envelope) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, env)
	return nil
}

// TestNoPersonalData runs every outcome (settled by KID, by end-to-end
// id, by text, with another amount, stalled, returned, withdrawn,
// unmatched) with planted personal data: no event (ID, Key, data), no
// Round or State in JSON, and no store key holds any of it; a Payment
// prints it redacted.
func TestNoPersonalData(t *testing.T) {
	t.Parallel()
	st := store.NewMemoryStore()
	clk := newClockAt("2026-03-16")
	sink := &envelopes{}
	em, err := events.NewEmitter(sink, events.WithStore(st), events.WithClock(clk.Now))
	require.NoError(t, err)
	r, err := reconcile.New(st, reconcile.WithClock(clk.Now), reconcile.WithEmitter(em))
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, r.Watch(ctx, acct, accounts.Account{IBAN: merchantIBAN, BBAN: merchantBBAN, Name: plantedDebtorName}))
	track := func(id string, p reconcile.Payment) {
		p.RequestID, p.Created, p.Product, p.CreditorIBAN = id, clk.Now(), payments.ProductSEPA, merchantIBAN
		p.Status, p.StatusAt = payments.StatusACSC, clk.Now()
		if p.Amount.IsZero() {
			p.Amount = nok("900.00")
		}
		_, err := r.Track(ctx, p)
		require.NoError(t, err)
		clk.Add(1)
	}
	track("kid", reconcile.Payment{KID: plantedKID, Remittance: plantedText})
	track("e2e", reconcile.Payment{EndToEndID: plantedE2E, Amount: nok("10.00")})
	track("text", reconcile.Payment{Remittance: plantedText + " april", Amount: nok("20.00")})
	track("fee", reconcile.Payment{Remittance: plantedText + " mai", Amount: nok("30.00")})
	track("stall", reconcile.Payment{KID: plantedKID + "9", Amount: nok("40.00")})

	entry := func(key, amount, text, e2e string) txsync.Entry {
		c := credit(key, "2026-03-17", nok(amount), text)
		c.Transaction.DebtorName, c.Transaction.DebtorAccount = plantedDebtorName, &accounts.AccountReference{BBAN: plantedDebtorBBAN}
		c.Transaction.CreditorAccount = &accounts.AccountReference{IBAN: merchantIBAN}
		c.Transaction.EndToEndID = e2e
		return c
	}
	var out []any
	clk.Set(oslo("2026-03-17"))
	for _, d := range [][]txsync.Entry{
		{entry("a", "900.00", "KID "+plantedKID, ""), entry("b", "10.00", "", plantedE2E), entry("c", "20.00", plantedText+" april", ""),
			entry("d", "29.00", plantedText+" mai", ""), entry("e", "55.00", plantedText, "")},
		{},
		{entry("f", "-900.00", "Retur "+plantedKID, "")},
	} {
		round, err := r.Apply(ctx, &txsync.Delta{Account: acct, Added: d})
		require.NoError(t, err)
		out = append(out, round)
		clk.Set(oslo("2026-03-20"))
	}
	// The bank withdraws the credit of "text": withdrawn, and stalled
	// (its window is over).
	c := entry("c", "20.00", plantedText+" april", "")
	round, err := r.Apply(ctx, &txsync.Delta{Account: acct, Removed: []txsync.Removal{{Key: c.Key, Reason: txsync.BookedGone,
		Previous: txsync.Version{Status: accounts.BookingBooked, Amount: "20.00", Currency: "NOK", Counterparty: plantedDebtorName, Text: plantedText}}}})
	require.NoError(t, err)
	out = append(out, round)
	var sts []reconcile.State
	for s, err := range r.Payments(ctx, day("2026-03-01"), day("2026-03-31")) {
		require.NoError(t, err)
		sts = append(sts, s)
		out = append(out, s)
	}
	kinds := map[reconcile.Settlement]bool{}
	for _, s := range sts {
		kinds[s.Settlement] = true
	}
	assert.Equal(t, map[reconcile.Settlement]bool{reconcile.Settled: true, reconcile.SettledOtherAmount: true,
		reconcile.Returned: true, reconcile.Stalled: true, reconcile.Withdrawn: true}, kinds, "every outcome ran")
	require.Len(t, sink.all, 8, "4 settled (by KID, end-to-end id, text, text less a fee), 1 withdrawn, 2 stalled, 1 returned")

	var text strings.Builder
	for _, env := range sink.all {
		b, err := json.Marshal(env)
		require.NoError(t, err)
		text.Write(b)
	}
	for _, v := range out {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		text.Write(b)
	}
	for k, err := range st.Keys(ctx, "") {
		require.NoError(t, err)
		text.WriteString(k + "\n")
	}
	for _, s := range redacttest.WithHex(planted...) {
		assert.NotContains(t, text.String(), s)
	}
	redacttest.AssertHidden(t, reconcile.Payment{RequestID: "r", CreditorIBAN: merchantIBAN, CreditorBBAN: merchantBBAN,
		KID: plantedKID, EndToEndID: plantedE2E, Remittance: plantedText, Amount: nok("1.00")}, planted)
}
