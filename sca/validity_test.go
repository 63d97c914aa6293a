package sca_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

func TestWithConsentValidityRefusesOutOfRange(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, time.Hour, 400 * 24 * time.Hour} {
		_, err := sca.NewFlow("https://tpp.example/cb", sca.WithConsentValidity(d))
		assert.Error(t, err, d)
	}
	_, err := sca.NewFlow("https://tpp.example/cb", sca.WithConsentValidity(180*24*time.Hour))
	assert.NoError(t, err)
}

func TestLearnConsentEnd(t *testing.T) {
	t.Parallel()
	sca0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	s := &sca.Session{PSUID: "x", SCAAt: sca0}
	expired := &client.Error{StatusCode: 401, Messages: []client.TPPMessage{{Category: "ERROR", Code: "CONSENT_EXPIRED"}}}
	require.True(t, errors.Is(expired, client.ErrConsentExpired))

	at := sca0.Add(30 * 24 * time.Hour)
	got, learned := s.LearnConsentEnd(fmt.Errorf("accounts.List: %w", expired), at)
	require.True(t, learned)
	assert.Equal(t, at, got.ConsentExpiresAt())
	assert.False(t, got.ConsentValid(at))
	assert.Equal(t, sca0.Add(sca.ConsentValidity), s.ConsentExpiresAt(), "the original is unchanged")

	// Another error, or an answer after the expected end, teaches nothing.
	for _, tc := range []struct {
		err error
		at  time.Time
	}{
		{&client.Error{StatusCode: 401, Messages: []client.TPPMessage{{Code: "CONSENT_INVALID"}}}, at},
		{errors.New("network"), at},
		{expired, sca0.Add(sca.ConsentValidity + time.Hour)},
	} {
		got, learned := s.LearnConsentEnd(tc.err, tc.at)
		assert.False(t, learned)
		assert.Same(t, s, got)
	}
}

func TestFlowConsentValidityEndsTheSession(t *testing.T) {
	t.Parallel()
	const psu = "7b0e3c8e-2f4d-4c1a-9b7e-5d6f8a9b0c1d"
	for _, tc := range []struct {
		opts []sca.FlowOption
		want time.Duration
	}{
		{nil, sca.ConsentValidity},
		{[]sca.FlowOption{sca.WithConsentValidity(180 * 24 * time.Hour)}, 180 * 24 * time.Hour},
	} {
		f, err := sca.NewFlow("https://tpp.example/cb", tc.opts...)
		require.NoError(t, err)
		p, _, err := f.Start("user-1")
		require.NoError(t, err)
		s, err := f.ParseCallback(p, p.RedirectURI+"&psu-id="+psu+"&tpp-session-id="+p.TPPSessionID+"&context=PRIVATE")
		require.NoError(t, err)
		assert.Equal(t, s.SCAAt.Add(tc.want), s.ConsentExpiresAt())
	}
}
