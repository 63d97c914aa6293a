package reconcile_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
)

// spacedKID is a KID with a valid MOD-11 check digit, as a payment sends
// it; 123456789034 (a longer one, also valid) and 1234567890 (a shorter
// one) are other KIDs.
const spacedKID = "12345678903"

// TestKIDEchoedWithSpaces: a bank that echoes the payment's KID in groups
// of digits ("1234 5678 903"), in the structured reference or in the
// text, alone or among words, with spaces or no-break spaces, settles
// the payment by its KID.
func TestKIDEchoedWithSpaces(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ structured, text string }{
		"structured":           {structured: `"1234 5678 903"`},
		"structured object":    {structured: `{"reference":"1234 5678 903"}`},
		"text alone":           {text: "1234 5678 903"},
		"text among words":     {text: "Giro KID: 1234 5678 903 takk"},
		"no-break spaces":      {text: "KID 1234\u00a05678\u00a0903"},
		"narrow no-break":      {text: "KID 1234\u202f5678\u202f903"},
		"grouped from the end": {text: "KID 12 345 678 903"},
		"groups of five":       {text: "KID 12345 67890 3"},
		"at a sentence's end":  {text: "Betaling med KID 1234 5678 903."},
		"before a comma":       {text: "KID 1234 5678 903, takk"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), spacedKID, "")
			e := credit("c1", "2026-03-16", nok("1250.00"), c.text)
			if c.structured != "" {
				e.Transaction.RemittanceInformationStructured = json.RawMessage(c.structured)
			}
			r := f.apply(e)
			require.Len(t, r.Settled, 1, "the KID in groups is the payment's KID")
			assert.Equal(t, reconcile.ByKID, r.Settled[0].By)
			assert.Empty(t, r.Unmatched)
		})
	}
}

// TestKIDSpacesMakeNoOtherKID: removing the grouping spaces never makes
// another KID the payment's: the digits must be the payment's exactly,
// the groups a grouping (not two numbers side by side, nor two numbers
// with a word between), and the check digit valid.
func TestKIDSpacesMakeNoOtherKID(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"a digit short":              "KID 1234 5678 90",
		"a digit more":               "KID 1234 5678 9034", // 123456789034, a valid KID of its own
		"two numbers and a word":     "faktura 1234 kid 5678903",
		"two numbers side by side":   "faktura 1234 5678903",
		"an invoice then the groups": "faktura 1 1234 5678 903",
		"groups of one":              "1 2 3 4 5 6 7 8 9 0 3",
		"double spaces":              "KID 1234  5678  903",
		"a tab":                      "KID 1234\t5678\t903",
		"glued to a word":            "Ref1234 5678 903",
		"uneven groups":              "KID 123 45 678 903",
		"a time's minutes":           "kl 16:12 345 678 903",
		"a number after a slash":     "ordre 2026/1234 5678 903",
		"a code's after a slash":     "ordre INV/1234 5678 903",
		"an invoice's after a dash":  "faktura INV-1234 5678 903",
		"a date's year":              "16-03.2026 1234 5678 903",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), spacedKID, "")
			r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), text))
			assert.Empty(t, r.Settled, "%q does not carry KID %s", text, spacedKID)
			assert.Len(t, r.Unmatched, 1)
		})
	}
	t.Run("structured, a digit more", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), spacedKID, "")
		c := credit("c1", "2026-03-16", nok("1250.00"), "")
		c.Transaction.RemittanceInformationStructured = json.RawMessage(`"1234 5678 9034"`)
		assert.Empty(t, f.apply(c).Settled)
	})
	t.Run("the longer KID in groups settles its own payment", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), spacedKID, "")
		f.pay("p2", nok("1250.00"), "123456789034", "")
		r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID 1234 5678 9034"))
		require.Len(t, r.Settled, 1)
		assert.Equal(t, "p2", r.Settled[0].Payment)
	})
}

// TestPaymentKIDInGroups: a payment tracked with its KID in groups is
// matched by the KID's digits, as a credit's KID is read.
func TestPaymentKIDInGroups(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), "1234 5678 903", "")
	r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID "+spacedKID))
	require.Len(t, r.Settled, 1)
	assert.Equal(t, reconcile.ByKID, r.Settled[0].By)
}

// TestKIDGroupsAreOneKID: a KID echoed in groups is one number: a group
// of it long enough to pass for a KID in a text (5 digits) is not read as
// a KID of its own, so a payment whose KID is that group's digits (a
// digit string less than the echoed KID) is not settled by it. Before,
// every word of 5 digits was a KID, the groups of "12345 67890 3"
// included, and the payment tracked first took the credit.
func TestKIDGroupsAreOneKID(t *testing.T) {
	t.Parallel()
	for _, piece := range []string{"12345", "67890"} {
		t.Run(piece, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p0", nok("1250.00"), piece, "")
			f.pay("p1", nok("1250.00"), spacedKID, "")
			r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID 12345 67890 3"))
			assert.Equal(t, []string{"p1=" + string(acct) + "-c1"}, keys(r.Settled))
		})
	}
	t.Run("alone, a group is no KID", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "2026-03-16")
		f.pay("p0", nok("1250.00"), "67890", "")
		r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID 12345 67890 3"))
		assert.Empty(t, r.Settled)
		assert.Len(t, r.Unmatched, 1)
	})
	t.Run("glued to a token, the groups are still no KIDs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "2026-03-16")
		f.pay("p0", nok("1250.00"), "12345", "")
		f.pay("p1", nok("1250.00"), spacedKID, "")
		r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "ordre 12345 67890 3/2026"))
		assert.Empty(t, r.Settled, "12345 67890 3/2026 is one token")
		assert.Len(t, r.Unmatched, 1)
	})
	t.Run("a number beside the groups is still one", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "2026-03-16")
		f.pay("p0", nok("1250.00"), "67890", "")
		r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "faktura 12345 67890123, kid 67890"))
		assert.Len(t, r.Settled, 1, "67890 stands alone at the end")
	})
}

// TestKIDGluedToAToken: a KID's digits that are a piece of a longer token
// (an order number after a slash, an invoice's number after a dash or
// letters, an amount, a date) are not read as the KID: the payment is
// left waiting, the credit reported unmatched. Before, any run of digits
// of a text was a KID, so "ordre 2026/12345678903" settled the payment
// whose KID is 12345678903.
func TestKIDGluedToAToken(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"after a slash":              "ordre 2026/12345678903",
		"after a slash and a word":   "ordre INV/12345678903",
		"before a slash":             "ordre 12345678903/2026",
		"after a dash":               "faktura INV-12345678903",
		"after a dash at the start":  "-12345678903 faktura",
		"after letters":              "faktura12345678903",
		"before letters":             "12345678903kr",
		"an amount":                  "sum 12345678903.50",
		"an amount with a comma":     "sum 12345678903,00",
		"a time before":              "kl 16:12345678903",
		"after an underscore":        "ref_12345678903",
		"in an address":              "12345678903@bank.no",
		"after an en dash":           "faktura 2026\u201312345678903",
		"after a word ending in kid": "SKID12345678903",
		"after the label glued":      "ordre/KID12345678903",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), spacedKID, "")
			r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), text))
			assert.Empty(t, r.Settled, "%q does not carry KID %s", text, spacedKID)
			assert.Len(t, r.Unmatched, 1)
		})
	}
	for name, text := range map[string]string{
		"after a colon":           "KID:12345678903",
		"after a colon and space": "KID: 12345678903",
		"at a sentence's end":     "Betaling KID 12345678903.",
		"in brackets":             "Faktura (12345678903)",
		"in quotes":               "KID \u00ab12345678903\u00bb",
		"after a number sign":     "KID #12345678903, takk",
		"after an equals sign":    "kid=12345678903",
		"on a line of its own":    "Faktura 2026/17\n12345678903",
		"after the label KID":     "KID12345678903",
		"after the label kid":     "Betaling kid12345678903 takk",
	} {
		t.Run("still read "+name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), spacedKID, "")
			r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), text))
			require.Len(t, r.Settled, 1, "%q carries KID %s", text, spacedKID)
			assert.Equal(t, reconcile.ByKID, r.Settled[0].By)
		})
	}
}
