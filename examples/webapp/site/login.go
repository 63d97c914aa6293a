package site

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/tppkit/psd2/store"
)

// The PSU's browser holds a cookie the site issued; the site keeps, server
// side, which PSU each issued cookie value stands for. The PSU's key (the
// sca.Manager session key and the key of the site's records) never leaves
// the server:
//
//   - a cookie value the site did not issue (or retired) is refused, and
//     the browser gets a new one, standing for a new PSU;
//   - when an SCA completes, the browser gets a new cookie value for the
//     same PSU and the old value is retired, so a value someone planted
//     in the PSU's browser before she connected her bank reads nothing
//     of hers (session fixation);
//   - over https the cookie is Secure and named with the __Host- prefix,
//     which a browser accepts only from this host, over https, for the
//     whole site.
//
// A real TPP does the same with its own login session: the key it gives
// sca.Manager.HandlerFor comes from an authenticated, server-issued
// session it renews when the PSU's privileges change.

const (
	// userCookie is the cookie's name over http (loopback only).
	userCookie = "tpp_user"
	// secureUserCookie is its name over https.
	secureUserCookie = "__Host-tpp_user"
	// loginTTL is how long an issued cookie value stays valid.
	loginTTL = 24 * time.Hour
)

// errNoUser: the browser holds no cookie value the site issued.
var errNoUser = errors.New("webapp: no cookie issued by the site")

// loginKey is where the site keeps the PSU's key of an issued cookie
// value: under its hash, so that the store's keys do not carry the values
// browsers hold.
func loginKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "webapp/login/" + hex.EncodeToString(sum[:])
}

// secure reports whether r reached the site over https (directly, or
// through a TLS-terminating proxy when Config.Secure is set).
func (s *Site) secure(r *http.Request) bool { return s.https || r.TLS != nil }

// cookieName is the user cookie's name for r.
func (s *Site) cookieName(r *http.Request) string {
	if s.secure(r) {
		return secureUserCookie
	}
	return userCookie
}

// userKey returns the PSU's key for the cookie r carries, without issuing
// one: the SCA callback is completed only for the browser that started the
// SCA (sca.Manager.HandlerFor), and a browser whose cookie the site did
// not issue started none.
func (s *Site) userKey(r *http.Request) (string, error) {
	c, err := r.Cookie(s.cookieName(r))
	if err != nil || len(c.Value) != 2*tokenBytes {
		return "", errNoUser
	}
	if _, err := hex.DecodeString(c.Value); err != nil {
		return "", errNoUser
	}
	b, err := s.st.Get(r.Context(), loginKey(c.Value))
	switch {
	case errors.Is(err, store.ErrNotStored):
		return "", errNoUser
	case err != nil:
		return "", err
	case len(b) == 0:
		return "", errNoUser
	}
	return string(b), nil
}

// user returns the PSU's key for r's cookie; a browser without a cookie
// the site issued gets a new one, for a new PSU.
func (s *Site) user(w http.ResponseWriter, r *http.Request) string {
	if key, err := s.userKey(r); err == nil {
		return key
	}
	key := randomHex(tokenBytes)
	s.issue(w, r, key)
	return key
}

// renew gives the browser a new cookie value for the same PSU and retires
// the one it brought: called when an SCA completes, so that whoever knew
// the old value (one planted in the PSU's browser) knows nothing now.
func (s *Site) renew(w http.ResponseWriter, r *http.Request) string {
	key, err := s.userKey(r)
	if err != nil {
		return s.user(w, r)
	}
	if c, err := r.Cookie(s.cookieName(r)); err == nil {
		if err := s.st.Delete(r.Context(), loginKey(c.Value)); err != nil && !errors.Is(err, store.ErrNotStored) {
			s.log.Error("webapp: retiring a login cookie", "err", err)
		}
	}
	s.issue(w, r, key)
	return key
}

// issue sets a new cookie value standing for key.
func (s *Site) issue(w http.ResponseWriter, r *http.Request, key string) {
	token := randomHex(tokenBytes)
	if err := s.saveLogin(r.Context(), token, key); err != nil {
		// The browser gets a value the site does not know: its next
		// request is a new PSU's. Nothing is shown to anyone else.
		s.log.Error("webapp: storing a login cookie", "err", err)
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(r), Value: token, Path: "/", MaxAge: int(loginTTL / time.Second),
		HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

func (s *Site) saveLogin(ctx context.Context, token, key string) error {
	return s.st.Put(ctx, loginKey(token), []byte(key), loginTTL)
}

// tokenBytes is the size of cookie values and PSU keys.
const tokenBytes = 16

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
