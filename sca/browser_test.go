package sca

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// victimPSU is the PSU-ID the bank gives the victim.
const victimPSU = "0c6c3cc9-2f3e-4a8e-9d8e-6f4a3b0f5f11"

// crossSetup is the cross-browser attack: the victim has a session of
// their own, the attacker started an SCA under their key and sent its
// bank link to the victim, who approved it; the returned string is the
// bank's callback carrying the victim's PSU-ID.
func crossSetup(t *testing.T) (m *Manager, victim *Session, attackerPending *Pending, callback string) {
	t.Helper()
	now := t0
	m = managerAt(t, &now)
	p, _, err := m.Flow().Start("victim", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	victim = completeAs(t, m, p, victimPSU, "")

	attackerPending, _, err = m.Flow().Start("attacker", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	require.NoError(t, savePending(t.Context(), m.Store(), attackerPending))
	callback = cb("state", attackerPending.State, "psu-id", victimPSU,
		"tpp-session-id", attackerPending.TPPSessionID, "context", "PRIVATE")
	return m, victim, attackerPending, callback
}

// assertRefused checks what a refused cross-browser callback leaves: no
// session under the attacker's key, the victim's untouched, the pending
// SCA used up for everyone.
func assertRefused(t *testing.T, m *Manager, victim *Session, p *Pending, callback string) {
	t.Helper()
	ctx := t.Context()
	_, err := m.Session(ctx, "attacker")
	assert.ErrorIs(t, err, store.ErrNotStored, "nothing stored under the attacker's key")
	got, err := m.Session(ctx, "victim")
	require.NoError(t, err)
	assert.Equal(t, victim.TPPSessionID, got.TPPSessionID, "the victim's session is untouched")
	assert.Equal(t, victim.PSUID, got.PSUID)
	assert.True(t, victim.ConsentExpiresAt().Equal(got.ConsentExpiresAt()))
	_, err = takePending(ctx, m.Store(), p.State)
	assert.ErrorIs(t, err, ErrNoPending, "the pending SCA is used up")
	// Neither browser can complete it afterwards.
	_, err = m.CompleteFor(ctx, "attacker", callback)
	assert.ErrorIs(t, err, ErrNoPending)
	_, err = m.Complete(ctx, callback)
	assert.ErrorIs(t, err, ErrNoPending)
	_, err = m.Session(ctx, "attacker")
	assert.ErrorIs(t, err, store.ErrNotStored)
}

func TestCompleteForWrongBrowser(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"victim", "", "attacke", "attacker ", "Attacker"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			m, victim, p, callback := crossSetup(t)
			s, err := m.CompleteFor(t.Context(), key, callback)
			assert.ErrorIs(t, err, ErrWrongBrowser)
			assert.Nil(t, s)
			assertRefused(t, m, victim, p, callback)
		})
	}
}

// CompleteFor with the key that started the SCA is Complete: the same
// session, stored under that key.
func TestCompleteForRightBrowser(t *testing.T) {
	t.Parallel()
	now := t0
	m := managerAt(t, &now)
	ref := managerAt(t, &now)
	psu := uuid.NewString()
	for _, mm := range []*Manager{m, ref} {
		p, _, err := mm.Flow().Start("user-1", WithPurpose(PurposeConsent))
		require.NoError(t, err)
		require.NoError(t, savePending(t.Context(), mm.Store(), p))
		url := cb("state", p.State, "psu-id", psu, "tpp-session-id", p.TPPSessionID, "context", "PRIVATE")
		var s *Session
		if mm == m {
			s, err = mm.CompleteFor(t.Context(), "user-1", url)
		} else {
			s, err = mm.Complete(t.Context(), url)
		}
		require.NoError(t, err)
		stored, err := mm.Session(t.Context(), "user-1")
		require.NoError(t, err)
		assert.Equal(t, p.TPPSessionID, stored.TPPSessionID)
		assert.Equal(t, psu, s.PSUID)
		assert.Equal(t, s.PSUID, stored.PSUID)
		assert.True(t, stored.ConsentExpiresAt().Equal(t0.Add(ConsentValidity)), stored.ConsentExpiresAt())
		_, err = mm.CompleteFor(t.Context(), "user-1", url)
		assert.ErrorIs(t, err, ErrNoPending, "replayed")
	}

	// A failed SCA in the right browser is the bank's CallbackError, not
	// ErrWrongBrowser.
	p, _, err := m.Flow().Start("user-1")
	require.NoError(t, err)
	require.NoError(t, savePending(t.Context(), m.Store(), p))
	_, err = m.CompleteFor(t.Context(), "user-1", cb("state", p.State, "status", "401", "code", "SCA_INVALID"))
	var ce *CallbackError
	assert.ErrorAs(t, err, &ce)
	assert.NotErrorIs(t, err, ErrWrongBrowser)
	// An unknown state is ErrNoPending whatever the key.
	_, err = m.CompleteFor(t.Context(), "", cb("state", "unknown", "psu-id", psu))
	assert.ErrorIs(t, err, ErrNoPending)
}

// A pending SCA saved with an empty key is not completed by a browser
// without one.
func TestCompleteForEmptyKeys(t *testing.T) {
	t.Parallel()
	now := t0
	m := managerAt(t, &now)
	p, _, err := m.Flow().Start("x")
	require.NoError(t, err)
	p.Key = ""
	require.NoError(t, savePending(t.Context(), m.Store(), p))
	_, err = m.CompleteFor(t.Context(), "", cb("state", p.State, "psu-id", victimPSU, "tpp-session-id", p.TPPSessionID, "context", "PRIVATE"))
	assert.ErrorIs(t, err, ErrWrongBrowser)
	for k, err := range m.Store().Keys(t.Context(), "") {
		require.NoError(t, err)
		t.Errorf("stored %q: want nothing stored and the pending SCA taken", k)
	}
}

// serve sends method to h at callback (made relative, as a browser
// requests it) and returns the response.
func serve(h http.Handler, method, callback string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, callback, nil))
	return w
}

func TestHandlerForRefusesOtherBrowsers(t *testing.T) {
	t.Parallel()
	keyErr := errors.New("no login cookie")
	tests := []struct {
		name    string
		keyOf   func(*http.Request) (string, error)
		wantErr []error
	}{
		{"another PSU's key", func(*http.Request) (string, error) { return "victim", nil }, []error{ErrWrongBrowser}},
		{"no session", func(*http.Request) (string, error) { return "", keyErr }, []error{ErrWrongBrowser, keyErr}},
		{"key with an error", func(*http.Request) (string, error) { return "attacker", keyErr }, []error{ErrWrongBrowser, keyErr}},
		{"empty key", func(*http.Request) (string, error) { return "", nil }, []error{ErrWrongBrowser}},
		{"nil keyOf", nil, []error{ErrWrongBrowser}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, victim, p, callback := crossSetup(t)
			var got error
			calls := 0
			h := m.HandlerFor(tt.keyOf, func(w http.ResponseWriter, _ *http.Request, s *Session, err error) {
				calls++
				got = err
				assert.Nil(t, s)
				w.WriteHeader(http.StatusTeapot)
			})
			w := serve(h, http.MethodGet, callback)
			require.Equal(t, 1, calls)
			assert.Equal(t, http.StatusTeapot, w.Code)
			for _, want := range tt.wantErr {
				assert.ErrorIs(t, got, want)
			}
			assert.Equal(t, "no-store", w.Header().Get("Cache-Control"))
			assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"))
			assertRefused(t, m, victim, p, callback)
		})
	}
}

func TestHandlerForRightBrowser(t *testing.T) {
	t.Parallel()
	m, victim, p, callback := crossSetup(t)
	keyCalls := 0
	keyOf := func(r *http.Request) (string, error) {
		keyCalls++
		c, err := r.Cookie("login")
		if err != nil {
			return "", err
		}
		return c.Value, nil
	}
	var got *Session
	h := m.HandlerFor(keyOf, func(w http.ResponseWriter, _ *http.Request, s *Session, err error) {
		require.NoError(t, err)
		got = s
		w.WriteHeader(http.StatusNoContent)
	})

	// HEAD and other methods neither ask for the key nor touch the SCA.
	w := serve(h, http.MethodHead, callback)
	assert.Equal(t, http.StatusOK, w.Code)
	w = serve(h, http.MethodPost, callback)
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, "GET, HEAD", w.Header().Get("Allow"))
	assert.Equal(t, 0, keyCalls)

	req := httptest.NewRequest(http.MethodGet, callback, nil)
	req.AddCookie(&http.Cookie{Name: "login", Value: "attacker"})
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusNoContent, w.Code)
	require.NotNil(t, got)
	stored, err := m.Session(t.Context(), "attacker")
	require.NoError(t, err)
	assert.Equal(t, p.TPPSessionID, stored.TPPSessionID)
	assert.Equal(t, got.PSUID, stored.PSUID)
	still, err := m.Session(t.Context(), "victim")
	require.NoError(t, err)
	assert.Equal(t, victim.TPPSessionID, still.TPPSessionID)
}

// The default page says the SCA was started elsewhere; Handler (not bound
// to the browser) completes for whoever brings the callback, as before.
func TestHandlerForDefaultDoneAndHandlerUnbound(t *testing.T) {
	t.Parallel()
	m, _, _, callback := crossSetup(t)
	w := serve(m.HandlerFor(func(*http.Request) (string, error) { return "victim", nil }, nil), http.MethodGet, callback)
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Contains(t, w.Body.String(), "started in another browser")

	m, _, _, callback = crossSetup(t)
	w = serve(m.Handler(nil), http.MethodGet, callback)
	assert.Equal(t, http.StatusOK, w.Code)
	s, err := m.Session(t.Context(), "attacker")
	require.NoError(t, err, "Handler stores the session under the key that started the SCA")
	assert.Equal(t, victimPSU, s.PSUID)
}
