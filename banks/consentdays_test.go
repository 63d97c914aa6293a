package banks_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/sca"
)

// TestConsentDaysWithinTheFlowsBound: an entry's consentDays is refused
// above the longest consent sca.WithConsentValidity takes
// (366 days): the package tells a TPP to pass
// Bank.ConsentValidity to it. Before, Parse took up to 3660 days, and a
// file with consentDays 400 loaded, its bank's sca.Flow then failed to be
// made. Every figure Parse takes is one the Flow takes.
func TestConsentDaysWithinTheFlowsBound(t *testing.T) {
	t.Parallel()
	good := `{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","source":"s","verified":"2026-01"}`
	with := func(days int) []byte {
		return []byte(`{"banks":[` + strings.Replace(good, `"source"`, `"consentDays":`+strconv.Itoa(days)+`,"source"`, 1) + `]}`)
	}
	for _, days := range []int{367, 400, 3660} {
		_, err := banks.Parse(with(days))
		assert.Error(t, err, "%d days", days)
	}
	for _, days := range []int{1, 180, 366} {
		d, err := banks.Parse(with(days))
		require.NoError(t, err, "%d days", days)
		b, ok := d.Lookup("x")
		require.True(t, ok)
		_, err = sca.NewFlow("https://tpp.example/cb", sca.WithConsentValidity(b.ConsentValidity()))
		assert.NoError(t, err, "%d days", days)
	}
}
