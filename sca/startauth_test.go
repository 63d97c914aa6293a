package sca_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestRedirectStartsTheAuthorisation: at a bank whose payment creation
// answer carries only startAuthorisation (the emulator's
// StartAuthorisationOnly profile, as the platform was recorded),
// Prepared.Redirect starts the SCA itself, in the call's session and
// state, and the PSU's approval completes it.
func TestRedirectStartsTheAuthorisation(t *testing.T) {
	t.Parallel()
	e := newTPP(t, emulator.WithProfile(emulator.Profile{PaymentSCA: emulator.StartAuthorisationOnly}))
	_, accs := consentAt0(t, e)
	call, err := e.mgr.Prepare(t.Context(), "kari", present)
	require.NoError(t, err)
	pis, err := payments.New(e.c)
	require.NoError(t, err)
	init, err := pis.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("249.00", "NOK"),
		CreditorName:                      "Nettbutikken AS",
		CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "1", PostalCode: "0155", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: accs[0].BBAN, Currency: "NOK"},
		RemittanceInformationUnstructured: "Order 119",
	}, call.Options)
	require.NoError(t, err)
	require.Empty(t, init.SCARedirect(), "the answer has no scaRedirect")
	require.NotEmpty(t, init.Links.Href(client.LinkStartAuthorisation))

	r, ok, err := call.Redirect(t.Context(), init)
	require.NoError(t, err)
	require.True(t, ok, "SCA is needed")
	assert.Equal(t, sca.PurposePayment, r.Purpose)
	cb, err := e.bank.Control().Authorize(t.Context(), r.String(), emulator.CustomerKari)
	require.NoError(t, err)
	_, err = e.visit(t, cb)
	require.NoError(t, err)
	st, err := pis.Status(t.Context(), init.Ref())
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)

	// Without a client the Flow cannot start it, and says so.
	flow, err := sca.NewFlow("https://tpp.example/callback")
	require.NoError(t, err)
	mgr, err := sca.NewManager(flow, store.NewMemoryStore())
	require.NoError(t, err)
	bare, err := mgr.Prepare(t.Context(), "kari", nil)
	require.NoError(t, err)
	_, ok, err = bare.Redirect(t.Context(), init)
	assert.False(t, ok)
	assert.True(t, errors.Is(err, sca.ErrStartAuthorisation), "%v", err)
}
