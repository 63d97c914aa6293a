package client_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/apipath"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// allSentinels are the sentinels a *client.Error matches.
var allSentinels = []error{client.ErrSCARequired, client.ErrSCAExpired, client.ErrConsentExpired,
	client.ErrConsentInvalid, client.ErrConsentUnknown, client.ErrAccessExceeded, client.ErrKIDInvalid,
	client.ErrNotFound, client.ErrCertificate}

// assertOnly checks that err matches exactly the sentinels in want.
func assertOnly(t *testing.T, err error, want ...error) {
	t.Helper()
	require.Error(t, err)
	for _, s := range allSentinels {
		has := false
		for _, w := range want {
			has = has || w == s
		}
		assert.Equal(t, has, errors.Is(err, s), "errors.Is(err, %v) for %v", s, err)
	}
}

// TestEmulatorSessionSentinels walks a PSU's session through the answers
// of the emulator: a first call without consent is only an SCA request,
// the hour passing is SCA_EXPIRED (the consent lives on), and the 90 days
// passing is CONSENT_EXPIRED.
func TestEmulatorSessionSentinels(t *testing.T) {
	t.Parallel()
	clk := testtpp.NewClock(time.Now().UTC().Truncate(time.Second))
	s := testtpp.Server(t, emulator.WithClock(clk.Now))
	c := testtpp.NewClient(t, s, "Sentinel TPP", client.WithClock(clk.Now), client.WithRetryPolicy(client.RetryPolicy{}))
	ctx := t.Context()
	const sid, redirect = "session-1", "https://tpp.example/callback"
	base := []client.RequestOption{client.WithTPPSessionID(sid), client.WithRedirectURI(redirect)}
	accountsOp := client.Operation{Name: "accounts", Method: http.MethodGet, Path: "/v1/accounts"}

	// A first call: no PSU-ID, no consent ever given.
	_, err := c.Do(ctx, accountsOp, nil, append(base, client.WithPSU(client.PSU{IPAddress: "192.0.2.1"}))...)
	assertOnly(t, err, client.ErrSCARequired)
	_, ok := client.SCARedirect(err)
	assert.True(t, ok)

	// An unknown PSU-ID is the same: no consent behind it.
	_, err = c.Do(ctx, accountsOp, nil, append(base, client.WithPSU(client.PSU{ID: uuid.NewString(), IPAddress: "192.0.2.1"}))...)
	assertOnly(t, err, client.ErrSCARequired)

	// The consent.
	var consent struct {
		Links client.Links `json:"_links"`
	}
	_, err = c.Do(ctx, client.Operation{Method: http.MethodPost, Path: "/v1/bank-offered-consents", Repeatable: true}, &consent,
		append(base, client.WithPSU(client.PSU{IPAddress: "192.0.2.1"}))...)
	require.NoError(t, err)
	cb, err := s.Control().Authorize(ctx, consent.Links.SCARedirect(), emulator.CustomerKari)
	require.NoError(t, err)
	q, err := url.ParseQuery(cb.RawQuery)
	require.NoError(t, err)
	present := append(base, client.WithPSU(client.PSU{ID: q.Get("psu-id"), IPAddress: "192.0.2.1"}))
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	_, err = c.Do(ctx, accountsOp, &list, present...)
	require.NoError(t, err)
	require.NotEmpty(t, list.Accounts)
	balances := client.Operation{Name: "balances", Method: http.MethodGet,
		Path: apipath.Join("/v1/accounts", list.Accounts[0].ResourceID, "balances")}

	// After the hour: listing needs a new SCA, balances do not.
	clk.Add(time.Hour + time.Minute)
	_, err = c.Do(ctx, accountsOp, nil, present...)
	assertOnly(t, err, client.ErrSCARequired, client.ErrSCAExpired)
	_, err = c.Do(ctx, balances, nil, present...)
	require.NoError(t, err, "the consent lives on after the SCA window")

	// After the 90 days of the consent.
	clk.Add(90 * 24 * time.Hour)
	_, err = c.Do(ctx, balances, nil, present...)
	assertOnly(t, err, client.ErrSCARequired, client.ErrConsentExpired)
}
