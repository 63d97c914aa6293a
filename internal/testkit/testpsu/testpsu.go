// Package testpsu signs a PSU in at a running sandbox emulator for the
// SDK's tests, so that they can read accounts, and create payments and
// baskets with the PSU-ID the bank issued. It is test support, internal to the module
// (apart from testtpp, which package sca's own tests import).
package testpsu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// Login runs the SCA of GET /v1/user (docs/interface.md section 5.10)
// for customer: sca.User answers with a scaRedirect, the emulator s
// approves it as the customer, and the callback gives the session whose
// PSU-ID the bank issued to c's TPP. The flow reads c's clock and uses
// testtpp.RedirectURI.
func Login(t testing.TB, s *emulator.Server, c *client.Client, customer string) *sca.Session {
	t.Helper()
	ctx := t.Context()
	flow, err := sca.NewFlow(testtpp.RedirectURI, sca.WithClient(c))
	require.NoError(t, err)
	pending, ro, err := flow.Start("psu")
	require.NoError(t, err)
	r, needed, err := sca.User(ctx, c, ro)
	require.NoError(t, err)
	require.True(t, needed, "GET /v1/user asks for SCA")
	cb, err := s.Control().Authorize(ctx, r.String(), customer)
	require.NoError(t, err)
	sess, err := flow.ParseCallback(pending, cb.String())
	require.NoError(t, err)
	return sess
}

// Consent runs the SCA of an AIS consent (ais.StartConsent) for customer:
// the emulator s approves the consent's scaRedirect as the customer, and
// the callback gives the session that reads the customer's accounts (and
// pays from them). The flow uses testtpp.RedirectURI.
func Consent(t testing.TB, s *emulator.Server, ais *accounts.Service, customer string) *sca.Session {
	t.Helper()
	ctx := t.Context()
	flow, err := sca.NewFlow(testtpp.RedirectURI)
	require.NoError(t, err)
	pending, ro, err := flow.Start("psu")
	require.NoError(t, err)
	consent, err := ais.StartConsent(ctx, ro)
	require.NoError(t, err)
	cb, err := s.Control().Authorize(ctx, consent.SCARedirect(), customer)
	require.NoError(t, err)
	sess, err := flow.ParseCallback(pending, cb.String())
	require.NoError(t, err)
	return sess
}
