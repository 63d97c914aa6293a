package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// A multi-currency account lists one IBAN for each of its currencies.
// Told apart by their order only, the NOK and EUR sub-accounts swapped
// keys when a re-consent listed them in another order: each one's
// entries were compared with the other's state (all removed and added),
// and the TPP's ledger filed them under the other account. Each keeps
// its key by its currency; a Link made before keeps its keys when the
// order did not change.
func TestLinkSubAccountsOfOneIBANByCurrency(t *testing.T) {
	ctx := t.Context()
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	const iban = "NO9386011117947"
	l1, err := s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r1", IBAN: iban, Currency: "NOK"}, {ResourceID: "r2", IBAN: iban, Currency: "EUR"}}, nil)
	require.NoError(t, err)
	l2, err := s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r3", IBAN: iban, Currency: "EUR"}, {ResourceID: "r4", IBAN: iban, Currency: "NOK"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, l1.Accounts[0].Key, l2.Accounts[1].Key, "the NOK sub-account keeps its key")
	assert.Equal(t, l1.Accounts[1].Key, l2.Accounts[0].Key, "the EUR sub-account keeps its key")
	assert.False(t, l2.Accounts[0].New)
	assert.False(t, l2.Accounts[1].New)
	// An account alone under its IBAN keeps the key it always had.
	l3, err := s.Link(ctx, "user-2", []accounts.Account{{ResourceID: "r5", IBAN: iban, Currency: "NOK"}}, nil)
	require.NoError(t, err)
	l4, err := s.Link(ctx, "user-2", []accounts.Account{{ResourceID: "r6", IBAN: iban}}, nil)
	require.NoError(t, err)
	assert.Equal(t, l3.Accounts[0].Key, l4.Accounts[0].Key)
}

// Sub-accounts linked by an earlier version (told apart by their place:
// "iban:…" and "iban:…#1") keep those keys at their first Link by
// currency, in the same order.
func TestLinkSubAccountsKeepEarlierKeys(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemoryStore()
	const iban = "NO9386011117947"
	const nok, eur = txsync.AccountKey("aaaaaaaaaaaaaaaaa"), txsync.AccountKey("abbbbbbbbbbbbbbbb")
	require.NoError(t, st.Put(ctx, txsync.IDKey("user-1", "iban:"+iban), []byte(nok), 0))
	require.NoError(t, st.Put(ctx, txsync.IDKey("user-1", "iban:"+iban+"#1"), []byte(eur), 0))
	s, err := txsync.New(st)
	require.NoError(t, err)
	l, err := s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r1", IBAN: iban, Currency: "NOK"}, {ResourceID: "r2", IBAN: iban, Currency: "EUR"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, nok, l.Accounts[0].Key)
	assert.Equal(t, eur, l.Accounts[1].Key)
	assert.False(t, l.Accounts[0].New || l.Accounts[1].New)
	l, err = s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r3", IBAN: iban, Currency: "EUR"}, {ResourceID: "r4", IBAN: iban, Currency: "NOK"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, eur, l.Accounts[0].Key)
	assert.Equal(t, nok, l.Accounts[1].Key)
}
