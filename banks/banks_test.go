package banks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/banks"
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
	} {
		_, err := banks.Parse([]byte(tc))
		assert.Error(t, err, name)
	}
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
