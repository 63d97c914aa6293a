package budget_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// No printed form (%v %+v %#v %s %q %x %d, of the value, its pointer, a
// slice and a struct holding it) and no slog form of a ReserveRequest
// shows the account id or the claim's name; they show what is taken and
// until when.
func TestReserveRequestFormsHideTheAccount(t *testing.T) {
	t.Parallel()
	req := budget.ReserveRequest{AccountID: "acc-3f9a1c", Balances: 1, Transactions: 2,
		Claim: "claim-77e0b2", ClaimUntil: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
	secrets := []string{"acc-3f9a1c", "claim-77e0b2"}
	forms := redacttest.AssertHidden(t, req, secrets)
	redacttest.AssertHidden(t, &req, secrets)
	redacttest.AssertHidden(t, []budget.ReserveRequest{req, req}, secrets)
	redacttest.AssertHidden(t, struct{ R budget.ReserveRequest }{req}, secrets)
	for _, verb := range redacttest.Verbs {
		assert.Contains(t, forms[verb], "budget.ReserveRequest", "%s names the type", verb)
	}
	for _, s := range []string{"balances", "2026-03-04"} {
		assert.Contains(t, forms["%v"], s)
		assert.Contains(t, forms["slog JSON"], s)
		assert.Contains(t, forms["slog text"], s)
	}
}
