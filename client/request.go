package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
	"golang.org/x/net/http/httpguts"
)

// RequestOption sets per-call headers and settings: the PSU, the TPP
// session, the redirect URI, the request id. Options are applied in order
// before the request is signed; an invalid value fails the call before
// anything is sent. Every header an option sets must have an RFC 7230
// token as its name and no control character in its value (a byte below
// 0x20 other than tab, or 0x7f); one that breaks the rule fails the option
// with a [*ValidationError] (Field "header <name>"), so the call ends in a
// [*NotSentError] matching both [ErrNotSent] and [ErrValidation].
type RequestOption func(*callConfig) error

type callConfig struct {
	// kv are the headers set, one value under each canonical key, in
	// the order first set; kvBuf holds the first ones, so that setting
	// them allocates nothing. headers turns them into the http.Header,
	// made once at its final size.
	kv             []headerKV
	kvBuf          [12]headerKV
	requestID      string
	acceptFix      []AcceptFix
	query          url.Values  // added to the operation's query
	skipValidation bool        // WithoutValidation
	values         []callValue // WithValue
}

// callValue is one value a [WithValue] option attached to a call.
type callValue struct{ key, value any }

// WithValue attaches value to the call under key, for the operation's
// hooks to read with [Call.Value]: how a service package hands its hook
// something that belongs to one call (package budget's
// Reservation.Option gives the reservation of the account's calls that
// way). It sets no header and nothing is sent of it. key must be
// comparable; use an unexported type of the package that reads it, as
// with context.WithValue. A later option with the same key replaces the
// value; a nil key fails the call before it is sent.
func WithValue(key, value any) RequestOption {
	if key == nil {
		return fail(&ValidationError{Field: "value", Reason: "nil key"})
	}
	return func(c *callConfig) error {
		for i := range c.values {
			if c.values[i].key == key {
				c.values[i].value = value
				return nil
			}
		}
		c.values = append(c.values, callValue{key, value})
		return nil
	}
}

// PSU holds the PSU-* headers of docs/interface.md section 4.1. ID is the PSU-ID (a UUID
// the bank gave after SCA); IPAddress is set when the PSU is actively
// present (docs/interface.md section 5.14) and must be left empty when the TPP acts
// without the PSU. Empty fields are not sent.
type PSU struct {
	ID             string
	CorporateID    string
	IPAddress      string
	IPPort         string
	UserAgent      string
	Accept         string
	AcceptCharset  string
	AcceptEncoding string
	AcceptLanguage string
	GeoLocation    string
	HTTPMethod     string
	DeviceID       string
}

// WithPSU sets the PSU-* headers of p. PSU-ID and PSU-Device-ID must be
// UUIDs (docs/interface.md section 4.1).
func WithPSU(p PSU) RequestOption {
	return func(c *callConfig) error {
		// c.set applies the rules of PSU-ID, PSU-Device-ID and
		// PSU-HTTP-Method (headerRules).
		for _, h := range []struct{ name, value string }{
			{"PSU-ID", p.ID}, {"PSU-Corporate-ID", p.CorporateID}, {"PSU-IP-Address", p.IPAddress},
			{"PSU-IP-Port", p.IPPort}, {"PSU-User-Agent", p.UserAgent}, {"PSU-Accept", p.Accept},
			{"PSU-Accept-Charset", p.AcceptCharset}, {"PSU-Accept-Encoding", p.AcceptEncoding},
			{"PSU-Accept-Language", p.AcceptLanguage}, {"PSU-Geo-Location", p.GeoLocation},
			{"PSU-HTTP-Method", p.HTTPMethod}, {"PSU-Device-ID", p.DeviceID},
		} {
			if err := c.set(h.name, h.value); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithTPPSessionID sets TPP-Session-ID, which ties calls to the PSU's SCA
// session (docs/interface.md section 3).
func WithTPPSessionID(id string) RequestOption {
	return preset("TPP-Session-ID", id, true)
}

// WithRedirectURI sets TPP-Redirect-URI, where the bank sends the PSU back
// after SCA. It must be an absolute https URL (http only on loopback).
func WithRedirectURI(uri string) RequestOption {
	if uri == "" {
		return fail(checkRedirectURI("TPP-Redirect-URI", uri))
	}
	return preset("TPP-Redirect-URI", uri, false) // checkRedirectURI, by headerRules
}

// checkRedirectURI applies the rule of [WithRedirectURI].
func checkRedirectURI(name, uri string) error {
	u, err := url.Parse(uri)
	if err != nil || !u.IsAbs() || u.Hostname() == "" {
		return headerError(name, "must be an absolute URL")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return headerError(name, "must use https")
	}
	return nil
}

// headerError is the refusal of a header value an option or WithHeader
// was given: a *ValidationError on field "header <name>".
func headerError(name, reason string) error {
	return &ValidationError{Field: "header " + name, Reason: reason}
}

// WithRedirectPreferred sets TPP-Redirect-Preferred; false asks for the
// bank's app-based (biometric) flow where available (docs/interface.md section 5.12).
func WithRedirectPreferred(preferred bool) RequestOption {
	return preset("TPP-Redirect-Preferred", fmt.Sprint(preferred), false)
}

// checkBool refuses a value other than "true" and "false", the two a
// boolean header option writes.
func checkBool(name, v string) error {
	if v != "true" && v != "false" {
		return headerError(name, "must be true or false")
	}
	return nil
}

// checkPSUHTTPMethod applies the rule of [PSU].HTTPMethod.
func checkPSUHTTPMethod(name, v string) error {
	switch v {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
		return nil
	}
	return headerError(name, "is not GET, POST, PUT, PATCH or DELETE")
}

// MaxRequestIDLen is the longest X-Request-ID [WithRequestID] accepts. The
// interface says only "string, unique per call" (docs/interface.md section
// 4); 200 characters hold any UUID, ULID or order reference with room to
// spare, and stay far below header size limits. The emulator accepts the
// same.
const MaxRequestIDLen = 200

// WithRequestID fixes the X-Request-ID instead of letting the client choose
// one (the client generates a UUID). Use it to record the id before sending,
// so that a payment whose outcome is unknown can be reconciled. The id need
// not be a UUID: any 1 to [MaxRequestIDLen] printable ASCII characters
// (space to "~"), not starting or ending with a space (HTTP would drop it,
// and the echoed id would no longer match). It must be unique per call; the
// client keeps it for every attempt of the call.
func WithRequestID(id string) RequestOption {
	return func(c *callConfig) error {
		if err := checkRequestID(id); err != nil {
			return err
		}
		c.requestID = id
		return nil
	}
}

// checkRequestID applies the rule of [WithRequestID].
func checkRequestID(id string) error {
	if id == "" || len(id) > MaxRequestIDLen {
		return headerError("X-Request-ID", fmt.Sprintf("must be 1 to %d characters", MaxRequestIDLen))
	}
	if id[0] == ' ' || id[len(id)-1] == ' ' {
		return headerError("X-Request-ID", "must not start or end with a space")
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] > 0x7e {
			return headerError("X-Request-ID", "must be printable ASCII")
		}
	}
	return nil
}

// WithPSUIdentity sets X-PSU-IDENTITY, the PSU's national identity number,
// to preselect the PSU at SCA (docs/interface.md section 5.11). It is never logged.
func WithPSUIdentity(nationalID string) RequestOption {
	return preset("X-PSU-IDENTITY", nationalID, true)
}

// WithAuthMethodPreferred sets X-PSU-AuthMethod-Preferred (docs/interface.md section 5.11)
// to one of the methods the interface lists: "ENGANGSKODEAPP_BIOMETRI",
// "HA2", "BANKID_MOBIL" or "BANKID" (sca.AuthMethod names them). Any
// other value fails the call with a *ValidationError before it is sent.
func WithAuthMethodPreferred(method string) RequestOption {
	return preset("X-PSU-AuthMethod-Preferred", method, true)
}

// authMethods are the values of X-PSU-AuthMethod-Preferred the interface
// lists (docs/interface.md section 5.11). It writes the two brand-named
// methods as <EID_MOBILE_METHOD> and <BANK_ID_METHOD> without a value:
// BANKID_MOBIL and BANKID are the SDK's assumption (sca.AuthMethod),
// kept in this one list on the client's side.
var authMethods = []string{"ENGANGSKODEAPP_BIOMETRI", "HA2", "BANKID_MOBIL", "BANKID"}

// checkAuthMethod applies the rule of [WithAuthMethodPreferred], naming
// the header in the interface's spelling whatever case it was given in.
func checkAuthMethod(_, method string) error {
	if !slices.Contains(authMethods, method) {
		return headerError("X-PSU-AuthMethod-Preferred", "must be one of "+strings.Join(authMethods, ", "))
	}
	return nil
}

// PSUContext says whether the PSU acts as a private person or for a
// company (PSU-Context, docs/interface.md section 4.2). It is the SDK's
// one spelling of the two: sessions, sandbox customers and the header all
// use it.
type PSUContext string

// The two PSU contexts.
const (
	Private   PSUContext = "PRIVATE"
	Corporate PSUContext = "CORPORATE"
)

// Valid reports whether p is [Private] or [Corporate].
func (p PSUContext) Valid() bool { return p == Private || p == Corporate }

// WithPSUContext sets PSU-Context, [Private] or [Corporate]
// (docs/interface.md section 4.2): optional on a payment's creation, which
// the interface says single-SCA initiation needs.
func WithPSUContext(p PSUContext) RequestOption {
	if p == "" {
		return fail(checkPSUContext("PSU-Context", ""))
	}
	return preset("PSU-Context", string(p), false) // checkPSUContext, by headerRules
}

// checkPSUContext applies the rule of [WithPSUContext].
func checkPSUContext(name, v string) error {
	if !PSUContext(v).Valid() {
		return headerError(name, "must be PRIVATE or CORPORATE")
	}
	return nil
}

// WithBrandLoggingInformation sets TPP-Brand-Logging-Information, the TPP
// brand shown to the PSU.
func WithBrandLoggingInformation(brand string) RequestOption {
	return preset("TPP-Brand-Logging-Information", brand, true)
}

// WithCallAcceptFix adds x-accept-fix switches for this call only.
func WithCallAcceptFix(fixes ...AcceptFix) RequestOption {
	return func(c *callConfig) error {
		for _, f := range fixes {
			if f == "" || strings.ContainsAny(string(f), ", ") || checkHeaderValue(string(f)) != nil {
				return headerError("X-Accept-Fix", fmt.Sprintf("invalid value %q", f))
			}
		}
		c.acceptFix = append(c.acceptFix, fixes...)
		return nil
	}
}

// reservedHeaders are set by the pipeline itself and cannot be set with
// WithHeader; the value, when not empty, names the option that sets it.
var reservedHeaders = map[string]string{
	"Date": "", "Digest": "", "Signature": "", "Tpp-Signature-Certificate": "",
	"X-Request-Id": "WithRequestID", "Content-Type": "", "Content-Length": "", "Host": "",
	"X-Accept-Fix": "WithCallAcceptFix", "Authorization": "",
}

// headerRules are the checks of the typed options, by canonical header
// name. callConfig.set applies them to every header, so [WithHeader]
// (in any spelling of the name) is held to the same rule as the typed
// option: a PSU-ID that is not a UUID or an http TPP-Redirect-URI is
// refused either way.
var headerRules = map[string]func(name, value string) error{
	"Psu-Id":                     checkUUID,
	"Psu-Device-Id":              checkUUID,
	"Psu-Http-Method":            checkPSUHTTPMethod,
	"Tpp-Redirect-Uri":           checkRedirectURI,
	"Psu-Context":                checkPSUContext,
	"Tpp-Redirect-Preferred":     checkBool,
	"X-Psu-Authmethod-Preferred": checkAuthMethod,
}

// WithHeader sets any other request header. Headers the pipeline owns
// (Date, Digest, Signature, TPP-Signature-Certificate, X-Request-ID,
// Content-Type, x-accept-fix, Host) are refused. A header a typed option
// sets is held to that option's rule, whatever the case of its name:
// PSU-ID and PSU-Device-ID must be UUIDs ([WithPSU]), PSU-HTTP-Method one
// of GET, POST, PUT, PATCH, DELETE, TPP-Redirect-URI an absolute https
// URL ([WithRedirectURI]), PSU-Context PRIVATE or CORPORATE
// ([WithPSUContext]), TPP-Redirect-Preferred true or false,
// X-PSU-AuthMethod-Preferred a listed method ([WithAuthMethodPreferred]); the others
// (TPP-Session-ID, PSU-Corporate-ID, ...) must not be empty, as with
// their options.
func WithHeader(name, value string) RequestOption {
	return func(c *callConfig) error {
		if opt, ok := reservedHeaders[canonicalKey(name)]; ok {
			if opt != "" {
				return headerError(name, "is set by the client; use "+opt)
			}
			return headerError(name, "is set by the client")
		}
		return c.setRequired(name, value)
	}
}

// Combine returns one RequestOption applying opts in order.
func Combine(opts ...RequestOption) RequestOption {
	return func(c *callConfig) error {
		for _, o := range opts {
			if o == nil {
				continue
			}
			if err := o(c); err != nil {
				return err
			}
		}
		return nil
	}
}

// applyOptions applies each list of options in order to one callConfig:
// the client's defaults first, then the call's, so a call's option
// replaces a default that sets the same header.
func applyOptions(lists ...[]RequestOption) (*callConfig, error) {
	c := &callConfig{}
	c.kv = c.kvBuf[:0]
	for _, opts := range lists {
		for _, o := range opts {
			if o == nil {
				continue
			}
			if err := o(c); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// preset returns the option setting header name to value, with the
// checks of callConfig.set (and, when required, of setRequired) made
// once, as the option is made: an option made once and given to every
// call ([WithDefaults]) costs no check per call, a redirect URI no URL
// parse. An option whose value fails them fails every call it is given
// to, each with an error of its own.
func preset(name, value string, required bool) RequestOption {
	var err error
	if required && value == "" {
		err = headerError(name, "must not be empty")
	} else {
		err = checkValue(name, canonicalKey(name), value)
	}
	if err != nil {
		return fail(err)
	}
	if value == "" {
		return func(*callConfig) error { return nil }
	}
	key := canonicalKey(name)
	return func(c *callConfig) error {
		c.setKey(key, value)
		return nil
	}
}

// fail returns the option that fails with err, a copy of it each time
// when it is a *ValidationError, so that no two calls share one.
func fail(err error) RequestOption {
	var verr *ValidationError
	if !errors.As(err, &verr) || verr != err {
		return func(*callConfig) error { return err }
	}
	v := *verr
	return func(*callConfig) error {
		e := v
		return &e
	}
}

func (c *callConfig) setRequired(name, value string) error {
	if value == "" {
		return headerError(name, "must not be empty")
	}
	return c.set(name, value)
}

// set sets header name to value, or does nothing for an empty value.
// Every header an option sets passes here, so a name or value that
// net/http would refuse fails the option with a [*ValidationError] (the
// call then ends in a [*NotSentError]) instead of failing inside the
// transport, where the client could no longer tell that nothing left.
func (c *callConfig) set(name, value string) error {
	key := canonicalKey(name)
	if err := checkValue(name, key, value); err != nil {
		return err
	}
	if value != "" {
		c.setKey(key, value)
	}
	return nil
}

// checkValue applies the checks of callConfig.set to header name (whose
// canonical key is key) and value: none to an empty value.
func checkValue(name, key, value string) error {
	if value == "" {
		return nil
	}
	if err := checkHeader(name, value); err != nil {
		return err
	}
	if rule := headerRules[key]; rule != nil {
		return rule(name, value)
	}
	return nil
}

// headerKV is one header a call's options or the pipeline set.
type headerKV struct{ key, value string }

// setKey sets the header under the canonical key to the one value v,
// replacing the value an earlier option gave it.
func (c *callConfig) setKey(key, v string) {
	for i := range c.kv {
		if c.kv[i].key == key {
			c.kv[i].value = v
			return
		}
	}
	c.kv = append(c.kv, headerKV{key, v})
}

// headers returns the headers set as an http.Header made at its size plus
// room for extra more (signing's, Client.newRequest), so that it does not
// grow, and no larger: net/http copies it whole for every request. The
// values share one backing array, each slice capped at its own value, so
// that adding a value to one header copies it instead of writing over
// the next header's.
func (c *callConfig) headers(extra int) http.Header {
	h := make(http.Header, len(c.kv)+extra)
	vals := make([]string, len(c.kv))
	for i, kv := range c.kv {
		vals[i] = kv.value
		h[kv.key] = vals[i : i+1 : i+1]
	}
	return h
}

// knownKeys maps the interface's spellings of the headers options set
// (docs/interface.md section 4) to their canonical keys, so that setting
// or looking them up does not allocate a canonical form on every call.
var knownKeys = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"TPP-Session-ID", "TPP-Redirect-URI", "TPP-Redirect-Preferred", "TPP-Brand-Logging-Information",
		"PSU-ID", "PSU-Corporate-ID", "PSU-IP-Address", "PSU-IP-Port", "PSU-User-Agent", "PSU-Accept",
		"PSU-Accept-Charset", "PSU-Accept-Encoding", "PSU-Accept-Language", "PSU-Geo-Location",
		"PSU-HTTP-Method", "PSU-Device-ID", "PSU-Context", "X-PSU-IDENTITY", "X-PSU-AuthMethod-Preferred",
		"X-Request-ID",
	} {
		m[n] = http.CanonicalHeaderKey(n)
	}
	return m
}()

// canonicalKey is http.CanonicalHeaderKey(name), without allocating for
// the names of knownKeys.
func canonicalKey(name string) string {
	if k, ok := knownKeys[name]; ok {
		return k
	}
	return http.CanonicalHeaderKey(name)
}

// checkHeader refuses a header net/http would refuse to send: a name that
// is not an RFC 7230 token, or a value with a control character (a byte
// below 0x20 other than tab, or 0x7f). The value is never quoted in the
// error: it may be personal data.
func checkHeader(name, value string) error {
	if !httpguts.ValidHeaderFieldName(name) {
		return &ValidationError{Field: fmt.Sprintf("header %q", name), Reason: "not a valid header name"}
	}
	if err := checkHeaderValue(value); err != nil {
		return &ValidationError{Field: "header " + name, Reason: err.Error()}
	}
	return nil
}

// checkHeaderValue refuses a header value with a control character, the
// rule net/http applies before it sends (httpguts.ValidHeaderFieldValue).
func checkHeaderValue(value string) error {
	if httpguts.ValidHeaderFieldValue(value) {
		return nil
	}
	if strings.ContainsAny(value, "\r\n") {
		return errors.New("contains a line break")
	}
	return errors.New("contains a control character")
}

func checkUUID(name, v string) error {
	if _, err := uuid.Parse(v); err != nil || len(v) != 36 {
		return headerError(name, "must be a UUID")
	}
	return nil
}

// FailCall returns a RequestOption that stops the call with err before
// anything is sent. Code that builds options from stored data uses it
// when the data cannot make a valid call (sca.Session.RequestOptions for
// an invalid session), so the error surfaces where the call is made.
func FailCall(err error) RequestOption {
	if err == nil {
		err = errors.New("client: FailCall(nil)")
	}
	return func(*callConfig) error { return err }
}
