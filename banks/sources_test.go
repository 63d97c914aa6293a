package banks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
)

// The public sources the shipped directory rests on (see banks.json and the
// package doc): the hosts of a production TPP agent's 2020-04 seed file,
// those seen in public pages 2024-2026 only, and those seen live in public
// developer documentation in 2026.
var (
	seedSpareBank1 = []string{"psd2.sr-bank.no", "psd2.smn.no", "psd2.snn.no", "psd2.snv.no", "psd2.sb1ostlandet.no",
		"psd2.soa.sparebank1.no", "psd2.rhbank.no", "psd2.sb1telemark.no", "psd2.sb1modum.no", "psd2.s1g.no", "psd2.sb1.no",
		"psd2.sb1ls.no", "psd2.sparebanken.no", "psd2.s1bv.no"}
	seedOthers = []string{"openbanking.sor.no", "openbanking.sbm.no", "openbanking.oest.no", "openbanking.ssf.no",
		"openbanking.handelsbanken.no", "openbanking.swedbank.no", "openbanking.landkreditt.no", "openbanking.bnbank.no",
		"openbanking.gjensidige.no", "openbanking.klp.no", "openbanking.obos.no", "openbanking.paretobank.no",
		"openbanking.sbanken.no", "openbanking.hsb.no", "openbanking.haugesund-sparebank.no", "openbanking.fanasparebank.no",
		"openbanking.flekkefjordsparebank.no", "openbanking.lillesands-sparebank.no", "openbanking.luster-sparebank.no",
		"openbanking.etne-sparebank.no", "openbanking.skudeaakra.no", "openbanking.sgsparebank.no",
		"openbanking.spareskillingsbanken.no", "openbanking.vossabanken.no", "openbanking.okq8bank.se"}
	seenLater = []string{"psd2.sbh.no", "psd2.skuesparebank.no", "psd2.etnedalsparebank.no", "psd2.oslofjordsparebank.no", "psd2.eika.no"}
	live2026  = []string{"psd2.sb1.no", "psd2.sbh.no", "psd2.s1g.no", "psd2.snv.no", "psd2.rhbank.no", "psd2.soa.sparebank1.no",
		"psd2.sb1ostlandet.no", "psd2.skuesparebank.no", "openbanking.sor.no", "openbanking.luster-sparebank.no",
		"openbanking.lillesands-sparebank.no", "openbanking.handelsbanken.no"}
)

// TestDirectoryIsThePublicSources checks the shipped directory entry by
// entry against the public sources: every host once, no other, in the
// base URL forms https://<host>/api and https://<host>/api-sandbox, in its
// group, the Eika banks as one entry at their shared host, the names the
// sources give, and each entry citing every source its facts come from
// with the date it was last seen. Before the fix the ten hosts of the
// 2020 seed file that were seen again in 2026 cited only the 2026 pages,
// though their group and (for psd2.sb1.no) their name come from the seed
// file alone.
func TestDirectoryIsThePublicSources(t *testing.T) {
	t.Parallel()
	byHost := map[string]banks.Bank{}
	for _, b := range banks.Default().All() {
		_, twice := byHost[b.Host()]
		assert.False(t, twice, "host %s in two entries", b.Host())
		byHost[b.Host()] = b
	}
	want := map[string]banks.Group{}
	for _, h := range seedSpareBank1 {
		want[h] = banks.GroupSpareBank1
	}
	for _, h := range seedOthers {
		want[h] = banks.GroupOther
	}
	want["psd2.sbh.no"] = banks.GroupSpareBank1
	want["psd2.skuesparebank.no"] = banks.GroupOther
	want["psd2.etnedalsparebank.no"] = banks.GroupOther
	want["psd2.oslofjordsparebank.no"] = banks.GroupOther
	want["psd2.eika.no"] = banks.GroupEika
	require.Len(t, want, 44)
	for h := range byHost {
		_, ok := want[h]
		assert.True(t, ok, "host %s is in no public source", h)
	}
	for h, g := range want {
		b, ok := byHost[h]
		if !assert.True(t, ok, "host %s missing", h) {
			continue
		}
		assert.Equal(t, "https://"+h+"/api", b.Production, h)
		assert.Equal(t, "https://"+h+"/api-sandbox", b.Sandbox, h)
		assert.Equal(t, g, b.Group, h)
		got, ok := banks.Default().Lookup(b.ID)
		assert.True(t, ok, h)
		assert.Equal(t, b, got, h)
	}
	eika := byHost["psd2.eika.no"]
	assert.Equal(t, "eika", eika.ID)
	assert.Contains(t, eika.Name, "shared host")
	assert.Contains(t, eika.Notes, "over 50 Eika banks")
	assert.Contains(t, eika.Notes, "during SCA")
	for name, h := range map[string]string{"Hallingdal Valdres": "psd2.sb1.no", "Lom og Skjåk": "psd2.sb1ls.no",
		"Søre Sunnmøre": "psd2.sparebanken.no", "Møre": "openbanking.sbm.no", "Sogn og Fjordane": "openbanking.ssf.no",
		"Helgeland": "openbanking.hsb.no", "SpareBank 1 Helgeland": "psd2.sbh.no"} {
		assert.Contains(t, byHost[h].Name, name, h)
	}
	assert.Contains(t, byHost["openbanking.okq8bank.se"].Notes, "Swedish domain")
	assert.Contains(t, byHost["openbanking.sor.no"].Notes, "Q4 2026")
	assert.Contains(t, byHost["psd2.oslofjordsparebank.no"].Notes, "Q1 2027")

	isLive := map[string]bool{}
	for _, h := range live2026 {
		isLive[h] = true
		assert.Contains(t, byHost[h].Source, "seen live in 2026", h)
		assert.Equal(t, "2026", byHost[h].Verified, h)
	}
	for _, h := range slicesConcat(seedSpareBank1, seedOthers) {
		assert.Contains(t, byHost[h].Source, "provider seed file", "%s: its group and name come from the 2020 seed file", h)
		if !isLive[h] {
			assert.Equal(t, "2020-04", byHost[h].Verified, h)
		}
	}
	for _, h := range seenLater {
		assert.False(t, strings.Contains(byHost[h].Source, "seed file of"), "%s is not in the 2020 seed file", h)
	}
}

func slicesConcat(a, b []string) []string { return append(append([]string{}, a...), b...) }
