package refresh_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
)

// A session the SDK knows of no consent for (sca.Session.NoConsent: its
// SCA was a payment's or GET /v1/user's; or no SCA time, so no consent
// end) is no consent to read on without the PSU: sca says ConsentValid is
// false, and the refresher sends nothing.
func TestRefreshSendsNothingWithoutKnownConsent(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	base := refreshbench.Remembered(t, b.seeded.Customers[0])
	for _, name := range []string{"no consent", "no SCA time"} {
		s := *base
		if name == "no consent" {
			s.NoConsent = true
		} else {
			s.SCAAt = time.Time{}
		}
		require.False(t, s.ConsentValid(b.clock.Now()), name)
		res := r.Refresh(t.Context(), newJob(t, &s, s.AccountIDs[0], false))
		assert.Equal(t, refresh.ReconnectNeeded, res.Outcome, name)
		assert.ErrorIs(t, res.Err, refresh.ErrConsentEnded, name)
		assert.Zero(t, res.Calls, name)
	}
}
