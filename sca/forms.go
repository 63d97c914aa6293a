package sca

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed, log/slog and JSON forms of the package's types, generated
// from the declarations below into print_gen.go: String, GoString,
// Format (every fmt verb) and LogValue from the form methods, MarshalJSON
// from the views. None shows a PSU-ID, PSU-Corporate-ID, TPP-Session-ID,
// account id, store key, the TPP's state or the bank's (a redirect's
// query), or the bank's free text. A Session's and a Pending's JSON form
// is redacted too: the stores keep their storage form (MarshalBinary).

// redactIfSet returns [redact.Redacted] for a non-empty s and "" for an
// empty one.
func redactIfSet(s string) string {
	if s == "" {
		return ""
	}
	return redact.Redacted
}

// String describes the session without its PSU-ID, PSU-Corporate-ID,
// TPP-Session-ID or account ids (it shows how many accounts it
// remembers), so that printing or logging a Session by mistake leaks no
// personal data. The store key is left out too: a TPP may choose its
// user's e-mail address.
//
// It has a value receiver so that a Session value prints redacted too.
// The context shows as [redact.Word] shows a word: PRIVATE and CORPORATE
// as they are, the text of a session not yet validated (decoded from a
// TPP's own storage, tampered with) as OTHER.
func (s Session) form() *redact.Form {
	f := redact.New("sca.Session").Field("psuId", redact.Redacted, slog.StringValue(redact.Redacted)).
		SecretIf("psuCorporateId", s.PSUCorporateID != "").
		Field("context", redact.Word(string(s.Context)), slog.StringValue(redact.Word(string(s.Context)))).
		Field("scaAt", s.SCAAt.UTC().Format(time.RFC3339), slog.TimeValue(s.SCAAt.UTC())).
		Field("accounts", strconv.Itoa(len(s.AccountIDs)), slog.IntValue(len(s.AccountIDs))).
		Field("cardAccounts", strconv.Itoa(len(s.CardAccountIDs)), slog.IntValue(len(s.CardAccountIDs)))
	if end := s.ConsentExpiresAt(); !end.IsZero() {
		return f.Field("consentExpiresAt", end.UTC().Format(time.RFC3339), slog.TimeValue(end.UTC()))
	}
	return f.Field("consentExpiresAt", "none", slog.StringValue("none"))
}

// sessionView is the redacted JSON form of a Session.
type sessionView struct {
	PSUID          string            `json:"psuId"`
	PSUCorporateID string            `json:"psuCorporateId,omitempty"`
	TPPSessionID   string            `json:"tppSessionId"`
	Context        client.PSUContext `json:"context"`
	SCAAt          time.Time         `json:"scaAt"`
	Accounts       int               `json:"accountCount,omitempty"`
	CardAccounts   int               `json:"cardAccountCount,omitempty"`
	ConsentUntil   time.Time         `json:"consentUntil,omitzero"`
	NoConsent      bool              `json:"noConsent,omitempty"`
}

// MarshalJSON writes the session with PSU-ID, PSU-Corporate-ID and
// TPP-Session-ID [redacted], without its key and with only the number of
// its account ids, so that a Session inside a logged or returned JSON
// document leaks nothing. It is not a storage form: use
// [Session.MarshalBinary].
func (s Session) view() sessionView {
	return sessionView{
		PSUID:          redactIfSet(s.PSUID),
		PSUCorporateID: redactIfSet(s.PSUCorporateID),
		TPPSessionID:   redactIfSet(s.TPPSessionID),
		Context:        client.PSUContext(redact.Word(string(s.Context))),
		SCAAt:          s.SCAAt,
		Accounts:       len(s.AccountIDs),
		CardAccounts:   len(s.CardAccountIDs),
		ConsentUntil:   s.ConsentUntil,
		NoConsent:      s.NoConsent,
	}
}

// String describes the pending SCA without its state (a secret shared
// with the PSU's browser), TPP-Session-ID or redirect URI.
// It has a value receiver so that a Pending value prints redacted too.
func (p Pending) form() *redact.Form {
	return redact.New("sca.Pending").Field("state", redact.Redacted, slog.StringValue(redact.Redacted)).
		Field("expiresAt", p.ExpiresAt.UTC().Format(time.RFC3339), slog.TimeValue(p.ExpiresAt.UTC()))
}

// pendingView is the redacted JSON form of a Pending.
type pendingView struct {
	State        string    `json:"state"`
	TPPSessionID string    `json:"tppSessionId"`
	RedirectURI  string    `json:"redirectUri"`
	CreatedAt    time.Time `json:"createdAt"`
	ExpiresAt    time.Time `json:"expiresAt"`
	Consumed     bool      `json:"consumed,omitempty"`
	Purpose      Purpose   `json:"purpose,omitempty"`
}

// MarshalJSON writes the pending SCA with state and TPP-Session-ID
// [redacted], the redirect URI without its query (which carries the state)
// and without the key. It is not a storage form: use
// [Pending.MarshalBinary].
func (p Pending) view() pendingView {
	return pendingView{
		State:        redactIfSet(p.State),
		TPPSessionID: redactIfSet(p.TPPSessionID),
		RedirectURI:  redact.URI(p.RedirectURI, nil),
		CreatedAt:    p.CreatedAt,
		ExpiresAt:    p.ExpiresAt,
		Consumed:     p.Consumed,
		Purpose:      p.Purpose,
	}
}

// GoString describes the error with Message (free text from the bank,
// which may name the PSU) and TPPSessionID [redacted], for %#v.
func (e CallbackError) form() *redact.Form {
	return redact.NewGo("&sca.CallbackError").Text("System", strconv.Quote(safeSystem(e.System))).Text("Status", strconv.Itoa(e.Status)).
		Text("Code", strconv.Quote(client.SafeCode(e.Code))).Text("Message", redactIfSet(e.Message)).Text("TPPSessionID", redactIfSet(e.TPPSessionID))
}

// maxSystemShown bounds the system name the printed and JSON forms of a
// CallbackError show.
const maxSystemShown = 64

// safeSystem returns the system parameter of a failure redirect as the
// printed and JSON forms of a CallbackError show it: as sent when it
// reads as the name of a system (ASCII letters, '-', '_' and '.', at most
// 64 bytes: "sca-frontend"), "OTHER" for anything else. The parameter is
// query text anyone can write into the callback URL, a national identity
// number, an IP address or a person's name included, as is the code
// (client.SafeCode); the field keeps the bank's text.
func safeSystem(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > maxSystemShown {
		return "OTHER"
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '-', c == '_', c == '.':
		default:
			return "OTHER"
		}
	}
	return s
}

// callbackErrorView is the JSON form of a CallbackError.
type callbackErrorView struct {
	System       string `json:"system,omitempty"`
	Status       int    `json:"status,omitempty"`
	Code         string `json:"code,omitempty"`
	Message      string `json:"message,omitempty"`
	TPPSessionID string `json:"tppSessionId,omitempty"`
}

// MarshalJSON writes system, status and code, with message and
// TPP-Session-ID [redacted].
func (e CallbackError) view() callbackErrorView {
	return callbackErrorView{safeSystem(e.System), e.Status, client.SafeCode(e.Code), redactIfSet(e.Message), redactIfSet(e.TPPSessionID)}
}

// String returns the URL to redirect the PSU to, or "" for the zero
// Redirect. It is the link itself, in full, because it is what the PSU's
// browser is sent to; its query carries the bank's own authorisation state.
// Every fmt verb but %#v prints it too. Log a Redirect as a value (slog,
// %#v, JSON), which shows the link without its query, not its String.
func (r Redirect) shown() string {
	if r.URL == nil {
		return ""
	}
	return r.URL.String()
}

// GoString describes the redirect with the link's query and fragment
// [redacted] and each verb as [redact.Word] shows it (a bank's verb that
// is not a word of letters, "OTHER"), for %#v; log/slog prints the same
// link and verbs.
func (r Redirect) form() *redact.Form {
	u, verbs := r.redactedURL(), redact.Words(r.Verbs)
	return redact.NewGo("sca.Redirect").Text("URL", u).Text("Verbs", fmt.Sprint(verbs)).
		Attr(slog.String("url", u)).Attr(slog.Any("verbs", verbs))
}

// redirectView is the JSON form of a Redirect.
type redirectView struct {
	URL   string   `json:"url"`
	Verbs []string `json:"verbs,omitempty"`
}

// MarshalJSON writes {"url": the link without query and fragment, "verbs"},
// each verb as [redact.Word] shows it.
func (r Redirect) view() redirectView { return redirectView{r.redactedURL(), redact.Words(r.Verbs)} }

// redactedURL is the redirect's link without its user info, query and
// fragment ([redact.URI]).
func (r Redirect) redactedURL() string {
	if r.URL == nil {
		return ""
	}
	return redact.URI(r.URL.String(), nil)
}
