package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// app is the TPP's web application. The PSU is known by a cookie here; a
// real TPP has its own login and uses its user id as the session key.
type app struct {
	ais      *accounts.Service
	sessions *sca.Manager
	log      *slog.Logger
	now      func() time.Time
}

func newApp(ais *accounts.Service, sessions *sca.Manager) *app {
	return &app{ais: ais, sessions: sessions, log: slog.New(slog.NewTextHandler(os.Stderr, nil)), now: time.Now}
}

// routes mounts the pages and the SCA callback at the Flow's redirect URI.
func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.home)
	mux.HandleFunc("GET /connect", a.connect)
	mux.HandleFunc("GET /accounts", a.accounts)
	mux.Handle("GET /callback", a.sessions.Handler(a.callback))
	return mux
}

const userCookie = "tpp_user"

// user returns the PSU's key from the cookie, setting a new one when absent.
func user(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(userCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: userCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return id
}

// present is the PSU's request data: the PSU is at the TPP's site now
// (docs/interface.md section 5.14).
func present(r *http.Request) *client.PSU {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return &client.PSU{IPAddress: host, UserAgent: r.UserAgent()}
}

func (a *app) home(w http.ResponseWriter, r *http.Request) {
	key := user(w, r)
	ok, err := a.sessions.SCAValid(r.Context(), key, a.now())
	if err != nil {
		a.fail(w, err)
		return
	}
	if ok {
		http.Redirect(w, r, "/accounts", http.StatusSeeOther)
		return
	}
	render(w, http.StatusOK, page{Connect: true})
}

// connect starts a bank-offered consent and sends the PSU to the bank.
func (a *app) connect(w http.ResponseWriter, r *http.Request) {
	call, err := a.sessions.Begin(r.Context(), user(w, r), present(r))
	if err != nil {
		a.fail(w, err)
		return
	}
	consent, err := a.ais.StartConsent(r.Context(), call.Options)
	if err != nil {
		a.fail(w, err)
		return
	}
	a.toBank(w, r, call, consent)
}

// toBank saves the pending SCA and redirects the browser to the bank's
// SCA page.
func (a *app) toBank(w http.ResponseWriter, r *http.Request, call *sca.Call, answer any) {
	link, ok, err := call.Redirect(r.Context(), answer)
	if err != nil {
		a.fail(w, err)
		return
	}
	if !ok {
		a.fail(w, errors.New("the bank sent no SCA link"))
		return
	}
	http.Redirect(w, r, link.String(), http.StatusSeeOther)
}

// callback runs after sca.Manager's handler completed (or refused) the
// SCA callback.
func (a *app) callback(w http.ResponseWriter, r *http.Request, _ *sca.Session, err error) {
	var failed *sca.CallbackError
	switch {
	case err == nil:
		http.Redirect(w, r, "/accounts", http.StatusSeeOther)
	case errors.As(err, &failed):
		render(w, http.StatusOK, page{Connect: true, Message: "You cancelled at the bank, or the bank refused: " + failed.Code})
	default:
		render(w, http.StatusBadRequest, page{Connect: true, Message: "This link is invalid or has expired."})
	}
}

// accounts shows the PSU's accounts, or sends the PSU to the bank when the
// bank asks for SCA (no session yet, or the hour passed).
func (a *app) accounts(w http.ResponseWriter, r *http.Request) {
	call, err := a.sessions.Prepare(r.Context(), user(w, r), present(r))
	if err != nil {
		a.fail(w, err)
		return
	}
	list, err := a.ais.List(r.Context(), &accounts.ListOptions{WithBalance: true}, call.Options)
	if errors.Is(err, client.ErrSCARequired) {
		a.toBank(w, r, call, err)
		return
	}
	if err != nil {
		a.fail(w, err)
		return
	}
	p := page{}
	for _, acc := range list {
		row := accountRow{Name: acc.Name, Number: acc.BBAN, Currency: acc.Currency}
		if len(acc.Balances) > 0 {
			row.Balance = acc.Balances[0].BalanceAmount.Text()
		}
		p.Accounts = append(p.Accounts, row)
	}
	render(w, http.StatusOK, p)
}

// fail shows a generic error page and logs the details (the SDK's errors
// name the operation and the bank's codes, never PSU data).
func (a *app) fail(w http.ResponseWriter, err error) {
	a.log.Error("bank call failed", "err", err)
	render(w, http.StatusBadGateway, page{Message: "The bank could not be reached. Try again later."})
}

type accountRow struct{ Name, Number, Currency, Balance string }

type page struct {
	Connect  bool
	Message  string
	Accounts []accountRow
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example TPP</title></head>
<body>
<h1>Example TPP</h1>
{{with .Message}}<p>{{.}}</p>
{{end}}{{if .Connect}}<p><a href="/connect">Connect your bank</a></p>
{{end}}{{if .Accounts}}<table>
<tr><th>Account</th><th>Number</th><th>Balance</th></tr>
{{range .Accounts}}<tr><td>{{.Name}}</td><td>{{.Number}}</td><td>{{.Balance}} {{.Currency}}</td></tr>
{{end}}</table>
{{end}}</body></html>
`))

func render(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, p)
}
