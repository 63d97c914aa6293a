package banks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

func TestDefaultDirectory(t *testing.T) {
	t.Parallel()
	d := banks.Default()
	require.Equal(t, 44, d.Len(), "every host of the public sources")
	groups := map[banks.Group]int{}
	for _, b := range d.All() {
		groups[b.Group]++
		assert.Equal(t, strings.TrimSuffix(b.Production, "/api")+"/api-sandbox", b.Sandbox, b.ID)
		assert.NotEmpty(t, b.Source, b.ID)
		assert.NotEmpty(t, b.Verified, b.ID)
	}
	assert.Equal(t, 1, groups[banks.GroupEika])
	assert.Equal(t, 15, groups[banks.GroupSpareBank1])

	sor, ok := d.Lookup("sor")
	require.True(t, ok)
	assert.Equal(t, "https://openbanking.sor.no/api", sor.Production)
	assert.Contains(t, sor.Notes, "Q4 2026")
	assert.Equal(t, "openbanking.sor.no", sor.Host())
	assert.Equal(t, banks.DefaultConsentValidity, sor.ConsentValidity())
	assert.Equal(t, "https://openbanking.sor.no/api-sandbox", sor.BaseURL(banks.Sandbox))

	_, ok = d.Lookup("no-such-bank")
	assert.False(t, ok)
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	good := `{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","source":"s","verified":"2026-01"}`
	for name, tc := range map[string]string{
		"unknown field": `{"banks":[{"id":"x","nmae":"X"}]}`,
		"bad id":        `{"banks":[` + strings.Replace(good, `"id":"x"`, `"id":"X Y"`, 1) + `]}`,
		"bad group":     `{"banks":[` + strings.Replace(good, `"other"`, `"Other"`, 1) + `]}`,
		"http url":      `{"banks":[` + strings.Replace(good, `https://x.example/api"`, `http://x.example/api"`, 1) + `]}`,
		"no source":     `{"banks":[` + strings.Replace(good, `"source":"s"`, `"source":""`, 1) + `]}`,
		"bad verified":  `{"banks":[` + strings.Replace(good, `"2026-01"`, `"Jan 2026"`, 1) + `]}`,
		"negative days": `{"banks":[` + strings.Replace(good, `"source"`, `"consentDays":-1,"source"`, 1) + `]}`,
		"twice":         `{"banks":[` + good + `,` + good + `]}`,
		"not json":      `[`,
		// Strict files (issue 33, 5): nothing encoding/json would take
		// silently.
		"second value":                           `{"banks":[` + good + `]} {"banks":[]}`,
		"second array":                           `{"banks":[` + good + `]}[]`,
		"trailing text":                          `{"banks":[` + good + `]} x`,
		"banks twice":                            `{"banks":[` + good + `],"banks":[]}`,
		"banks in two cases":                     `{"banks":[` + good + `],"Banks":[]}`,
		"member twice":                           `{"banks":[` + strings.Replace(good, `"name":"X"`, `"name":"X","name":"Y"`, 1) + `]}`,
		"member in two cases":                    `{"banks":[` + strings.Replace(good, `"name":"X"`, `"name":"X","NAME":"Y"`, 1) + `]}`,
		"long s":                                 `{"banks":[` + strings.Replace(good, `"source":"s"`, `"\u017fource":"t","source":"s"`, 1) + `]}`,
		"sandbox is production":                  `{"banks":[` + strings.Replace(good, `x.example/api-sandbox`, `x.example/api`, 1) + `]}`,
		"sandbox is production, spelt otherwise": `{"banks":[` + strings.Replace(good, `https://x.example/api-sandbox`, `https://X.example:443/api/`, 1) + `]}`,
		"too deep":                               `{"comment":` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `,"banks":[` + good + `]}`,
	} {
		_, err := banks.Parse([]byte(tc))
		assert.Error(t, err, name)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "banks: "), "%s: %v", name, err)
		}
	}
	_, err := banks.Parse([]byte(`{"banks":[` + good + `],"comment":"a"}` + "\n\t "))
	assert.NoError(t, err, "white space after the value")
	_, err = banks.Parse([]byte(`{"banks":[` + good + `,` + strings.ReplaceAll(strings.Replace(good, `"id":"x"`, `"id":"y"`, 1), "x.example", "y.example") + `]}`))
	assert.NoError(t, err, "one member per object, in every object")
	d, err := banks.Parse([]byte(`{"banks":[` + good + `]}`))
	require.NoError(t, err)
	assert.Equal(t, 1, d.Len())
}

func TestLoadOverridesAndExtends(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "banks.json")
	require.NoError(t, os.WriteFile(f, []byte(`{"banks":[
 {"id":"sor","name":"Sparebanken Norge (Sør)","group":"other","production":"https://openbanking.sor.no/api","sandbox":"https://openbanking.sor.no/api-sandbox","consentDays":180,"source":"our own test","verified":"2026-11-01"},
 {"id":"newbank","name":"New Bank","group":"other","production":"https://psd2.newbank.example/api","sandbox":"https://psd2.newbank.example/api-sandbox","source":"contract","verified":"2026-11-02"}]}`), 0o600))
	d, err := banks.Load(f)
	require.NoError(t, err)
	assert.Equal(t, banks.Default().Len()+1, d.Len())
	sor, _ := d.Lookup("sor")
	assert.Equal(t, 180*24*time.Hour, sor.ConsentValidity())
	assert.Empty(t, sor.Notes, "an override replaces the whole entry")
	_, ok := d.Lookup("newbank")
	assert.True(t, ok)
	orig, _ := banks.Default().Lookup("sor")
	assert.Equal(t, banks.DefaultConsentValidity, orig.ConsentValidity(), "the default directory is unchanged")

	_, err = banks.Load(filepath.Join(t.TempDir(), "missing.json"))
	assert.Error(t, err)
}

// writeOwn writes a TPP's own directory file holding the entries.
func writeOwn(t *testing.T, entries ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "banks.json")
	require.NoError(t, os.WriteFile(f, []byte(`{"banks":[`+strings.Join(entries, ",")+`]}`), 0o600))
	return f
}

// A bank of the directory pointed at a new host is refused unless the
// entry says hostMoved: the id keeps the bank's budget and journal, right
// for the same bank at a new address and wrong for another bank.
func TestLoadRefusesUnflaggedMove(t *testing.T) {
	t.Parallel()
	const sor = `{"id":"sor","name":"Sparebanken Norge (Sør)","group":"other","production":%q,"sandbox":%q%s,"source":"bank's notice","verified":"2026-11-01"}`
	for name, tc := range map[string]struct {
		production, sandbox, flag string
		ok                        bool
	}{
		"same hosts":                {"https://openbanking.sor.no/api", "https://openbanking.sor.no/api-sandbox", "", true},
		"same host, other spelling": {"https://OpenBanking.sor.no:443/api", "https://openbanking.sor.no./api-sandbox", "", true},
		"same host, new path":       {"https://openbanking.sor.no/api/v2", "https://openbanking.sor.no/api-sandbox/v2", "", true},
		"production moved":          {"https://psd2.sbnorge.no/api", "https://openbanking.sor.no/api-sandbox", "", false},
		"sandbox moved":             {"https://openbanking.sor.no/api", "https://psd2.sbnorge.no/api-sandbox", "", false},
		"both moved":                {"https://psd2.sbnorge.no/api", "https://psd2.sbnorge.no/api-sandbox", "", false},
		"other port":                {"https://openbanking.sor.no:8443/api", "https://openbanking.sor.no/api-sandbox", "", false},
		"both moved, said so":       {"https://psd2.sbnorge.no/api", "https://psd2.sbnorge.no/api-sandbox", `,"hostMoved":true`, true},
		"moved, said false":         {"https://psd2.sbnorge.no/api", "https://psd2.sbnorge.no/api-sandbox", `,"hostMoved":false`, false},
		"not moved, said so anyway": {"https://openbanking.sor.no/api", "https://openbanking.sor.no/api-sandbox", `,"hostMoved":true`, true},
		"moved, flag twice":         {"https://psd2.sbnorge.no/api", "https://psd2.sbnorge.no/api-sandbox", `,"hostMoved":true,"hostMoved":true`, false},
	} {
		d, err := banks.Load(writeOwn(t, fmt.Sprintf(sor, tc.production, tc.sandbox, tc.flag)))
		if !tc.ok {
			require.Error(t, err, name)
			if !strings.Contains(name, "twice") {
				assert.Contains(t, err.Error(), `"hostMoved": true`, "%s: the error names the flag", name)
				assert.Contains(t, err.Error(), "sor", name)
			}
			continue
		}
		require.NoError(t, err, name)
		b, _ := d.Lookup("sor")
		assert.Equal(t, tc.production, b.Production, name)
	}
	// A new id needs no flag, whatever its host.
	_, err := banks.Load(writeOwn(t, `{"id":"nybank","name":"Ny","group":"other","production":"https://openbanking.sor.no/ny","sandbox":"https://openbanking.sor.no/ny-sandbox","source":"contract","verified":"2026"}`))
	require.NoError(t, err)
}

// A directory bank's client is scoped by the bank's id and environment,
// not its base URL (issue 33, 5): a bank whose host moved keeps its
// budget and journal. Before, the scope was the URL, so a moved host
// split both and Resolve refused the bank's old entries.
func TestNewClientScopeIsTheBank(t *testing.T) {
	t.Parallel()
	creds := testtpp.Credentials(t, "Scope TPP")
	sor, ok := banks.Default().Lookup("sor")
	require.True(t, ok)
	d, err := banks.Load(writeOwn(t, `{"id":"sor","name":"Sparebanken Norge (Sør)","group":"other","production":"https://psd2.sbnorge.no/api","sandbox":"https://psd2.sbnorge.no/api-sandbox","hostMoved":true,"source":"bank's notice","verified":"2026-11-01"}`))
	require.NoError(t, err)
	moved, _ := d.Lookup("sor")
	scope := func(b banks.Bank, env banks.Environment, opts ...client.Option) *client.Client {
		c, err := b.NewClient(env, creds, opts...)
		require.NoError(t, err)
		return c
	}
	before, after := scope(sor, banks.Production), scope(moved, banks.Production)
	assert.NotEqual(t, before.BaseURL(), after.BaseURL())
	assert.Equal(t, before.Scope(), after.Scope(), "one bank, whatever its host")
	assert.Equal(t, "bank:banks/sor/production", after.Bank())
	assert.Equal(t, scope(sor, banks.Sandbox).Scope(), scope(moved, banks.Sandbox).Scope())
	assert.NotEqual(t, before.Scope(), scope(sor, banks.Sandbox).Scope(), "production and sandbox apart")
	other, _ := banks.Default().Lookup("smn")
	assert.NotEqual(t, before.Scope(), scope(other, banks.Production).Scope(), "two banks apart")

	// A client made by hand shares the bank's scope with the same name.
	byHand, err := client.New(moved.Production, creds, client.WithBank(sor.ScopeName(banks.Production)))
	require.NoError(t, err)
	assert.Equal(t, before.Scope(), byHand.Scope())
	// An option of the caller names it otherwise.
	assert.NotEqual(t, before.Scope(), scope(sor, banks.Production, client.WithBank("mine")).Scope())
}
