package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/txsync"
)

// No printed or logged form of what the sync reports shows a transaction
// id, a counterparty, a remittance text or a resource id.
func TestFormsHidePersonalData(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	p := pending(t, "2026-03-10", "-300.00", "Ola Nordmann", "Husleie mars")
	_, err := s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{p}, Booked: []accounts.Transaction{booked(t, "ID-777111", "2026-03-10", "-5.00", "Kari Nordmann", "Gave til Kari")}})
	require.NoError(t, err)
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{booked(t, "ID-999222", "2026-03-11", "-300.00", "Ola Nordmann", "Husleie mars")}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	require.Len(t, d.Removed, 1)
	secrets := []string{"ID-777111", "ID-999222", "Ola Nordmann", "Kari Nordmann", "Husleie", "Gave til"}
	for _, v := range []any{d, d.Changed[0], d.Removed[0], d.Changed[0].Previous, d.Changed[0].Entry} {
		redacttest.AssertHidden(t, v, secrets)
	}
	l, err := s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "enc!!resource-xyz", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	redacttest.AssertHidden(t, l.Accounts[0], []string{"enc!!resource-xyz", "NO93"})
	redacttest.AssertHidden(t, *l, []string{"enc!!resource-xyz", "NO93"})
}
