package payments_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

func TestCardDebtor(t *testing.T) {
	t.Parallel()
	got := payments.CardDebtor("enc!!rel=", "NOK")
	assert.Equal(t, payments.AccountReference{
		Other:    &payments.OtherAccount{Identification: "enc!!rel=", SchemeNameProprietary: payments.SchemeCreditCardAccount},
		Currency: "NOK",
	}, got)

	p := ndct(kariBruk, "10.00")
	p.DebtorAccount = got
	assert.NoError(t, p.Validate(testNow))
	p.DebtorAccount = payments.CardDebtor("", "NOK")
	assert.ErrorIs(t, p.Validate(testNow), client.ErrValidation, "no relatedAccount, nothing to send")
}

// TestEmulatorPayFromCardAccount: the card account details carry
// relatedAccount; CardDebtor makes the debtor of an NDCT from it, and the
// bank books the payment on the card account.
func TestEmulatorPayFromCardAccount(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	// The consent's SCA identifies Kari; its session serves AIS and PIS.
	ais, err := accounts.New(b.c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, b.s, ais, emulator.CustomerKari)
	psu := []client.RequestOption{sess.RequestOptions(&client.PSU{IPAddress: psuIP})}
	cards, err := ais.CardAccounts(ctx, psu...)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	card, err := ais.CardAccount(ctx, cards[0].ResourceID, psu...)
	require.NoError(t, err)
	require.NotEmpty(t, card.RelatedAccountID())
	assert.Empty(t, cards[0].RelatedAccountID(), "the list carries no relatedAccount, as the platform's; read it from the details")

	p := ndct(kariBruk, "250.00")
	p.DebtorAccount = payments.CardDebtor(card.RelatedAccountID(), card.Currency)
	init, err := b.svc.CreateNorwegianDomestic(ctx, p, psu...) // one session for AIS and PIS
	require.NoError(t, err)
	b.authorize(t, init.SCARedirect())
	b.s.Control().RunBatch()
	st, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), psu...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)

	booked, err := ais.CardTransactions(ctx, card.ResourceID, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, psu...)
	require.NoError(t, err)
	debit, found := money.MustParse("-250.00", "NOK"), false
	for _, e := range booked.Booked {
		found = found || e.TransactionAmount.Equal(debit)
	}
	assert.True(t, found, "the payment is booked on the card account")
}
