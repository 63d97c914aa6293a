package sca_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// A full consent flow against the emulator: a bank-offered consent asks
// for SCA, the PSU authenticates at the bank, the bank sends the browser
// back to the TPP's redirect URI where Manager.HandlerFor stores the
// session for the browser's login, and the accounts are listed in that
// session.
func Example_webApplication() {
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

	// The TPP's web app mounts the handler at its redirect URI.
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
	// The TPP's own login sessions, kept server side: the browser's
	// session id and its user.
	logins := map[string]string{"login-7f3a": "user-42"}
	userOf := func(r *http.Request) (string, error) {
		c, err := r.Cookie("login")
		if err != nil {
			return "", err
		}
		if user, ok := logins[c.Value]; ok {
			return user, nil
		}
		return "", errors.New("not logged in")
	}
	done := make(chan *sca.Session, 1)
	mux.Handle("/psd2/callback", mgr.HandlerFor(userOf, func(w http.ResponseWriter, r *http.Request, s *sca.Session, err error) {
		if err != nil {
			http.Error(w, "authentication not completed", http.StatusForbidden)
			done <- nil
			return
		}
		fmt.Fprintln(w, "Welcome back")
		done <- s
	}))

	// The PSU, present at the browser, asks to connect their bank.
	psu := &client.PSU{IPAddress: "198.51.100.7"}
	svc, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	call, err := mgr.Begin(ctx, "user-42", psu, sca.WithAuthMethod(sca.AuthMethodApp))
	if err != nil {
		fmt.Println(err)
		return
	}
	consent, err := svc.StartConsent(ctx, call.Options)
	if err != nil {
		fmt.Println(err)
		return
	}
	redirect, ok, err := call.Redirect(ctx, consent)
	if err != nil || !ok {
		fmt.Println("no SCA:", err)
		return
	}
	fmt.Println("send the PSU to the bank:", redirect.URL.Path)

	// At the sandbox page the PSU types a customer number; the emulator's
	// Authorize does it and returns where the bank sends the browser.
	callback, err := bank.Control().Authorize(ctx, redirect.String(), emulator.CustomerKari)
	if err != nil {
		fmt.Println(err)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, callback.String(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	req.AddCookie(&http.Cookie{Name: "login", Value: "login-7f3a"}) // the PSU's browser
	resp, err := app.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	s := <-done
	fmt.Println("callback answered:", resp.StatusCode)
	fmt.Println("context:", s.Context, "- SCA valid for the hour:", s.SCAValid(time.Now()))

	// Later calls run in the stored session.
	call, err = mgr.Prepare(ctx, "user-42", psu)
	if err != nil {
		fmt.Println(err)
		return
	}
	accs, err := svc.List(ctx, nil, call.Options)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("accounts:", len(accs))
	// Output:
	// send the PSU to the bank: /tap-sandbox/9999/
	// callback answered: 200
	// context: PRIVATE - SCA valid for the hour: true
	// accounts: 2
}
