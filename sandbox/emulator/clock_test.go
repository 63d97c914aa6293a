package emulator

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClockControls: set, advance, freeze and resume move the bank's
// clock over the server's, and only the bank's.
func TestClockControls(t *testing.T) {
	t.Parallel()
	wire := newFakeClock()
	s := startServer(t, WithClock(wire.Now))
	ctl := s.Control()
	start := wire.Now()
	assert.Equal(t, start, ctl.Now(), "without controls the clocks agree")

	ctl.Advance(89 * 24 * time.Hour)
	assert.Equal(t, start.Add(89*24*time.Hour), ctl.Now())
	assert.Equal(t, start, s.wireNow(), "the wire keeps the server's clock")
	wire.Add(time.Minute)
	assert.Equal(t, start.Add(89*24*time.Hour+time.Minute), ctl.Now(), "a running bank clock follows the server's")

	ctl.Freeze()
	frozen := ctl.Now()
	wire.Add(time.Hour)
	assert.Equal(t, frozen, ctl.Now(), "frozen")
	ctl.Advance(time.Second)
	assert.Equal(t, frozen.Add(time.Second), ctl.Now(), "a frozen clock still advances")
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ctl.SetTime(at)
	assert.True(t, at.Equal(ctl.Now()), "set while frozen")
	wire.Add(time.Hour)
	assert.True(t, at.Equal(ctl.Now()), "stays set while frozen")

	ctl.Resume()
	assert.True(t, at.Equal(ctl.Now()), "resumes from the frozen reading")
	wire.Add(time.Minute)
	assert.True(t, at.Add(time.Minute).Equal(ctl.Now()), "runs again")

	ctl.SetTime(start)
	assert.True(t, start.Equal(ctl.Now()), "set back")
	assert.Equal(t, wire.Now().Location(), ctl.Now().Location(), "the bank's clock keeps the server clock's zone")
}

// TestAdvanceMovesConsentsNotTheDateWindow: a consent given now answers
// on day 89 and expires on day 91 of the bank's clock, while the client
// signs with the server's clock throughout (the Date window is the
// wire's).
func TestAdvanceMovesConsentsNotTheDateWindow(t *testing.T) {
	t.Parallel()
	wire := newFakeClock()
	s := startServer(t, WithClock(wire.Now))
	c := newTPPClient(t, s, "Clock TPP")
	sid := uuid.NewString()
	psu := c.login(CustomerKari, sid)
	id := c.accountIDs(psuHeaders(psu, sid)...)[0]
	balances := func() *response {
		return c.get("/v1/accounts/"+id+"/balances", hdr("PSU-ID", psu), hdr("TPP-Session-ID", sid))
	}
	require.Equal(t, http.StatusOK, balances().status)
	given := s.Control().Now()
	assert.Equal(t, []Consent{{Given: given, Expires: given.Add(90 * 24 * time.Hour)}},
		s.Control().Consents(c.creds.Certificate, CustomerKari))
	assert.Empty(t, s.Control().Consents(c.creds.Certificate, CustomerOla), "no consent of another customer")

	s.Control().Advance(89 * 24 * time.Hour)
	r := balances()
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, wire.Now().UTC().Format(http.TimeFormat), r.header.Get("Date"), "answers carry the server's clock")

	s.Control().Advance(2 * 24 * time.Hour)
	r = balances()
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "CONSENT_EXPIRED", code)

	s.Control().RevokeConsent(CustomerKari)
	assert.Empty(t, s.Control().Consents(c.creds.Certificate, CustomerKari), "revoked")
}
