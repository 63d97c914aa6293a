package emulator_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// plainClient trusts the emulator's CA and nothing else: no dialer of
// the emulator's, the system's name resolution.
func plainClient(ca *x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

// multiBankDirectory starts a MultiBank and opens the SDK's sandbox
// service at each bank through a directory of banks.Parse(DirectoryJSON()),
// with a plain HTTP client.
func multiBankDirectory(t *testing.T, hosts []string, opts ...emulator.Option) (*emulator.MultiBank, *banks.Directory, map[string]*client.Client) {
	t.Helper()
	m, err := emulator.NewMultiBank(hosts, opts...)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	creds, err := m.NewTPP("Directory TPP")
	require.NoError(t, err)
	d, err := banks.Parse(m.DirectoryJSON())
	require.NoError(t, err)
	var ids []string
	for _, b := range d.All() {
		ids = append(ids, b.ID)
	}
	cs, err := d.Clients(banks.Sandbox, creds, ids, client.WithHTTPClient(plainClient(m.CACertificate())), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	return m, d, cs
}

// bankAccount is an account as GET /v1/accounts lists it.
type bankAccount struct {
	ResourceID string `json:"resourceId"`
	BBAN       string `json:"bban"`
	IBAN       string `json:"iban"`
}

// privateAccounts lists the accounts of a private customer at a bank over
// the interface: a consent approved as the customer, then GET
// /v1/accounts in its session.
func privateAccounts(t *testing.T, c *client.Client, bank *emulator.Server, customer string) []bankAccount {
	t.Helper()
	sid := uuid.NewString()
	opts := []client.RequestOption{client.WithTPPSessionID(sid), client.WithRedirectURI("https://tpp.example/cb")}
	var consent struct {
		Links client.Links `json:"_links"`
	}
	_, err := c.Do(t.Context(), client.Operation{Name: "consent", Method: http.MethodPost, Path: "/v1/bank-offered-consents"}, &consent, opts...)
	require.NoError(t, err)
	cb, err := bank.Control().Authorize(t.Context(), consent.Links.SCARedirect(), customer)
	require.NoError(t, err)
	var list struct {
		Accounts []bankAccount `json:"accounts"`
	}
	_, err = c.Do(t.Context(), client.Operation{Name: "accounts", Method: http.MethodGet, Path: "/v1/accounts"}, &list,
		append(opts, client.WithPSU(client.PSU{ID: cb.Query().Get("psu-id"), IPAddress: "192.0.2.10"}))...)
	require.NoError(t, err)
	return list.Accounts
}

// TestMultiBankBanksHaveTheirOwnAccounts: every bank of a MultiBank has
// default data of its own: BBANs with the bank's own code and valid check
// digits, IBANs valid mod-97, and no BBAN, IBAN or resource id shared with
// another bank (or with a single Server's fixed defaults), read over the
// interface from a directory that points at the emulator, with a plain
// HTTP client.
func TestMultiBankBanksHaveTheirOwnAccounts(t *testing.T) {
	t.Parallel()
	m, d, cs := multiBankDirectory(t, []string{"alpha.localhost", "beta.localhost", "gamma.localhost"})
	assert.Equal(t, 3, d.Len())
	bankOf := map[string]*emulator.Server{}
	for _, h := range m.Hosts() {
		id, _, _ := strings.Cut(h, ".")
		bankOf[id] = m.Bank(h)
	}
	single := emulator.NewServer()
	t.Cleanup(single.Close)
	creds, err := single.NewTPP("Single TPP")
	require.NoError(t, err)
	cs["single"], err = client.New(single.URL, creds, client.WithHTTPClient(single.Client()))
	require.NoError(t, err)
	bankOf["single"] = single

	owner := map[string]string{} // customer id, resource id, BBAN or IBAN -> bank
	codes := map[string]string{} // bank code -> bank
	claim := func(id, k string) {
		assert.Empty(t, owner[k], "%s of bank %s is also bank %s's", k, id, owner[k])
		owner[k] = id
	}
	for id, c := range cs {
		sb, err := sandbox.New(c)
		require.NoError(t, err)
		list, err := sb.Customers(t.Context(), &sandbox.CustomersQuery{WithAccounts: true})
		require.NoError(t, err, id)
		require.Len(t, list, 4, id)
		for _, cu := range list {
			claim(id, cu.CustomerID)
			for _, a := range append(slices.Clone(cu.Accounts), cu.CardAccounts...) {
				claim(id, a)
			}
		}
		bankCodes := map[string]bool{}
		for _, customer := range []string{emulator.CustomerKari, emulator.CustomerOla} {
			for _, a := range privateAccounts(t, c, bankOf[id], customer) {
				claim(id, a.BBAN)
				claim(id, a.IBAN)
				assert.NoError(t, checkdigit.NorwegianBBAN(a.BBAN), a.BBAN)
				assert.NoError(t, checkdigit.IBAN(a.IBAN), a.IBAN)
				assert.Equal(t, "NO", a.IBAN[:2])
				assert.True(t, strings.HasSuffix(a.IBAN, a.BBAN))
				bankCodes[a.BBAN[:4]] = true
			}
		}
		if id != "single" {
			require.Len(t, bankCodes, 1, "one bank code per bank: %v", bankCodes)
			for code := range bankCodes {
				assert.Empty(t, codes[code], "bank code %s of %s and %s", code, id, codes[code])
				codes[code] = id
			}
		}
	}
}

// TestMultiBankDirectory: the directory's entries point at each bank's
// own listener, carry a profile's consent days, and its clients reach the
// banks by loopback address, with no name to resolve; one bank's refused
// outage leaves the others up.
func TestMultiBankDirectory(t *testing.T) {
	t.Parallel()
	m, d, cs := multiBankDirectory(t, []string{"alpha.localhost", "beta.localhost"})
	svc := map[string]*sandbox.Service{}
	for id, c := range cs {
		var err error
		svc[id], err = sandbox.New(c)
		require.NoError(t, err)
	}
	for _, h := range m.Hosts() {
		id, _, _ := strings.Cut(h, ".")
		b, ok := d.Lookup(id)
		require.True(t, ok, id)
		assert.Equal(t, m.URL(h), b.BaseURL(banks.Sandbox))
		assert.Equal(t, m.HostURL(h), b.BaseURL(banks.Production))
		assert.True(t, strings.HasPrefix(b.Sandbox, "https://127.0.0.1:"), b.Sandbox)
		assert.Equal(t, banks.DefaultConsentValidity, b.ConsentValidity())
	}
	require.NoError(t, m.Bank("beta.localhost").Control().SetProfile(emulator.Profile{ConsentDays: 180}))
	d, err := banks.Parse(m.DirectoryJSON())
	require.NoError(t, err)
	beta, _ := d.Lookup("beta")
	assert.Equal(t, 180*24*time.Hour, beta.ConsentValidity())

	m.Bank("alpha.localhost").Control().Freeze()
	m.Bank("alpha.localhost").Control().Outage(emulator.OutageRefused, time.Minute)
	_, err = svc["alpha"].Customers(t.Context(), nil)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "alpha's own port refuses")
	_, err = svc["beta"].Customers(t.Context(), nil)
	assert.NoError(t, err, "beta is up")
	m.Bank("alpha.localhost").Control().Advance(time.Minute)
	_, err = svc["alpha"].Customers(t.Context(), nil)
	assert.NoError(t, err, "alpha is back")
}
