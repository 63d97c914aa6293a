package budget_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
)

// Ids of the platform documents in accounts/testdata, and the PSU and
// session of the calls.
const (
	acc1        = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	acc2        = "enc!!Rx_pBwAJG07KRcz7N_7lU1fOa2XSzft89z1v2PpaheM="
	psuID       = "0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11"
	sessionID   = "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"
	redirectURI = "https://tpp.example/callback"
	psuIP       = "192.0.2.10"
)

// newService returns an accounts.Service on c, whose budget New makes
// with opts first (so that the Service counts against that limit).
func newService(t testing.TB, c *client.Client, opts ...budget.Option) *accounts.Service {
	t.Helper()
	_, err := budget.New(c, opts...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return svc
}

// budgetOf is the budget svc counts against.
func budgetOf(svc *accounts.Service) *budget.Budget { return budget.Of(svc.Client()) }

// testdata returns a file of the accounts package's testdata.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "accounts", "testdata", name))
	require.NoError(t, err)
	return b
}

// psuPresent are the options of a call with the PSU present.
func psuPresent() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})}
}

// psuAbsent are the options of a call without the PSU present, with
// more after them.
func psuAbsent(more ...client.RequestOption) []client.RequestOption {
	return append([]client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID})}, more...)
}
