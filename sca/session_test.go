package sca

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/store"
)

func TestSessionJSON(t *testing.T) {
	t.Parallel()
	s := &Session{Key: "user-1", PSUID: okPSU, PSUCorporateID: corpID, TPPSessionID: okSession, Context: client.Corporate, SCAAt: t0}
	b, err := s.MarshalBinary() // the storage form; json.Marshal redacts (privacy_test.go)
	require.NoError(t, err)
	assert.JSONEq(t, `{"key":"user-1","psuId":"`+okPSU+`","psuCorporateId":"`+corpID+`","tppSessionId":"`+okSession+`","context":"CORPORATE","scaAt":"2026-03-02T10:00:00Z"}`, string(b))
	var back Session
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *s, back)
}

// privateSession is a valid session of a private PSU whose SCA completed
// at t0.
func privateSession() *Session {
	return &Session{PSUID: okPSU, TPPSessionID: okSession, Context: client.Private, SCAAt: t0}
}

func TestSessionSCAValid(t *testing.T) {
	t.Parallel()
	s := privateSession()
	tests := []struct {
		name string
		at   time.Time
		want bool
	}{
		{"at SCA", t0, true},
		{"59 minutes later", t0.Add(59 * time.Minute), true},
		{"a nanosecond short of an hour", t0.Add(SCAValidity - 1), true},
		{"one hour later", t0.Add(SCAValidity), false},
		{"a day later", t0.Add(24 * time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, s.SCAValid(tt.at))
		})
	}
	assert.False(t, (*Session)(nil).SCAValid(t0))
	assert.False(t, (&Session{PSUID: okPSU}).SCAValid(t0), "no SCA time")
	assert.Equal(t, t0.Add(time.Hour), s.SCAExpiresAt())
}

func TestSessionCorporate(t *testing.T) {
	t.Parallel()
	s := &Session{PSUID: okPSU, TPPSessionID: okSession, Context: client.Corporate, SCAAt: t0}
	assert.True(t, s.NeedsCorporateID())
	c, err := s.WithCorporate(corpID)
	require.NoError(t, err)
	assert.False(t, c.NeedsCorporateID())
	assert.Equal(t, corpID, c.PSUCorporateID)
	assert.Empty(t, s.PSUCorporateID, "WithCorporate copies")
	_, err = s.WithCorporate("918273645")
	assert.ErrorIs(t, err, ErrInvalidSession)
	_, err = (*Session)(nil).WithCorporate(corpID)
	assert.ErrorIs(t, err, ErrInvalidSession)
	p, err := privateSession().WithCorporate(corpID)
	require.NoError(t, err)
	assert.Equal(t, client.Corporate, p.Context, "choosing an agreement is the corporate context")
	assert.False(t, privateSession().NeedsCorporateID())
}

func mockClient(t testing.TB) (*client.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.New("https://psd2.bank.example/api", testtpp.Credentials(t, "sca test"),
		client.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	return c, mt
}

// agreements lists the agreements with accounts.Service.Agreements, the
// one call of GET /v1/agreements.
func agreements(t *testing.T, c *client.Client, ro ...client.RequestOption) ([]accounts.Agreement, error) {
	t.Helper()
	svc, err := accounts.New(c)
	if err != nil {
		return nil, err
	}
	return svc.Agreements(t.Context(), ro...)
}

func TestSessionRequestOptionsOnTheWire(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var got http.Header
	mt.RegisterResponder(http.MethodGet, "https://psd2.bank.example/api/v1/agreements", func(r *http.Request) (*http.Response, error) {
		got = r.Header.Clone()
		resp := httpmock.NewStringResponse(200, readTestdata(t, "agreements.json"))
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	s := &Session{PSUID: okPSU, PSUCorporateID: corpID, TPPSessionID: okSession, Context: client.Corporate, SCAAt: t0}
	ags, err := agreements(t, c, s.RequestOptions(nil), client.WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	assert.Equal(t, []accounts.Agreement{{ID: "f062942c-9ce8-4742-b0ef-39f083f1738b", Name: "Fjordlys Bakeri AS"},
		{ID: "6376a34c-9693-465e-a0d8-6c6bdd775263", Name: "Testfirma Nord AS"}}, ags)
	assert.Equal(t, okPSU, got.Get("PSU-ID"))
	assert.Equal(t, corpID, got.Get("PSU-Corporate-ID"))
	assert.Equal(t, "CORPORATE", got.Get("PSU-Context"), "the session's context")
	assert.Equal(t, okSession, got.Get("TPP-Session-ID"))
	assert.Equal(t, "https://tpp.example/cb", got.Get("TPP-Redirect-URI"))
	assert.Empty(t, got.Get("PSU-IP-Address"), "without the PSU present")

	// With the PSU present its data are sent, with the session's ids
	// whatever present says.
	_, err = agreements(t, c, s.RequestOptions(&client.PSU{ID: "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d", IPAddress: "192.0.2.10"}),
		client.WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	assert.Equal(t, okPSU, got.Get("PSU-ID"))
	assert.Equal(t, "192.0.2.10", got.Get("PSU-IP-Address"))
	assert.Equal(t, "CORPORATE", got.Get("PSU-Context"))

	// Streamlining options of Flow.Start reach the wire.
	f, err := NewFlow("https://tpp.example/cb")
	require.NoError(t, err)
	_, ro, err := f.Start("k", switchTo(s), WithPSUIdentity("13039319955"), WithAuthMethod(AuthMethodHA2), WithRedirectPreferred(false))
	require.NoError(t, err)
	_, err = agreements(t, c, s.RequestOptions(nil), ro)
	require.NoError(t, err)
	assert.Equal(t, "13039319955", got.Get("X-PSU-IDENTITY"))
	assert.Equal(t, "HA2", got.Get("X-PSU-AuthMethod-Preferred"))
	assert.Equal(t, "false", got.Get("TPP-Redirect-Preferred"))
	assert.True(t, strings.HasPrefix(got.Get("TPP-Redirect-URI"), "https://tpp.example/cb?state="))

	// An invalid session fails the call before anything is sent.
	calls := mt.GetTotalCallCount()
	for name, bad := range map[string]*Session{
		"PSU-ID not a UUID": {PSUID: "not-a-uuid", TPPSessionID: okSession, Context: client.Private},
		"no context":        {PSUID: okPSU, TPPSessionID: okSession},
		"nil":               nil,
	} {
		_, err = agreements(t, c, bad.RequestOptions(nil), client.WithRedirectURI("https://tpp.example/cb"))
		require.ErrorIs(t, err, ErrInvalidSession, name)
		require.ErrorIs(t, err, client.ErrNotSent, name)
	}
	_, _, err = User(t.Context(), nil)
	require.Error(t, err)
	assert.Equal(t, calls, mt.GetTotalCallCount())
}

func BenchmarkParseCallback(b *testing.B) {
	f, err := NewFlow(base, withNow(func() time.Time { return t0 }))
	require.NoError(b, err)
	cb := readTestdata(b, "sca-callback-success.txt")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ParseCallback(pendingFor(okState), cb); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveSessionFileStore measures keeping a session in a
// store.FileStore: the storage form, an fsynced file, its rename.
func BenchmarkSaveSessionFileStore(b *testing.B) {
	st, err := store.NewFileStore(b.TempDir() + "/s")
	require.NoError(b, err)
	s := &Session{PSUID: okPSU, TPPSessionID: okSession, Context: client.Private, SCAAt: t0}
	b.ReportAllocs()
	for b.Loop() {
		if err := SaveSession(b.Context(), st, "user-1", s); err != nil {
			b.Fatal(err)
		}
	}
}
