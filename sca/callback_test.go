package sca

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// The recorded callbacks of testdata (copies of the shared platform
// documents) and the ids they carry.
const (
	okState   = "83c00ec5-0d06-4b4a-96ef-7d837637c411"
	okPSU     = "fecae238-d8df-4d47-b519-cc5d7b9b00a4"
	okSession = "add0a3ef-784a-4e25-8164-90845471396b"
	failState = "8cc8af77-2087-408d-967e-d51569bbec62"
	corpID    = "f062942c-9ce8-4742-b0ef-39f083f1738b"
	base      = "https://tpp.example/psd2/callback"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

func pendingFor(state string) *Pending {
	return &Pending{Key: "user-1", State: state, TPPSessionID: okSession, RedirectURI: base + "?state=" + state,
		CreatedAt: t0, ExpiresAt: t0.Add(DefaultPendingTTL)}
}

func cb(params ...string) string {
	var b strings.Builder
	b.WriteString(base)
	for i := 0; i+1 < len(params); i += 2 {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(params[i] + "=" + params[i+1])
	}
	return b.String()
}

func TestParseCallbackTable(t *testing.T) {
	t.Parallel()
	success := readTestdata(t, "sca-callback-success.txt")
	failure := readTestdata(t, "sca-callback-failure.txt")
	ok := func(extra ...string) string {
		return cb(append([]string{"state", okState, "psu-id", okPSU, "tpp-session-id", okSession}, extra...)...)
	}
	tests := []struct {
		name     string
		state    string // pending state; okState when empty
		url      string
		at       time.Time // parse time; t0+1m when zero
		want     *Session
		wantErr  error
		wantFail *CallbackError
	}{
		{name: "recorded success", url: success,
			want: &Session{Key: "user-1", PSUID: okPSU, TPPSessionID: okSession, Context: client.Private}},
		{name: "request URI only", url: strings.TrimPrefix(success, "https://tpp.example"),
			want: &Session{Key: "user-1", PSUID: okPSU, TPPSessionID: okSession, Context: client.Private}},
		{name: "corporate", url: ok("context", "CORPORATE", "psu-corporate-id", corpID),
			want: &Session{Key: "user-1", PSUID: okPSU, PSUCorporateID: corpID, TPPSessionID: okSession, Context: client.Corporate}},
		{name: "corporate without agreement yet", url: ok("context", "CORPORATE"),
			want: &Session{Key: "user-1", PSUID: okPSU, TPPSessionID: okSession, Context: client.Corporate}},
		{name: "lower-case context", url: ok("context", "private"),
			want: &Session{Key: "user-1", PSUID: okPSU, TPPSessionID: okSession, Context: client.Private}},
		{name: "TPP's own query kept first", url: base + "?tab=2&state=" + okState + "&psu-id=" + okPSU + "&tpp-session-id=" + okSession + "&context=PRIVATE",
			want: &Session{Key: "user-1", PSUID: okPSU, TPPSessionID: okSession, Context: client.Private}},
		{name: "recorded failure", state: failState, url: failure,
			wantFail: &CallbackError{System: "sca-frontend", Status: 401, Code: "SCA_INVALID",
				Message: "The authentication was cancelled by the user", TPPSessionID: okSession}},
		{name: "failure with plus and UTF-8", url: cb("state", okState, "system", "bankid", "status", "400", "code", "PSU_CREDENTIALS_INVALID", "message", "Feil+passord%3A+pr%C3%B8v+igjen"),
			wantFail: &CallbackError{System: "bankid", Status: 400, Code: "PSU_CREDENTIALS_INVALID", Message: "Feil passord: prøv igjen", TPPSessionID: okSession}},
		{name: "failure with code only", url: cb("state", okState, "code", "SCA_INVALID"),
			wantFail: &CallbackError{Code: "SCA_INVALID", TPPSessionID: okSession}},
		// The message is free display text (docs/interface.md section 6): a
		// line break or other control character in it is no reason to call
		// the failure malformed; what the field exposes has them as spaces.
		{name: "failure message with a line break", url: cb("state", okState, "code", "SCA_INVALID", "message", "Avbrutt%0Aav%20bruker"),
			wantFail: &CallbackError{Code: "SCA_INVALID", Message: "Avbrutt av bruker", TPPSessionID: okSession}},
		{name: "failure message with NUL, tab, DEL, C1 and bad UTF-8", url: cb("state", okState, "status", "401", "message", "a%00b%09c%7Fd%C2%85e%FFf"),
			wantFail: &CallbackError{Status: 401, Message: "a b c d e\uFFFDf", TPPSessionID: okSession}},
		{name: "failure with message only", url: cb("state", okState, "message", "Avbrutt%20av%20bruker"),
			wantFail: &CallbackError{Message: "Avbrutt av bruker", TPPSessionID: okSession}},
		{name: "failure with an empty message only", url: cb("state", okState, "message", ""),
			wantFail: &CallbackError{TPPSessionID: okSession}},
		{name: "failure with an empty code only", url: cb("state", okState, "code", ""),
			wantFail: &CallbackError{TPPSessionID: okSession}},
		{name: "success and message at once", url: ok("context", "PRIVATE", "message", "x"), wantErr: ErrMalformedCallback},
		{name: "message repeated", url: cb("state", okState, "code", "SCA_INVALID", "message", "a", "message", "b"), wantErr: ErrMalformedCallback},
		{name: "code with newline", url: cb("state", okState, "code", "SCA_INVALID%0A"), wantErr: ErrMalformedCallback},
		{name: "state of another SCA", state: "another-state", url: success, wantErr: ErrStateMismatch},
		{name: "no state", url: cb("psu-id", okPSU, "tpp-session-id", okSession, "context", "PRIVATE"), wantErr: ErrStateMismatch},
		{name: "empty state", url: cb("state", "", "psu-id", okPSU), wantErr: ErrStateMismatch},
		{name: "repeated state", url: ok("context", "PRIVATE", "state", okState), wantErr: ErrMalformedCallback},
		{name: "session id of another SCA", url: cb("state", okState, "psu-id", okPSU, "tpp-session-id", uuid.NewString(), "context", "PRIVATE"), wantErr: ErrSessionMismatch},
		{name: "no session id", url: cb("state", okState, "psu-id", okPSU, "context", "PRIVATE"), wantErr: ErrMalformedCallback},
		{name: "psu-id not a UUID", url: cb("state", okState, "psu-id", "13039319955", "tpp-session-id", okSession, "context", "PRIVATE"), wantErr: ErrMalformedCallback},
		{name: "psu-id UUID without dashes", url: cb("state", okState, "psu-id", strings.ReplaceAll(okPSU, "-", ""), "tpp-session-id", okSession, "context", "PRIVATE"), wantErr: ErrMalformedCallback},
		{name: "psu-id missing", url: cb("state", okState, "tpp-session-id", okSession, "context", "PRIVATE"), wantErr: ErrMalformedCallback},
		{name: "psu-id repeated", url: ok("context", "PRIVATE", "psu-id", okPSU), wantErr: ErrMalformedCallback},
		{name: "psu-id with newline", url: cb("state", okState, "psu-id", okPSU+"%0A", "tpp-session-id", okSession, "context", "PRIVATE"), wantErr: ErrMalformedCallback},
		{name: "context missing", url: ok(), wantErr: ErrMalformedCallback},
		{name: "context unknown", url: ok("context", "BUSINESS"), wantErr: ErrMalformedCallback},
		{name: "corporate id in private context", url: ok("context", "PRIVATE", "psu-corporate-id", corpID), wantErr: ErrMalformedCallback},
		{name: "corporate id not a UUID", url: ok("context", "CORPORATE", "psu-corporate-id", "918273645"), wantErr: ErrMalformedCallback},
		{name: "success and failure at once", url: ok("context", "PRIVATE", "code", "SCA_INVALID"), wantErr: ErrMalformedCallback},
		{name: "status not a number", url: cb("state", okState, "status", "abc", "code", "X"), wantErr: ErrMalformedCallback},
		{name: "status out of range", url: cb("state", okState, "status", "99999", "code", "X"), wantErr: ErrMalformedCallback},
		{name: "code too long", url: cb("state", okState, "code", strings.Repeat("A", 300)), wantErr: ErrMalformedCallback},
		{name: "bad escape", url: base + "?state=" + okState + "&psu-id=%zz", wantErr: ErrMalformedCallback},
		{name: "not a URL", url: "http://[::1", wantErr: ErrMalformedCallback},
		{name: "semicolon in query", url: base + "?state=" + okState + ";psu-id=" + okPSU, wantErr: ErrMalformedCallback},
		{name: "oversized", url: success + "&pad=" + strings.Repeat("x", MaxCallbackLength), wantErr: ErrCallbackTooLong},
		{name: "after the pending expired", url: success, at: t0.Add(DefaultPendingTTL + time.Second), wantErr: ErrPendingExpired},
		{name: "empty", url: "", wantErr: ErrStateMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := tt.state
			if state == "" {
				state = okState
			}
			at := tt.at
			if at.IsZero() {
				at = t0.Add(time.Minute)
			}
			f, err := NewFlow(base, withNow(func() time.Time { return at }))
			require.NoError(t, err)
			p := pendingFor(state)
			s, err := f.ParseCallback(p, tt.url)
			switch {
			case tt.want != nil:
				require.NoError(t, err)
				want := *tt.want
				want.SCAAt = at
				assert.Equal(t, &want, s)
				require.NoError(t, s.Validate())
				assert.True(t, p.Consumed)
				_, err = f.ParseCallback(p, tt.url)
				assert.ErrorIs(t, err, ErrReplayed, "a pending SCA completes once")
			case tt.wantFail != nil:
				assert.Nil(t, s)
				var ce *CallbackError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, tt.wantFail, ce)
				assert.ErrorIs(t, err, ErrSCAFailed)
				if ce.Message != "" {
					assert.NotContains(t, err.Error(), ce.Message, "the bank's message stays in the field")
				}
				assert.True(t, p.Consumed)
			default:
				assert.Nil(t, s)
				require.ErrorIs(t, err, tt.wantErr)
				assert.NotErrorIs(t, err, ErrSCAFailed)
				if errors.Is(err, ErrStateMismatch) || errors.Is(err, ErrCallbackTooLong) {
					assert.False(t, p.Consumed, "a callback that is not this SCA's leaves it pending")
				}
			}
		})
	}
}

func TestParseCallbackNilPendingAndWallClock(t *testing.T) {
	t.Parallel()
	_, err := parseCallback(nil, readTestdata(t, "sca-callback-success.txt"), time.Now())
	assert.ErrorIs(t, err, ErrNoPending)

	p := pendingFor(okState)
	p.CreatedAt, p.ExpiresAt = time.Now(), time.Now().Add(time.Minute)
	s, err := parseCallback(p, readTestdata(t, "sca-callback-success.txt"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, okPSU, s.PSUID)
	assert.True(t, s.SCAValid(time.Now()))
}

func TestCallbackState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
		err             error
	}{
		{"success", readTestdata(t, "sca-callback-success.txt"), okState, nil},
		{"failure", readTestdata(t, "sca-callback-failure.txt"), failState, nil},
		{"request URI", "/cb?state=abc&psu-id=x", "abc", nil},
		{"none", "/cb?psu-id=x", "", ErrStateMismatch},
		{"repeated", "/cb?state=a&state=b", "", ErrMalformedCallback},
		{"too long", "/cb?state=" + strings.Repeat("a", MaxCallbackLength), "", ErrCallbackTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := callbackState(tt.url)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFlowStartAndCallback(t *testing.T) {
	t.Parallel()
	f, err := NewFlow("https://tpp.example/cb?tab=accounts", withNow(func() time.Time { return t0 }), WithPendingTTL(5*time.Minute))
	require.NoError(t, err)
	p1, ro, err := f.Start("user-1")
	require.NoError(t, err)
	require.NotNil(t, ro)
	p2, _, err := f.Start("user-1")
	require.NoError(t, err)
	assert.NotEqual(t, p1.State, p2.State, "states are random")
	assert.NotEqual(t, p1.TPPSessionID, p2.TPPSessionID, "a new TPP-Session-ID per Start without Renew")
	assert.GreaterOrEqual(t, len(p1.State), 43, "256 bits of state")
	_, err = uuid.Parse(p1.TPPSessionID)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(5*time.Minute), p1.ExpiresAt)
	u, err := url.Parse(p1.RedirectURI)
	require.NoError(t, err)
	assert.Equal(t, "accounts", u.Query().Get("tab"))
	assert.Equal(t, p1.State, u.Query().Get("state"))

	back := p1.RedirectURI + "&psu-id=" + okPSU + "&tpp-session-id=" + p1.TPPSessionID + "&context=PRIVATE"
	s, err := f.ParseCallback(p1, back)
	require.NoError(t, err)
	assert.Equal(t, p1.TPPSessionID, s.TPPSessionID)

	renew, _, err := f.Start("user-1", Renew(s))
	require.NoError(t, err)
	assert.Equal(t, s.TPPSessionID, renew.TPPSessionID, "Renew keeps the TPP-Session-ID")
	sw, _, err := f.Start("user-1", switchTo(s))
	require.NoError(t, err)
	assert.NotEqual(t, s.TPPSessionID, sw.TPPSessionID, "Switch starts a new TPP-Session-ID")
}

func TestNewFlowAndStartRefuse(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "/cb", "ftp://tpp.example/cb", "http://tpp.example/cb", "https://u:p@tpp.example/cb",
		"https://tpp.example/cb#frag", "https://tpp.example/cb?state=x", "https://tpp.example/cb?psu-id=x",
		"https://tpp.example/cb?" + strings.Repeat("a", MaxCallbackLength)} {
		_, err := NewFlow(u)
		assert.Error(t, err, u)
	}
	_, err := NewFlow("http://127.0.0.1:8080/cb")
	require.NoError(t, err, "http on loopback is allowed")
	_, err = NewFlow("https://tpp.example/cb", WithPendingTTL(2*time.Hour))
	assert.Error(t, err)
	_, err = NewFlow("https://tpp.example/cb", WithClient(nil))
	assert.Error(t, err)

	f, err := NewFlow("https://tpp.example/cb")
	require.NoError(t, err)
	bad := []struct {
		name string
		key  string
		opt  StartOption
	}{
		{"empty key", "", nil},
		{"long key", strings.Repeat("k", maxKeyLen+1), nil},
		{"identity with newline", "k", WithPSUIdentity("13039319955\r\nX: y")},
		{"empty identity", "k", WithPSUIdentity("")},
		{"auth method with space", "k", WithAuthMethod("BANK ID")},
		{"empty auth method", "k", WithAuthMethod("")},
		{"unlisted auth method", "k", WithAuthMethod("FACE_ID")},
		{"auth method in lower case", "k", WithAuthMethod("ha2")},
		{"context", "k", WithContext("BUSINESS")},
		{"renew invalid session", "k", Renew(&Session{PSUID: "x"})},
		{"switch nil session", "k", switchTo(nil)},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, ro, err := f.Start(tt.key, tt.opt)
			assert.Error(t, err)
			assert.Nil(t, p)
			assert.Nil(t, ro)
		})
	}
	for _, m := range []AuthMethod{AuthMethodApp, AuthMethodHA2, AuthMethodBankIDMobile, AuthMethodBankID} {
		_, _, err := f.Start("k", WithAuthMethod(m), WithRedirectPreferred(false), WithPSUIdentity("13039319955"), WithContext(client.Corporate))
		assert.NoError(t, err, m)
	}
}

// FuzzParseCallback: no input panics; any accepted callback carries a
// valid UUID psu-id (the one of the URL) and the pending TPP-Session-ID.
func FuzzParseCallback(f *testing.F) {
	f.Add(readTestdata(f, "sca-callback-success.txt"))
	f.Add(readTestdata(f, "sca-callback-failure.txt"))
	f.Add(cb("state", okState, "psu-id", okPSU, "tpp-session-id", okSession, "context", "CORPORATE", "psu-corporate-id", corpID))
	f.Add(cb("state", okState, "psu-id", okPSU, "psu-id", okPSU, "tpp-session-id", okSession, "context", "PRIVATE"))
	f.Add("/cb?state=" + okState + "&psu-id=%00&context=%zz")
	f.Add("http://[::1]:namedport?state=" + okState)
	f.Add("?state=" + okState + "&status=401&code=SCA_INVALID&message=%E2%82%AC")
	f.Fuzz(func(t *testing.T, callback string) {
		p := pendingFor(okState)
		s, err := parseCallback(p, callback, t0.Add(time.Minute))
		if err != nil {
			assert.Nil(t, s)
			var ce *CallbackError
			if errors.As(err, &ce) {
				assert.Equal(t, okSession, ce.TPPSessionID)
			}
			return
		}
		require.NotNil(t, s)
		_, perr := uuid.Parse(s.PSUID)
		require.NoError(t, perr)
		assert.Len(t, s.PSUID, 36)
		assert.Equal(t, okSession, s.TPPSessionID)
		assert.True(t, s.Context.Valid())
		require.NoError(t, s.Validate())
		q, qerr := url.Parse(callback)
		require.NoError(t, qerr)
		assert.Equal(t, s.PSUID, q.Query().Get("psu-id"))
		assert.True(t, p.Consumed)
	})
}
