package money

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	xcurrency "golang.org/x/text/currency"
)

// The currency table is checked against an independent one,
// golang.org/x/text/currency. That package is CLDR (version 32, 2017),
// not ISO 4217: currency.Standard.Rounding gives CLDR's standard display
// digits (x/text has no ISO rounding; currency.ISO is a formatter, and
// Cash is cash rounding), and ParseISO knows historic codes too. Every
// code on which the two disagree is listed below with the figure of
// ISO 4217 list one (the maintenance agency's published table, SIX
// Financial Information, "list-one.xml", current edition), which is the
// figure this package must have. An entry that no longer differs fails
// the test, so the lists stay exact.

// isoNotCLDR is ISO 4217's minor units where CLDR's standard digits
// differ (CLDR 32 gives 0 for all of these: digits shown, not the minor
// unit of account).
var isoNotCLDR = map[string]int{
	"AFN": 2, "ALL": 2, "AMD": 2, "COP": 2, "GYD": 2, "IDR": 2, "IQD": 3,
	"IRR": 2, "KPW": 2, "LAK": 2, "LBP": 2, "MGA": 2, "MMK": 2, "MNT": 2,
	"MUR": 2, "PKR": 2, "RSD": 2, "SOS": 2, "SYP": 2, "TZS": 2, "UZS": 2,
	"YER": 2,
}

// isoNewerThanXText is in ISO 4217 list one but unknown to x/text's
// CLDR 32: introduced since 2017 (MRU 2018, VES 2018, UYW 2018,
// VED 2021, SLE 2022, ZWG 2024, XCG 2025, XAD 2025).
var isoNewerThanXText = map[string]int{
	"MRU": 2, "SLE": 2, "UYW": 4, "VED": 2, "VES": 2, "XAD": 2, "XCG": 2,
	"ZWG": 2,
}

// notInListOne is known to x/text but is not a currency of ISO 4217
// list one with minor units, so this package refuses it: codes withdrawn
// (ISO 4217 list three: HRK and SLL 2023, ZWL 2024, ANG 2025, BGN on
// Bulgaria's change to the euro, CUC, MRO, STD, VEF, ...), codes with
// minor units "N.A." (precious metals XAU XAG XPD XPT, XDR, XSU, XUA,
// bond units XBA-XBD, XTS, XXX) and CLDR-only codes (CNH, CNX, ...).
// A bank document carrying one still decodes as sent (faithful
// decoding); a request in one is refused.
var notInListOne = strings.Fields(`
	ADP AFA ALK ANG AOK AON AOR ARA ARL ARM ARP ATS AZM BAD BAN BEC BEF BEL
	BGL BGM BGN BGO BOL BOP BRB BRC BRE BRN BRR BRZ BUK BYB BYR CLE CNH CNX
	CSD CSK CUC CYP DDM DEM ECS ECV EEK ESA ESB ESP FIM FRF GEK GHC GNS GQE
	GRD GWE GWP HRD HRK IEP ILP ILR ISJ ITL KRH KRO LTL LTT LUC LUF LUL LVL
	LVR MAF MCF MDC MGF MKN MLF MRO MTL MTP MVP MXP MZE MZM NIC NLG PEI PES
	PLZ PTE RHD ROL RUR SDD SDP SIT SKK SLL SRG STD SUR TJR TMM TPE TRL UAK
	UGS USS UYP VEB VEF VNN XAG XAU XBA XBB XBC XBD XDR XEU XFO XFU XPD XPT
	XRE XSU XTS XUA XXX YDD YUD YUM YUN YUR ZAL ZMK ZRN ZRZ ZWD ZWL ZWR`)

// TestMinorUnitsAgainstXText compares, for every upper-case three-letter
// code, whether x/text and this package know it and with how many
// fraction digits; every disagreement must be one of the lists above, and
// the package must hold ISO 4217's figure for it.
func TestMinorUnitsAgainstXText(t *testing.T) {
	t.Parallel()
	notInList := make(map[string]bool, len(notInListOne))
	for _, c := range notInListOne {
		notInList[c] = true
	}
	seen := map[string]bool{}
	agreed := 0
	var code [3]byte
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			for c := byte('A'); c <= 'Z'; c++ {
				code = [3]byte{a, b, c}
				s := string(code[:])
				u, err := xcurrency.ParseISO(s)
				xKnown := err == nil && u.String() == s
				xUnits := -1
				if xKnown {
					xUnits, _ = xcurrency.Standard.Rounding(u)
				}
				units, known := MinorUnits(s)
				switch {
				case xKnown && known && xUnits == units:
					agreed++
					continue
				case !xKnown && !known:
					continue
				}
				seen[s] = true
				iso, notCLDR := isoNotCLDR[s]
				newer, isNewer := isoNewerThanXText[s]
				switch {
				case notCLDR:
					assert.True(t, known && units == iso, "%s: ISO 4217 has %d minor units, the package %d (known %v); x/text %d", s, iso, units, known, xUnits)
				case isNewer:
					assert.True(t, known && units == newer, "%s: ISO 4217 has %d minor units, the package %d (known %v)", s, newer, units, known)
					assert.False(t, xKnown, s)
				case notInList[s]:
					assert.False(t, known, "%s is not in ISO 4217 list one with minor units", s)
					assert.False(t, IsCurrency(s), s)
				default:
					t.Errorf("%s: x/text knows %v with %d digits, the package knows %v with %d: not a known disagreement; check ISO 4217 list one", s, xKnown, xUnits, known, units)
				}
			}
		}
	}
	for _, list := range []map[string]int{isoNotCLDR, isoNewerThanXText} {
		for c := range list {
			assert.True(t, seen[c], "%s no longer differs from x/text: drop it from the list", c)
		}
	}
	for c := range notInList {
		assert.True(t, seen[c], "%s no longer differs from x/text: drop it from the list", c)
	}
	// ISO 4217 list one has about 165 codes with minor units; all but
	// the newer ones and those above are known to CLDR 32 with the same
	// figure.
	assert.Greater(t, agreed, 120)
}

// TestMinorUnitsISO pins ISO 4217 list one's figure for the currencies
// whose minor units are not 2, and for recently changed codes, as typed
// from the published table (SIX, list one, current edition).
func TestMinorUnitsISO(t *testing.T) {
	t.Parallel()
	iso := map[string]int{
		// 0 minor units
		"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0,
		"KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0,
		"XAF": 0, "XOF": 0, "XPF": 0,
		// 3 minor units
		"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
		// 4 minor units
		"CLF": 4, "UYW": 4,
		// recent codes and changes, 2 minor units
		"VES": 2, "VED": 2, "SLE": 2, "ZWG": 2, "MRU": 2, "STN": 2, "XCG": 2,
	}
	for code, want := range iso {
		got, ok := MinorUnits(code)
		assert.True(t, ok, code)
		assert.Equal(t, want, got, code)
	}
	// Every other known currency has 2 minor units.
	for _, c := range allCodes() {
		if _, listed := iso[c]; listed {
			continue
		}
		got, _ := MinorUnits(c)
		assert.Equal(t, 2, got, "%s: ISO 4217 minor units are 2 unless listed above", c)
	}
}

// allCodes is every code the package knows.
func allCodes() []string {
	var out []string
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			for c := byte('A'); c <= 'Z'; c++ {
				if s := string([]byte{a, b, c}); IsCurrency(s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
