package sca_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestStartAuthorisationRefusesCorporateWithoutID: Prepared.Redirect
// starts a payment's SCA with the call's options. In a CORPORATE session
// that has no PSU-Corporate-ID yet, that request is one the bank answers
// 400 (docs/interface.md sections 5.10 and 7: a corporate user's request
// without PSU-Corporate-ID), so it is refused before it is sent with a
// *client.ValidationError naming the header.
func TestStartAuthorisationRefusesCorporateWithoutID(t *testing.T) {
	t.Parallel()
	c, sent := testtpp.CountingClient(t, "Corporate TPP", `{"scaStatus":"started","_links":{"scaRedirect":{"href":"https://bank.example/tap/1","verbs":["GET"]}}}`)
	flow, err := sca.NewFlow("https://tpp.example/callback", sca.WithClient(c))
	require.NoError(t, err)
	st := store.NewMemoryStore()
	mgr, err := sca.NewManager(flow, st)
	require.NoError(t, err)
	require.NoError(t, sca.SaveSession(t.Context(), st, "corp", &sca.Session{PSUID: "0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11",
		TPPSessionID: "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b", Context: client.Corporate, SCAAt: time.Now()}))
	call, err := mgr.Prepare(t.Context(), "corp", &client.PSU{IPAddress: "192.0.2.10"})
	require.NoError(t, err)

	links := client.Links{client.LinkStartAuthorisation: {Href: "/v1/payments/norwegian-domestic-credit-transfers/p1/authorisations", Verbs: []string{"POST"}}}
	_, _, err = call.Redirect(t.Context(), links)
	require.ErrorIs(t, err, client.ErrValidation)
	var ve *client.ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "PSU-Corporate-ID", ve.Field)
	assert.Equal(t, int32(0), sent.Load(), "nothing sent")
}
