package sca

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
)

// TestLearnConsentEndAtZeroTime checks that LearnConsentEnd never moves a
// consent's end later: a zero time (an answer whose time the caller did
// not have) teaches nothing. A zero ConsentUntil means "SCAAt plus
// ConsentValidity", so storing it undid an end the session knew.
//
// Before the fix, the copy had ConsentUntil zero and learned was true:
// a session whose consent the bank had just said expired, and whose end
// carried over from an earlier SCA was day 30, was valid until day 90.
func TestLearnConsentEndAtZeroTime(t *testing.T) {
	t.Parallel()
	expired := &client.Error{StatusCode: 401, Messages: []client.TPPMessage{{Code: client.CodeConsentExpired}}}
	end := t0.Add(30 * 24 * time.Hour)
	s := &Session{PSUID: okPSU, TPPSessionID: okSession, Context: client.Private, SCAAt: t0, ConsentUntil: end}
	got, learned := s.LearnConsentEnd(expired, time.Time{})
	assert.False(t, learned)
	assert.Same(t, s, got)
	assert.Equal(t, end, got.ConsentExpiresAt(), "never later than the end the session knew")
}
