package events_test

import (
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestFarEndIsNotDue checks that a certificate or consent ending centuries
// away crosses no threshold (docs/design.md: events are "certificate
// expiring", "consent renewal due", each at its configured days before
// the end). A certificate with RFC 5280's "no well-defined expiration"
// NotAfter, 9999-12-31T23:59:59Z, is one. Before the fix daysLeft added a
// day to a time.Duration that end.Sub(now) had already saturated at its
// maximum (about 292 years): the sum overflowed to a negative number of
// days, every threshold was taken as crossed, and the Emitter published
// CertificateExpiring (DaysLeft 0, Threshold 1) and ConsentRenewalDue
// (DaysLeft -106751) for things that end in the year 9999.
func TestFarEndIsNotDue(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now))
	require.NoError(t, err)
	far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	require.NoError(t, em.Certificate(t.Context(), "signing", &x509.Certificate{NotAfter: far}))
	require.NoError(t, em.Consent(t.Context(), "tpp-consent-far", far))
	assert.Empty(t, col.evs, "nothing ends within a threshold")
}
