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
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testtpp"
)

func TestSessionJSON(t *testing.T) {
	t.Parallel()
	s := &Session{Key: "user-1", PSUID: okPSU, PSUCorporateID: corpID, TPPSessionID: okSession, Context: Corporate, SCAAt: t0}
	b, err := s.MarshalBinary() // the storage form; json.Marshal redacts (privacy_test.go)
	require.NoError(t, err)
	assert.JSONEq(t, `{"key":"user-1","psuId":"`+okPSU+`","psuCorporateId":"`+corpID+`","tppSessionId":"`+okSession+`","context":"CORPORATE","scaAt":"2026-03-02T10:00:00Z"}`, string(b))
	var back Session
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *s, back)
}

func TestSessionSCAValid(t *testing.T) {
	t.Parallel()
	s := validSession()
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
	s := &Session{PSUID: okPSU, TPPSessionID: okSession, Context: Corporate, SCAAt: t0}
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
	p, err := validSession().WithCorporate(corpID)
	require.NoError(t, err)
	assert.Equal(t, Corporate, p.Context, "choosing an agreement is the corporate context")
	assert.False(t, validSession().NeedsCorporateID())
}

func mockClient(t testing.TB) (*client.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.New("https://psd2.bank.example/api", testtpp.Credentials(t, "sca test"),
		client.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	return c, mt
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
	s := &Session{PSUID: okPSU, PSUCorporateID: corpID, TPPSessionID: okSession, Context: Corporate, SCAAt: t0}
	ags, err := Agreements(t.Context(), c, s, client.WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	assert.Equal(t, []Agreement{{ID: "f062942c-9ce8-4742-b0ef-39f083f1738b", Name: "Fjordlys Bakeri AS"},
		{ID: "6376a34c-9693-465e-a0d8-6c6bdd775263", Name: "Testfirma Nord AS"}}, ags)
	assert.Equal(t, okPSU, got.Get("PSU-ID"))
	assert.Equal(t, corpID, got.Get("PSU-Corporate-ID"))
	assert.Equal(t, okSession, got.Get("TPP-Session-ID"))
	assert.Equal(t, "https://tpp.example/cb", got.Get("TPP-Redirect-URI"))
	assert.Empty(t, got.Get("PSU-IP-Address"), "without the PSU present")

	// Streamlining options of Flow.Start reach the wire.
	f, err := NewFlow("https://tpp.example/cb")
	require.NoError(t, err)
	_, ro, err := f.Start("k", Switch(s), WithPSUIdentity("13039319955"), WithAuthMethod(AuthMethodHA2), WithRedirectPreferred(false))
	require.NoError(t, err)
	_, err = Agreements(t.Context(), c, s, ro)
	require.NoError(t, err)
	assert.Equal(t, "13039319955", got.Get("X-PSU-IDENTITY"))
	assert.Equal(t, "HA2", got.Get("X-PSU-AuthMethod-Preferred"))
	assert.Equal(t, "false", got.Get("TPP-Redirect-Preferred"))
	assert.True(t, strings.HasPrefix(got.Get("TPP-Redirect-URI"), "https://tpp.example/cb?state="))

	// An invalid session fails the call before anything is sent.
	calls := mt.GetTotalCallCount()
	_, err = Agreements(t.Context(), c, &Session{PSUID: "not-a-uuid", TPPSessionID: okSession, Context: Private})
	require.ErrorIs(t, err, ErrInvalidSession)
	_, err = Agreements(t.Context(), c, nil)
	require.ErrorIs(t, err, ErrInvalidSession)
	_, err = Agreements(t.Context(), nil, s)
	require.Error(t, err)
	_, _, err = User(t.Context(), nil)
	require.Error(t, err)
	assert.Equal(t, calls, mt.GetTotalCallCount())
}

func BenchmarkParseCallback(b *testing.B) {
	f, err := NewFlow(base, WithClock(func() time.Time { return t0 }))
	require.NoError(b, err)
	cb := readTestdata(b, "sca-callback-success.txt")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ParseCallback(pendingFor(okState), cb); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFileStorePut(b *testing.B) {
	st, err := NewFileStore(b.TempDir() + "/s")
	require.NoError(b, err)
	v := []byte(`{"psuId":"` + okPSU + `","tppSessionId":"` + okSession + `","context":"PRIVATE"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := st.Put(b.Context(), "sca/session/user-1", v); err != nil {
			b.Fatal(err)
		}
	}
}
