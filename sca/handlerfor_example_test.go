package sca_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// A web application binds the callback to the browser that started the
// SCA: HandlerFor reads the browser's session key (here a login cookie)
// and completes only the SCA started under that key. A bank link started
// by one user and approved in another user's browser is refused with
// ErrWrongBrowser and used up.
func ExampleManager_HandlerFor() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	svc, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	app := httptest.NewServer(mux)
	defer app.Close()
	flow, err := sca.NewFlow(app.URL + "/psd2/callback")
	if err != nil {
		fmt.Println(err)
		return
	}
	mgr, err := sca.NewManager(flow, store.NewMemoryStore())
	if err != nil {
		fmt.Println(err)
		return
	}

	// The application's own login sessions, kept server side: the key is
	// the user of the login session the browser brings, one the
	// application issued (never the cookie's value itself, which a browser
	// may be made to carry).
	logins := map[string]string{"login-7f3a": "user-42", "login-91bc": "mallory"}
	keyOf := func(r *http.Request) (string, error) {
		c, err := r.Cookie("login")
		if err != nil {
			return "", err
		}
		user, ok := logins[c.Value]
		if !ok {
			return "", errors.New("not logged in")
		}
		return user, nil
	}
	mux.Handle("/psd2/callback", mgr.HandlerFor(keyOf, func(w http.ResponseWriter, r *http.Request, s *sca.Session, err error) {
		switch {
		case errors.Is(err, sca.ErrWrongBrowser):
			http.Error(w, "this approval was started in another browser", http.StatusForbidden)
		case err != nil:
			http.Error(w, "authentication not completed", http.StatusBadRequest)
		default:
			fmt.Fprintln(w, "Welcome back")
		}
	}))

	// connect starts a consent SCA for user, approves it at the bank as
	// Kari and loads the callback in the browser of login session login.
	connect := func(user, login string) (int, error) {
		call, err := mgr.Begin(ctx, user, &client.PSU{IPAddress: "198.51.100.7"})
		if err != nil {
			return 0, err
		}
		consent, err := svc.StartConsent(ctx, call.Options)
		if err != nil {
			return 0, err
		}
		redirect, _, err := call.Redirect(ctx, consent)
		if err != nil {
			return 0, err
		}
		callback, err := bank.Control().Authorize(ctx, redirect.String(), emulator.CustomerKari)
		if err != nil {
			return 0, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, callback.String(), nil)
		if err != nil {
			return 0, err
		}
		req.AddCookie(&http.Cookie{Name: "login", Value: login})
		resp, err := app.Client().Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}

	// Mallory started the SCA and sent the bank link to Kari, whose
	// browser is logged in as user-42.
	status, err := connect("mallory", "login-7f3a")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = mgr.Session(ctx, "mallory")
	fmt.Println("link of another user:", status, "- mallory has a session:", err == nil)

	// Kari's own SCA, in her own browser.
	status, err = connect("user-42", "login-7f3a")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = mgr.Session(ctx, "user-42")
	fmt.Println("own link:", status, "- user-42 has a session:", err == nil)
	// Output:
	// link of another user: 403 - mallory has a session: false
	// own link: 200 - user-42 has a session: true
}
