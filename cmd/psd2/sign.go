package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/signing"
)

// headerFlag collects repeatable -H "Name: value" flags.
type headerFlag []string

func (h *headerFlag) String() string     { return strings.Join(*h, "; ") }
func (h *headerFlag) Set(v string) error { *h = append(*h, v); return nil }

type signedRequest struct {
	Method  string     `json:"method"`
	URL     string     `json:"url"`
	Headers [][]string `json:"headers"` // [name, value] in the order sent
	Body    string     `json:"body,omitempty"`
	Curl    string     `json:"curl"`
}

func runSign(_ context.Context, e *env, args []string) error {
	fs := e.flags("sign", "(-cert cert.pem [-key key.pem] | -p12 tpp.p12) -url URL [-X METHOD] [-d BODY | -body-file F] [-H 'Name: value']... [-keyid-form sdk]")
	var cf credFlags
	cf.register(fs, true)
	method := fs.String("X", http.MethodGet, "HTTP method")
	target := fs.String("url", "", "full request URL, e.g. https://psd2.bank.no/api-sandbox/v1/accounts")
	data := fs.String("d", "", "request body (JSON)")
	bodyFile := fs.String("body-file", "", "file holding the request body")
	form := fs.String("keyid-form", "sdk", "keyId rendering (psd2 keyid lists them)")
	date := fs.String("date", "", "Date header value (default: now), to reproduce a captured request")
	var hdrs headerFlag
	fs.Var(&hdrs, "H", "extra header 'Name: value' (repeatable; PSU-ID, TPP-Redirect-URI... are signed when present)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	u, err := url.Parse(*target)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return usagef("-url %q is not an absolute URL", *target)
	}
	if *data != "" && *bodyFile != "" {
		return usagef("give -d or -body-file, not both")
	}
	body := []byte(*data)
	if *bodyFile != "" {
		if body, err = os.ReadFile(*bodyFile); err != nil {
			return err
		}
	}
	creds, err := cf.credentials()
	if err != nil {
		return err
	}
	keyID := ""
	for _, r := range renderings(creds.Certificate) {
		if r.Name == *form {
			keyID = r.KeyID
		}
	}
	if keyID == "" {
		return usagef("-keyid-form %q: not a rendering of this certificate (psd2 keyid lists them)", *form)
	}
	req, err := buildSigned(strings.ToUpper(*method), u.String(), body, hdrs, *date, creds, keyID)
	if err != nil {
		return err
	}
	out := describe(req, body)
	return e.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "%s %s\n", out.Method, out.URL)
		for _, h := range out.Headers {
			fmt.Fprintf(w, "%s: %s\n", h[0], h[1])
		}
		if len(body) > 0 {
			fmt.Fprintf(w, "\n%s\n", body)
		}
		fmt.Fprintf(w, "\n%s\n", out.Curl)
	})
}

// buildSigned makes the request as the SDK sends it: Date, X-Request-ID,
// Digest, Content-Type for a body, TPP-Signature-Certificate and the
// Signature over docs/interface.md section 5.5's headers.
func buildSigned(method, target string, body []byte, hdrs []string, date string, creds *signing.Credentials, keyID string) (*http.Request, error) {
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		return nil, usageError{err}
	}
	if date == "" {
		date = time.Now().UTC().Format(http.TimeFormat)
	}
	req.Header.Set("Date", date)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Digest", signing.Digest(body))
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usagef("-H %q: want 'Name: value'", h)
		}
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	req.Header.Set("TPP-Signature-Certificate", certHeader(creds))
	s, err := signing.NewSigner(creds.Key, keyID)
	if err != nil {
		return nil, err
	}
	if err := s.Sign(req); err != nil {
		return nil, err
	}
	return req, nil
}

// certHeader is the TPP-Signature-Certificate value: the base64 DER of the
// certificate.
func certHeader(creds *signing.Credentials) string {
	return b64(creds.Certificate.Raw)
}

// describe lists req's headers in a fixed order and a curl command.
func describe(req *http.Request, body []byte) signedRequest {
	names := make([]string, 0, len(req.Header))
	for n := range req.Header {
		names = append(names, n)
	}
	slices.Sort(names)
	out := signedRequest{Method: req.Method, URL: req.URL.String(), Body: string(body)}
	var curl strings.Builder
	fmt.Fprintf(&curl, "curl -X %s %s", req.Method, shellQuote(req.URL.String()))
	for _, n := range names {
		for _, v := range req.Header[n] {
			out.Headers = append(out.Headers, []string{n, v})
			fmt.Fprintf(&curl, " \\\n  -H %s", shellQuote(n+": "+v))
		}
	}
	if len(body) > 0 {
		fmt.Fprintf(&curl, " \\\n  --data-binary %s", shellQuote(string(body)))
	}
	out.Curl = curl.String()
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
