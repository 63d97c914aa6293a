package client

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tppkit/psd2/internal/redact"
)

// redactedValue stands in for a secret in logs, printed values and JSON:
// [redact.Redacted], the SDK's one marker.
const redactedValue = redact.Redacted

// headerShown says how the client's logger renders one header's value.
type headerShown int

const (
	// The zero value replaces the value with [redacted]: the default for
	// any header not listed in logHeaders.
	_ headerShown = iota
	// showClear logs the value as it is.
	showClear
	// showURIWithoutQuery logs scheme, host and path of a URI; user info,
	// query and fragment are replaced (see redactURI).
	showURIWithoutQuery
)

// logHeaders is the one redaction list of the package: the headers whose
// values the logger shows (request headers at Debug level, response headers
// likewise). Every header not named here is logged as [redacted], so a
// header added with [WithHeader], or an unknown header a bank echoes, never
// reaches a log in clear. Header names are always shown; bodies are never
// logged at all.
//
// Redacted because they identify the PSU or let a reader act as the TPP:
// PSU-ID, PSU-Corporate-ID, X-PSU-IDENTITY (a national identity number),
// PSU-IP-Address, PSU-IP-Port, PSU-Device-ID, PSU-Geo-Location,
// PSU-User-Agent and the other PSU-Accept* headers forwarded from the
// PSU's device (together they fingerprint the PSU), TPP-Session-ID (with
// the redirect's state it lets a reader forge an SCA callback), Signature,
// TPP-Signature-Certificate, Authorization, Cookie and Set-Cookie.
//
// TPP-Redirect-URI is shown without its query and fragment: they carry
// the SCA state (docs/interface.md section 6).
var logHeaders = map[string]headerShown{
	// Content negotiation and framing.
	"Accept":           showClear,
	"Accept-Charset":   showClear,
	"Accept-Encoding":  showClear,
	"Accept-Language":  showClear,
	"Content-Type":     showClear,
	"Content-Length":   showClear,
	"Content-Encoding": showClear,
	"Content-Language": showClear,
	"Cache-Control":    showClear,
	"Vary":             showClear,
	"Retry-After":      showClear,
	"User-Agent":       showClear, // the TPP's, set with WithUserAgent
	// Headers of the signature scheme that are not secret.
	"Date":         showClear,
	"Digest":       showClear,
	"X-Request-Id": showClear,
	// Interface headers that say nothing about who the PSU is.
	"X-Accept-Fix":                  showClear,
	"Tpp-Redirect-Preferred":        showClear,
	"Tpp-Brand-Logging-Information": showClear,
	"X-Psu-Authmethod-Preferred":    showClear,
	"Psu-Context":                   showClear,
	"Psu-Http-Method":               showClear,
	"Aspsp-Sca-Approach":            showClear,
	"Tpp-Redirect-Uri":              showURIWithoutQuery,
}

// headerLogValue is what the logger shows of header name (any case) with
// values vs: at most [redact.MaxShown] bytes of them ([redact.Cut]), all
// field lines together. A header shown in clear is, in an answer, the
// bank's text, as long as the answer's header limit lets it be (an
// X-Request-ID of 60 KiB, a thousand Vary lines): each log line and each
// printed form would carry it whole.
func headerLogValue(name string, vs []string) string {
	switch logHeaders[http.CanonicalHeaderKey(name)] {
	case showClear:
		return redact.Cut(strings.Join(vs, ", "))
	case showURIWithoutQuery:
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = redactURI(v)
		}
		return redact.Cut(strings.Join(out, ", "))
	}
	return redactedValue
}

// redactedHeader returns h as the logger shows it: each header's values
// joined and rendered by [headerLogValue] (the redaction list is
// logHeaders), the first maxShownHeaders names (shownHeaderNames) and,
// under moreHeadersKey, how many more there are. It backs the printed, JSON and slog forms of the package's
// types that hold headers.
func redactedHeader(h http.Header) map[string]string {
	if h == nil {
		return nil
	}
	names, more := shownHeaderNames(h)
	out := make(map[string]string, len(names)+1)
	for _, k := range names {
		out[k] = headerLogValue(k, h[k])
	}
	if more > 0 {
		out[moreHeadersKey] = moreHeaders(more)
	}
	return out
}

// redactURI returns scheme, host and path of an absolute URI, with
// [redacted] in place of user info, query and fragment; a value that does
// not parse as an absolute URI is redacted whole ([redact.URI]).
func redactURI(s string) string { return redact.URI(s, nil) }

// Path templates: the placeholders a logged path shows instead of ids.
const (
	placeholderID      = "{id}"
	placeholderProduct = "{product}"
)

// pathWords are the literal segments of the interface's paths
// (docs/interface.md section 4.5 and the platform's paths), each with the
// placeholder of the segment that follows it ("" when a literal or nothing
// follows). Any segment that is not a literal in its place is an id.
var pathWords = map[string]string{
	"v1":                    "",
	"accounts":              placeholderID,
	"card-accounts":         placeholderID,
	"balances":              "",
	"transactions":          placeholderID,
	"payments":              placeholderProduct,
	"periodic-payments":     placeholderProduct,
	"bulk-payments":         placeholderProduct,
	"signing-baskets":       placeholderID,
	"status":                "",
	"authorisations":        placeholderID,
	"agreements":            placeholderID,
	"user":                  "",
	"consents":              placeholderID,
	"bank-offered-consents": placeholderID,
	"sandbox":               "",
	"customers":             placeholderID,
	"initialize":            "",
	"tpps":                  placeholderID,
	"contact-information":   "",
}

// paymentProducts are the payment products of the platform. They name a
// kind of payment, not a person, so a logged path keeps them; any other
// value in the product's place is logged as {product}.
var paymentProducts = map[string]bool{
	"norwegian-domestic-credit-transfers":                true,
	"sepa-credit-transfers":                              true,
	"cross-border-credit-transfers":                      true,
	"instant-norwegian-domestic-credit-transfers-straks": true,
}

// pathTemplate returns escapedPath as the logger and redacted errors show
// it: ids replaced by {id}, an unknown payment product by {product}, query
// and fragment dropped, for example "/v1/accounts/{id}/balances" or
// "/v1/payments/sepa-credit-transfers/{id}/status".
//
// The base URL's path prefix (such as "/api") is dropped: the template
// starts at the version segment ("v1"), as the interface's paths and the
// bank's links are written. A path without a version segment keeps no
// prefix either; each of its segments that is not a literal of the
// interface is shown as {id}.
func pathTemplate(escapedPath string) string {
	return string(appendPathTemplate(make([]byte, 0, len(escapedPath)), escapedPath))
}

// appendPathTemplate appends escapedPath's template ([pathTemplate]) to b.
func appendPathTemplate(b []byte, escapedPath string) []byte {
	if i := strings.IndexAny(escapedPath, "?#"); i >= 0 {
		escapedPath = escapedPath[:i]
	}
	p := strings.TrimPrefix(escapedPath, "/")
	for rest := p; ; { // from the first version segment, if any
		seg, after, more := strings.Cut(rest, "/")
		if isVersion(seg) {
			p = rest
			break
		}
		if !more {
			break
		}
		rest = after
	}
	next := "" // placeholder of the next segment; "" means a literal is expected
	for more := true; more; {
		var s string
		s, p, more = strings.Cut(p, "/")
		b = append(b, '/')
		switch {
		case s == "":
			// An empty segment (a trailing or doubled slash) says nothing.
		case next == placeholderProduct:
			if paymentProducts[s] {
				b = append(b, s...)
			} else {
				b = append(b, placeholderProduct...)
			}
			next = placeholderID
			continue
		case next == placeholderID:
			b = append(b, placeholderID...)
		default:
			if follow, ok := pathWords[s]; ok || isVersion(s) {
				b = append(b, s...)
				next = follow
				continue
			}
			b = append(b, placeholderID...)
		}
		next = ""
	}
	return b
}

// routeTemplates holds the templates routeTemplate made, so that an
// observed call of a route made before allocates none.
var routeTemplates internedStrings

// routeTemplate is pathTemplate(escapedPath), the same string for every
// path of one route while at most internLimit templates are held.
func routeTemplate(escapedPath string) string {
	var buf [128]byte
	return routeTemplates.get(appendPathTemplate(buf[:0], escapedPath))
}

// internLimit bounds the strings an internedStrings holds. The
// interface's routes are a few dozen; past the limit a string is made
// afresh at each call.
const internLimit = 1024

// internedStrings returns one string for equal byte slices, up to
// internLimit of them. Readers load the map without a lock; a writer
// replaces it with a copy that holds one more.
type internedStrings struct {
	m  atomic.Pointer[map[string]string]
	mu sync.Mutex // serialises writers
}

// get returns the string of b, held if there is room.
func (t *internedStrings) get(b []byte) string {
	if m := t.m.Load(); m != nil {
		if s, ok := (*m)[string(b)]; ok {
			return s
		}
	}
	s := string(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.m.Load()
	if old != nil {
		if held, ok := (*old)[s]; ok {
			return held
		}
		if len(*old) >= internLimit {
			return s
		}
	}
	m := map[string]string{}
	if old != nil {
		m = maps.Clone(*old)
	}
	m[s] = s
	t.m.Store(&m)
	return s
}

// isVersion reports whether s is a version segment such as "v1".
func isVersion(s string) bool {
	if len(s) < 2 || len(s) > 4 || s[0] != 'v' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// redactURLError hides the URL of a *url.Error in err, which net/http
// writes in full (query and ids included) into its message, and the
// bytes of a malformed answer its cause quotes ([redactBankBytes]). When err is a
// *url.Error it returns a copy whose URL is the templated path
// ([pathTemplate]): `Get "/v1/accounts/{id}/balances": dial tcp ...`. When
// err wraps one, it returns an error with the same message but that URL
// replaced; errors.As to a *url.Error (or net.Error) then finds the
// redacted copy. In both cases errors.Is and errors.As still reach the
// cause (a *net.OpError, a context error, a TLS error). Any other error is
// returned unchanged. It is idempotent.
//
// Call it where the transport's error first appears: a wrapper created
// earlier (and kept in a field of another error) still holds the URL.
func redactURLError(err error) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	if !errors.As(err, &ue) || ue == nil {
		return err
	}
	red := &url.Error{Op: ue.Op, URL: redactedURL(ue.URL), Err: redactBankBytes(ue.Err)}
	if e, ok := err.(*url.Error); ok && e == ue {
		return red
	}
	msg := strings.ReplaceAll(err.Error(), ue.Error(), red.Error())
	if ue.URL != "" {
		msg = strings.ReplaceAll(msg, ue.URL, red.URL)
	}
	return &urlRedactedError{msg: msg, err: err, red: red}
}

// redactedURL is the templated path of a URL, or [redacted] when it does
// not parse.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redactedValue
	}
	return pathTemplate(u.EscapedPath())
}

// urlRedactedError is an error wrapping a *url.Error whose message has the
// URL replaced by its template.
type urlRedactedError struct {
	msg string
	err error      // the original chain, for errors.Is and errors.As
	red *url.Error // the redacted copy, for errors.As
}

func (e *urlRedactedError) Error() string { return e.msg }
func (e *urlRedactedError) Unwrap() error { return e.err }

// As hands out the redacted *url.Error for a target it fits (*url.Error,
// net.Error, error-like interfaces), before errors.As would reach the
// original one further down the chain.
func (e *urlRedactedError) As(target any) bool {
	v := reflect.ValueOf(target)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	if reflect.TypeOf(e.red).AssignableTo(v.Elem().Type()) {
		v.Elem().Set(reflect.ValueOf(e.red))
		return true
	}
	return false
}

// bankBytesMarkers are the phrases with which net/http and net/textproto
// begin an error about an answer that is not valid HTTP, each followed
// by the offending bytes of the answer, quoted: a status line, a header
// line, a Content-Length, a transfer coding, a trailer key.
var bankBytesMarkers = [...]string{
	"malformed ", "bad Content-Length", "invalid empty Content-Length",
	"multiple Content-Length", "unsupported transfer encoding", "bad trailer key",
	"invalid Trailer key", "short response", "invalid response code", "unexpected multi-line response",
}

// redactBankBytes returns err with the bytes of the answer its message
// quotes after one of bankBytesMarkers replaced by [redacted]: a server
// that answers with something other than HTTP (one echoing the request
// back, its PSU-ID and account path among it) would otherwise put them
// into the call's error and the log, which show nothing of the bank's
// own text (see [Error.Error]). The phrase stays, so the error still
// says what was wrong. errors.Is and errors.As reach err's chain; an
// error without such a phrase is returned unchanged.
func redactBankBytes(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	at := -1
	for _, m := range bankBytesMarkers {
		if i := strings.Index(msg, m); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return err
	}
	red := msg[:at] + redactQuoted(msg[at:])
	if red == msg {
		return err
	}
	return &bankBytesError{msg: red, err: err}
}

// redactQuoted replaces each Go-quoted string of s ("..." as %q writes
// it) with a quoted [redacted]; an unterminated one ends s.
func redactQuoted(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(`"` + redactedValue + `"`)
		q, err := strconv.QuotedPrefix(s[i:])
		if err != nil {
			return b.String()
		}
		s = s[i+len(q):]
	}
}

// bankBytesError is an error whose message had the answer's bytes
// redacted (redactBankBytes).
type bankBytesError struct {
	msg string
	err error // the original chain, for errors.Is and errors.As
}

func (e *bankBytesError) Error() string { return e.msg }
func (e *bankBytesError) Unwrap() error { return e.err }
