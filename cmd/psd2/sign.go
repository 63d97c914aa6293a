package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
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
	Headers [][]string `json:"headers"` // [name, value], Host and Content-Length aside, in the order printed
	Body    string     `json:"body,omitempty"`
	Request string     `json:"request"` // the raw HTTP request, as psd2 verify reads it
	Curl    string     `json:"curl"`
}

func runSign(_ context.Context, e *env, args []string) error {
	fs := e.flags("sign", "(-cert cert.pem [-key key.pem] | -p12 tpp.p12) -url URL [-X METHOD] [-d BODY | -body-file F] [-H 'Name: value']... [-keyid-form sdk] [-curl [-ca ca.pem]]")
	var cf credFlags
	cf.register(fs, true)
	method := fs.String("X", http.MethodGet, "HTTP method")
	target := fs.String("url", "", "full request URL, e.g. https://psd2.bank.no/api-sandbox/v1/accounts")
	data := fs.String("d", "", "request body (JSON)")
	bodyFile := fs.String("body-file", "", "file holding the request body")
	form := fs.String("keyid-form", "sdk", "keyId rendering (psd2 keyid lists them)")
	date := fs.String("date", "", "Date header value (default: now), to reproduce a captured request")
	curl := fs.Bool("curl", false, "print a curl command that sends the request, instead of the request itself")
	ca := fs.String("ca", "", "PEM file of the bank's CA for the curl command (--cacert), e.g. the emulator's ca.pem")
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
		if body, err = readBounded(*bodyFile, maxRequestBodyFile); err != nil {
			return err
		}
	}
	var cacert string
	if *ca != "" {
		if cacert, err = caPath(*ca); err != nil {
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
	dataArg := ""
	if *bodyFile != "" && len(body) > 0 {
		abs, err := filepath.Abs(*bodyFile)
		if err != nil {
			return err
		}
		dataArg = "@" + abs
	}
	out := describe(req, body, cacert, dataArg)
	// The request as it is, to be sent or read by psd2 verify: its
	// line ends (CRLF) and body are the request's own.
	e.rawText = true
	return e.emit(out, func(w io.Writer) {
		if *curl {
			fmt.Fprintln(w, out.Curl)
			return
		}
		io.WriteString(w, out.Request)
	})
}

// caPath checks that file holds a PEM certificate and returns its
// absolute path, so the curl command works from any directory.
func caPath(file string) (string, error) {
	data, err := readBounded(file, maxCredentialFile)
	if err != nil {
		return "", err
	}
	if b, _ := pem.Decode(data); b == nil || b.Type != "CERTIFICATE" {
		return "", fmt.Errorf("%s: no PEM certificate", file)
	}
	return filepath.Abs(file)
}

// buildSigned makes the request as the SDK sends it: Date, X-Request-ID,
// Digest and Content-Type for a body (docs/design.md section 3),
// TPP-Signature-Certificate and the Signature over docs/interface.md
// section 5.5's headers.
func buildSigned(method, target string, body []byte, hdrs []string, date string, creds *signing.Credentials, keyID string) (*http.Request, error) {
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		return nil, usageError{err}
	}
	dateGiven := date != ""
	if date == "" {
		date = time.Now().UTC().Format(http.TimeFormat)
	}
	if strings.ContainsFunc(date, isControl) {
		return nil, usagef("-date: a control character or line break in the value")
	}
	req.Header.Set("Date", date)
	req.Header.Set("X-Request-ID", uuid.NewString())
	if len(body) > 0 {
		req.Header.Set("Digest", signing.Digest(body))
		req.Header.Set("Content-Type", "application/json")
	}
	given := map[string]string{} // the name as first given, by its canonical form
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || !headerName(name) {
			return nil, usagef("-H %q: want 'Name: value', the name a header name", h)
		}
		// A value sign would drop without a word is refused: one
		// header given twice (the last was taken), one sign makes
		// itself, a Date given by -date as well.
		canon := http.CanonicalHeaderKey(name)
		switch {
		case given[canon] != "":
			return nil, usagef("-H %s: %s is given twice: give each header once", name, given[canon])
		case canon == "Signature" || canon == "Tpp-Signature-Certificate":
			return nil, usagef("-H %s: sign makes it (from -cert and -key, or -p12)", name)
		case canon == "Date" && dateGiven:
			return nil, usagef("-H %s with -date: give the Date once", name)
		}
		given[canon] = name
		if strings.ContainsFunc(value, isControl) {
			// A line break would print a header of its own.
			return nil, usagef("-H %s: a control character or line break in the value", name)
		}
		if strings.EqualFold(name, "Host") || strings.EqualFold(name, "Content-Length") {
			return nil, usagef("-H %q: %s follows from -url and the body", h, name)
		}
		req.Header.Set(name, strings.TrimSpace(value))
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

// isControl reports whether r may not stand in a header value: a control
// character other than a tab (a line break would start a header of its
// own).
func isControl(r rune) bool { return r != '\t' && (r < ' ' || r == 0x7f) }

// headerName reports whether name is a header name: one or more
// token characters (RFC 9110 section 5.1).
func headerName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r > '~' || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

// certHeader is the TPP-Signature-Certificate value: the base64 DER of the
// certificate.
func certHeader(creds *signing.Credentials) string {
	return b64(creds.Certificate.Raw)
}

// describe writes req as a raw HTTP request (the request line, Host,
// Content-Length with a body, the headers in name order, a blank line and
// the body: what psd2 verify reads) and as a curl command that sends it:
// with --cacert cacert when given, and the body inline or, for dataArg
// "@file", from the file.
func describe(req *http.Request, body []byte, cacert, dataArg string) signedRequest {
	names := make([]string, 0, len(req.Header))
	for n := range req.Header {
		names = append(names, n)
	}
	slices.Sort(names)
	out := signedRequest{Method: req.Method, URL: req.URL.String(), Body: string(body)}
	var raw strings.Builder
	fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.Method, req.URL.RequestURI(), req.URL.Host)
	if len(body) > 0 {
		fmt.Fprintf(&raw, "Content-Length: %d\r\n", len(body))
	}
	var curl strings.Builder
	fmt.Fprintf(&curl, "curl -sS -i --fail-with-body -X %s %s", req.Method, shellQuote(req.URL.String()))
	if cacert != "" {
		fmt.Fprintf(&curl, " \\\n  --cacert %s", shellQuote(cacert))
	}
	for _, n := range names {
		for _, v := range req.Header[n] {
			out.Headers = append(out.Headers, []string{n, v})
			fmt.Fprintf(&raw, "%s: %s\r\n", n, v)
			fmt.Fprintf(&curl, " \\\n  -H %s", shellQuote(n+": "+v))
		}
	}
	raw.WriteString("\r\n")
	raw.Write(body)
	if len(body) > 0 {
		raw.WriteString("\n")
		if dataArg == "" {
			dataArg = string(body)
		}
		fmt.Fprintf(&curl, " \\\n  --data-binary %s", shellQuote(dataArg))
	}
	out.Request, out.Curl = raw.String(), curl.String()
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
