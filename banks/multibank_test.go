package banks_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// directoryFor makes a directory whose sandbox URLs are the banks of m
// (their production URLs are not called).
func directoryFor(t *testing.T, m *emulator.MultiBank, ids ...string) *banks.Directory {
	t.Helper()
	js := `{"banks":[`
	for i, id := range ids {
		if i > 0 {
			js += ","
		}
		u := m.URL(id + ".localhost")
		js += fmt.Sprintf(`{"id":%q,"name":%q,"group":"other","production":"https://%s.example/api","sandbox":%q,"source":"test","verified":"2026"}`, id, id, id, u)
	}
	d, err := banks.Parse([]byte(js + "]}"))
	require.NoError(t, err)
	return d
}

func TestClientsPerBankAgainstMultiBankEmulator(t *testing.T) {
	t.Parallel()
	m, err := emulator.NewMultiBank([]string{"alpha.localhost", "beta.localhost"})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	creds, err := m.NewTPP("Multi TPP")
	require.NoError(t, err)
	d := directoryFor(t, m, "alpha", "beta")

	cs, err := d.Clients(banks.Sandbox, creds, []string{"alpha", "beta"}, client.WithHTTPClient(m.Client()))
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.NotEqual(t, cs["alpha"].Scope(), cs["beta"].Scope(), "each bank has its own budget and journal scope")

	// A customer created at one bank does not exist at the other.
	ctx := t.Context()
	sa, err := sandbox.New(cs["alpha"])
	require.NoError(t, err)
	sb, err := sandbox.New(cs["beta"])
	require.NoError(t, err)
	_, err = sa.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Alfa Kunde"})
	require.NoError(t, err)
	count := func(s *sandbox.Service) int {
		list, err := s.Customers(ctx, nil)
		require.NoError(t, err)
		return len(list)
	}
	assert.Equal(t, count(sb)+1, count(sa))

	_, err = d.Clients(banks.Sandbox, creds, []string{"alpha", "gamma"})
	assert.True(t, errors.Is(err, banks.ErrUnknownBank))
	_, err = d.Clients("staging", creds, []string{"alpha"})
	assert.Error(t, err)
}

func TestMultiBankRefusesBadHosts(t *testing.T) {
	t.Parallel()
	for _, hosts := range [][]string{nil, {"Alpha.localhost"}, {"a.localhost", "a.localhost"}, {"bad host"}} {
		_, err := emulator.NewMultiBank(hosts)
		assert.Error(t, err, hosts)
	}
}

func TestMultiBankRoutesByHost(t *testing.T) {
	t.Parallel()
	m, err := emulator.NewMultiBank([]string{"alpha.localhost"})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	assert.Equal(t, []string{"alpha.localhost"}, m.Hosts())
	assert.NotNil(t, m.Bank("alpha.localhost"))
	assert.Nil(t, m.Bank("beta.localhost"))
	assert.Empty(t, m.URL("beta.localhost"))
	// localhost reaches the listener, but no bank is served there.
	_, port, _ := strings.Cut(m.Addr(), ":")
	resp, err := m.Client().Get("https://localhost:" + port + "/api/v1/accounts")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 421, resp.StatusCode)
	// Another host name is refused by the client, never dialled.
	_, err = m.Client().Get("https://example.com:" + port + "/api/v1/accounts")
	assert.Error(t, err)
}
