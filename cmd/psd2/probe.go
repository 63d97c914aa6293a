package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/client"
)

// The probe's call. An account list without a PSU is an operation every
// bank of the platform serves, in production as in the sandbox, and the
// interface fixes its answer: 401 with a scaRedirect link (docs/interface.md
// sections 4.5 and 5.8). A bank hands out an SCA link only to a TPP whose
// certificate and signature it has checked, so that answer proves the
// keyId was accepted. Nothing is created: no consent exists until a PSU
// completes SCA on the link, which nobody follows.
const (
	probePath        = "/v1/accounts"
	probeRedirectURI = "https://tpp.invalid/psd2-probe"
)

// Verdicts of one rendering.
const (
	verdictVerified  = "verified"  // the answer proves the signature was checked and accepted
	verdictRefused   = "refused"   // the bank said the Signature (its keyId) is wrong
	verdictUndecided = "undecided" // the answer proves neither; Reason says why
)

// acceptedAfterSignature are the codes of answers the interface gives only
// about a PSU's session, which a bank can look up only once it knows which
// TPP calls, that is once the certificate and the signature passed
// (docs/interface.md sections 5.8, 7 and 10; the emulator checks the
// signature first and the session after, in sandbox/emulator's verify and
// session). Codes a bank could give before the signature (a missing header,
// a malformed value, the certificate itself) are not among them: the
// interface fixes no order for those, so they decide nothing.
var acceptedAfterSignature = []string{"CONSENT_INVALID", "CONSENT_EXPIRED", "CONSENT_UNKNOWN", "ACCESS_EXCEEDED"}

// signatureRefusals are codes that refuse the Signature itself, whatever
// bank names them (docs/interface.md sections 5.2 and 7: the platform
// answers 400 FORMAT_ERROR at path Signature).
var signatureRefusals = []string{"SIGNATURE_INVALID", "SIGNATURE_MISSING"}

// certificateRefusals refuse the certificate before its keyId is read: the
// same answer for every rendering.
var certificateRefusals = []string{"CERTIFICATE_INVALID", "CERTIFICATE_EXPIRED", "CERTIFICATE_BLOCKED", "CERTIFICATE_MISSING"}

type probeResult struct {
	Rendering string `json:"rendering"`
	KeyID     string `json:"keyId"`
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason"`
	Status    int    `json:"status,omitempty"`
	Codes     string `json:"codes,omitempty"`
}

type probeReport struct {
	Call     string        `json:"call"`
	Accepted []string      `json:"accepted"`
	Results  []probeResult `json:"results"`
}

func runProbe(ctx context.Context, e *env, args []string) error {
	fs := e.flags("probe", "(-bank ID | -url BASE) (-cert cert.pem [-key key.pem] | -p12 tpp.p12) [-redirect-uri URL] [-path /v1/accounts]")
	var cf credFlags
	var bf bankFlags
	cf.register(fs, true)
	bf.register(fs)
	path := fs.String("path", probePath, "path of the signed GET (below the base URL); an answer proves a rendering only when the interface gives it after the signature check (a 2xx only for /v1/accounts and /v1/card-accounts, whose answer the probe knows)")
	redirect := fs.String("redirect-uri", probeRedirectURI, "TPP-Redirect-URI to send (your registered one, if the bank checks it)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if err := checkProbePath(*path); err != nil {
		return err
	}
	creds, err := cf.credentials()
	if err != nil {
		return err
	}
	rep := probeReport{Call: http.MethodGet + " " + *path + " (no PSU)", Accepted: []string{}}
	for _, r := range probeRenderings(creds.Certificate) {
		c, err := newClient(&bf, &cf, client.WithKeyID(r.KeyID), client.WithRetryPolicy(client.RetryPolicy{}))
		if err != nil {
			return err
		}
		res := probeResult{Rendering: r.Name, KeyID: r.KeyID}
		ans := newProbeAnswer(*path)
		resp, err := c.Do(ctx, client.Operation{Name: "psd2.probe", Method: http.MethodGet, Path: *path}, ans,
			client.WithRedirectURI(*redirect), client.WithTPPSessionID(uuid.NewString()))
		res.Verdict, res.Reason = judgeProbe(resp, ans, err)
		var ce *client.Error
		if errors.As(err, &ce) {
			res.Status = ce.StatusCode
			var codes []string
			for _, m := range ce.Messages {
				codes = append(codes, clipCode(m.Code))
			}
			res.Codes = strings.Join(codes, ",")
		} else if resp != nil {
			res.Status = resp.StatusCode
		}
		if res.Verdict == verdictVerified {
			rep.Accepted = append(rep.Accepted, r.Name)
		}
		rep.Results = append(rep.Results, res)
	}
	if err := e.emit(rep, func(w io.Writer) {
		fmt.Fprintf(w, "probe: %s, once per keyId rendering\n", rep.Call)
		for _, r := range rep.Results {
			status := "-"
			if r.Status != 0 {
				status = fmt.Sprint(r.Status)
			}
			fmt.Fprintf(w, "%-22s %-9s %3s %-16s %s\n%-22s %s\n", r.Rendering, r.Verdict, status, r.Codes, printable(r.KeyID), "", r.Reason)
		}
		if len(rep.Accepted) > 0 {
			fmt.Fprintf(w, "the bank accepts: %s\n", strings.Join(rep.Accepted, ", "))
		}
	}); err != nil {
		return err
	}
	switch {
	case len(rep.Accepted) > 0:
		return nil
	case slices.ContainsFunc(rep.Results, func(r probeResult) bool { return r.Verdict == verdictUndecided }):
		return fmt.Errorf("undecided: the bank's answers prove no rendering (%s)", firstUndecided(rep.Results))
	}
	return failedError{"the bank refused every rendering"}
}

// checkProbePath refuses a -path the client would not send (each
// rendering would be "not sent", an undecided probe of nothing): one
// that does not start with a single "/" (a "//" names another host), or
// holds a space, a control character, a fragment, a template's braces
// or a malformed escape. A query is sent.
func checkProbePath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return usagef("-path %q must start with /", p)
	case strings.HasPrefix(p, "//"):
		return usagef("-path %q names a host: give a path below the base URL, /v1/...", p)
	case strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune("#{}", r) }):
		return usagef("-path %q: a space, control character, '#' or brace is not sent in a path", p)
	}
	u, err := url.Parse(p)
	if err == nil {
		_, err = url.PathUnescape(u.EscapedPath())
	}
	if err != nil {
		return usagef("-path %q is not a path: %v", p, err)
	}
	return nil
}

// firstUndecided is the reason of the first undecided result.
func firstUndecided(rs []probeResult) string {
	for _, r := range rs {
		if r.Verdict == verdictUndecided {
			return r.Rendering + ": " + r.Reason
		}
	}
	return ""
}

// judgeProbe decides what the result of the probe's call says about its
// rendering: verified only on an answer that proves the signature was
// checked and accepted (a 2xx shaped as the interface answers the call,
// see probeAnswer; a 401 with a scaRedirect link, or one of
// acceptedAfterSignature), refused on an answer that refuses the
// Signature, and undecided on anything else (no answer, a TLS failure,
// 404, 405, 5xx, the certificate refused, an answer the interface may
// give before the signature check, a 2xx that is not JSON or not the
// interface's answer), with the reason.
func judgeProbe(resp *client.Response, ans *probeAnswer, err error) (verdict, reason string) {
	if resp != nil {
		// A 2xx; err is a body that did not decode. A web page (a
		// developer portal, a proxy's landing page) answers every path
		// with 200, and another JSON API may too: only the interface's
		// answer to the call is the bank's.
		if ct := resp.Header.Get("Content-Type"); !isJSON(ct) {
			return verdictUndecided, fmt.Sprintf("%d with Content-Type %q, not the interface's JSON: a web page or another server, not the bank's API (check -url or -bank)", resp.StatusCode, clipText(ct))
		}
		switch {
		case ans.list == "":
			return verdictUndecided, fmt.Sprintf("%d JSON of a path whose answer the probe does not know (it knows GET %s): it cannot tell the bank's answer from another server's (probe the default -path)", resp.StatusCode, strings.Join(slices.Sorted(maps.Keys(probeLists)), " and "))
		case err != nil:
			return verdictUndecided, fmt.Sprintf("%d whose body does not decode as JSON: another server, not the bank's API (check -url or -bank)", resp.StatusCode)
		}
		if why := ans.problem(); why != "" {
			return verdictUndecided, fmt.Sprintf("%d JSON, but not the interface's answer to this call: %s: another server's API, not the bank's (check -url or -bank)", resp.StatusCode, why)
		}
		return verdictVerified, fmt.Sprintf("%d with the interface's answer (%s): the bank served the call", resp.StatusCode, ans.shape)
	}
	if err == nil {
		return verdictUndecided, "no answer from the bank"
	}
	var ce *client.Error
	if !errors.As(err, &ce) {
		if tlsFailure(err) {
			return verdictUndecided, "TLS failed, the request never reached the bank's checks: " + oneLine(err.Error())
		}
		return verdictUndecided, "no answer from the bank: " + oneLine(err.Error())
	}
	st := fmt.Sprintf("%d %s", ce.StatusCode, codeList(ce))
	has := func(codes []string) (client.TPPMessage, bool) {
		for _, m := range ce.Messages {
			if slices.Contains(codes, m.Code) {
				return m, true
			}
		}
		return client.TPPMessage{}, false
	}
	for _, m := range ce.Messages {
		if slices.Contains(signatureRefusals, m.Code) || (m.Code == "FORMAT_ERROR" && strings.EqualFold(m.Path, "Signature")) {
			return verdictRefused, "the bank refused the Signature: " + clipText(m.Text)
		}
	}
	switch {
	case ce.StatusCode >= 500:
		return verdictUndecided, st + ": the bank failed; its answer says nothing about the signature"
	case ce.StatusCode == http.StatusNotFound, ce.StatusCode == http.StatusMethodNotAllowed:
		return verdictUndecided, st + ": the bank does not serve this call here; its answer says nothing about the signature"
	}
	if m, ok := has(certificateRefusals); ok {
		return verdictUndecided, st + ": the bank refused the certificate itself, before reading the keyId: " + clipText(m.Text)
	}
	if ce.StatusCode == http.StatusUnauthorized && ce.Links.Href(client.LinkSCARedirect) != "" {
		return verdictVerified, st + " with a scaRedirect: the bank starts SCA only for a TPP whose signature it checked"
	}
	if _, ok := has(acceptedAfterSignature); ok {
		return verdictVerified, st + ": an answer about the PSU's session, given only after the signature check"
	}
	return verdictUndecided, st + ": not an answer the interface gives only after checking the signature"
}

// probeAnswer reads the 2xx answer of the probe's call and says whether
// it is shaped as the interface answers that call: for GET /v1/accounts
// (docs/interface.md: {"accounts":[...]}) and GET /v1/card-accounts
// ({"cardAccounts":[...]}), a JSON object whose list member is a list of
// objects, each with a resourceId string; an empty list is an answer
// too. For another -path the probe knows no shape, so no 2xx of it
// proves the bank served the call. Decoding never fails: what it finds
// wrong is kept for problem. The client bounds the answer it reads.
type probeAnswer struct {
	list  string // the member holding the list, "" when the path has none known
	shape string // the shape, as the reason says it
	read  bool   // a body was decoded
	why   string // what is not the interface's, "" when it is
}

// probeLists are the paths whose 2xx answer the probe recognises, with
// the member holding their list.
var probeLists = map[string]string{
	"/v1/accounts":      "accounts",
	"/v1/card-accounts": "cardAccounts",
}

// newProbeAnswer is the probeAnswer of a call of path.
func newProbeAnswer(path string) *probeAnswer {
	list := probeLists[path]
	return &probeAnswer{list: list, shape: fmt.Sprintf(`{"%s":[{"resourceId":...},...]}`, list)}
}

// UnmarshalJSON records whether data has the shape; it never fails.
func (a *probeAnswer) UnmarshalJSON(data []byte) error {
	a.read = true
	a.why = a.check(data)
	return nil
}

// check returns what makes data not the interface's answer, "" for
// nothing.
func (a *probeAnswer) check(data []byte) string {
	if a.list == "" {
		return ""
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return "not a JSON object (want " + a.shape + ")"
	}
	raw, ok := top[a.list]
	if !ok {
		return fmt.Sprintf("no %q member (want %s)", a.list, a.shape)
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &items) != nil {
		return fmt.Sprintf("%q is not a list (want %s)", a.list, a.shape)
	}
	for i, it := range items {
		var item struct {
			ResourceID *string `json:"resourceId"`
		}
		if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &item) != nil || item.ResourceID == nil || *item.ResourceID == "" {
			return fmt.Sprintf("entry %d of %q is not an object with a resourceId (want %s)", i, a.list, a.shape)
		}
	}
	return ""
}

// problem says why the answer read is not the interface's, "" when it
// is; a path without a known shape is judgeProbe's.
func (a *probeAnswer) problem() string {
	if !a.read {
		return "an empty body (want " + a.shape + ")"
	}
	return a.why
}

// isJSON reports whether a Content-Type is JSON (application/json, or a
// type with the +json suffix).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// codeList is the error's tppMessages codes, or "(no code)".
func codeList(ce *client.Error) string {
	var codes []string
	for _, m := range ce.Messages {
		codes = append(codes, clipCode(m.Code))
	}
	if len(codes) == 0 {
		return "(no code)"
	}
	return strings.Join(codes, ",")
}

// clipText keeps a bank's message text to one line of at most 200 bytes,
// cut on a character, without control characters (an escape sequence
// would drive the operator's terminal) or invalid UTF-8.
func clipText(s string) string {
	return clip(oneLine(s), 200)
}

// clipCode is a bank's code as clipText keeps a text, to 64 bytes.
func clipCode(s string) string { return clip(s, 64) }

// clip replaces the control characters and invalid UTF-8 of s with
// U+FFFD and keeps at most n bytes of it, cut on a character.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// tlsFailure reports whether err is a failed TLS handshake or certificate
// check.
func tlsFailure(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	var ae tls.AlertError
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) ||
		errors.As(err, &rh) || errors.As(err, &ae) || strings.Contains(err.Error(), "tls: ")
}

// probeRenderings are the keyIds the probe tries: every rendering of
// psd2 keyid, and each issuer form again with the serial padded to whole
// bytes, as openssl x509 -serial prints it (the same keyId when the serial
// already has an even number of hex digits, then tried once).
func probeRenderings(cert *x509.Certificate) []rendering {
	base := renderings(cert)
	sn := strings.ToUpper(cert.SerialNumber.Text(16))
	out := slices.Clone(base)
	if len(sn)%2 == 1 {
		for _, r := range base {
			issuer, ok := strings.CutPrefix(r.KeyID, "SN="+sn+",CA=")
			if !ok || r.Name == "sdk" {
				continue // the SDK's issuer with a padded serial is psd2 keyid's padded-serial
			}
			out = append(out, rendering{r.Name + "+padded-serial", "SN=0" + sn + ",CA=" + issuer, r.About + ", serial padded to whole bytes"})
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(r rendering) bool {
		dup := seen[r.KeyID]
		seen[r.KeyID] = true
		return dup
	})
}
