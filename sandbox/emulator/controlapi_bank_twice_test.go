package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlAPIRefusesABankNamedTwice: ?bank= given twice
// (?bank=alpha&bank=beta) is refused, 400 naming bank, before any
// control runs, as a key given twice in the body is. The first was
// taken and the second dropped without a word: the control ran on
// alpha, whichever bank the caller meant.
func TestControlAPIRefusesABankNamedTwice(t *testing.T) {
	t.Parallel()
	m, err := NewMultiBank([]string{"alpha.localhost", "beta.localhost"})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	alpha, beta := m.Bank("alpha.localhost"), m.Bank("beta.localhost")
	alpha.Control().Freeze()
	beta.Control().Freeze()
	beforeA, beforeB := alpha.Control().Now(), beta.Control().Now()
	h := m.ControlHandler("tok")
	for _, target := range []string{
		"/controls/advance?bank=alpha&bank=beta",
		"/controls/advance?bank=alpha&bank=alpha",
		"/controls/advance?bank=alpha&bank=",
	} {
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(`{"days":1}`))
		req.Header.Set("Authorization", "Bearer tok")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", target, rec.Body)
		assert.Contains(t, rec.Body.String(), "bank", target)
	}
	assert.Equal(t, beforeA, alpha.Control().Now(), "alpha's clock moved")
	assert.Equal(t, beforeB, beta.Control().Now(), "beta's clock moved")
	// One ?bank= runs the control on that bank.
	req := httptest.NewRequest(http.MethodPost, "/controls/advance?bank=beta", strings.NewReader(`{"days":1}`))
	req.Header.Set("Authorization", "Bearer tok")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, beforeA, alpha.Control().Now())
}
