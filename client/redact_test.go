package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/v1/accounts", "/v1/accounts"},
		{"/api/v1/accounts", "/v1/accounts"},
		{"/psd2/api/v1/accounts/enc!!abc=", "/v1/accounts/{id}"},
		{"/v1/accounts/enc!!abc=/balances", "/v1/accounts/{id}/balances"},
		{"/v1/accounts/enc%21%21abc%3D/transactions", "/v1/accounts/{id}/transactions"},
		{"/v1/accounts/a/transactions/t-1", "/v1/accounts/{id}/transactions/{id}"},
		{"/v1/accounts/balances/balances", "/v1/accounts/{id}/balances"},
		{"/v1/card-accounts/c1/transactions", "/v1/card-accounts/{id}/transactions"},
		{"/v1/payments/norwegian-domestic-credit-transfers", "/v1/payments/norwegian-domestic-credit-transfers"},
		{"/v1/payments/sepa-credit-transfers/p1/status", "/v1/payments/sepa-credit-transfers/{id}/status"},
		{"/v1/payments/cross-border-credit-transfers/p1", "/v1/payments/cross-border-credit-transfers/{id}"},
		{"/v1/payments/instant-norwegian-domestic-credit-transfers-straks/p1/authorisations/a1", "/v1/payments/instant-norwegian-domestic-credit-transfers-straks/{id}/authorisations/{id}"},
		{"/v1/payments/SECRET/p1/status", "/v1/payments/{product}/{id}/status"},
		{"/v1/periodic-payments/sepa-credit-transfers", "/v1/periodic-payments/sepa-credit-transfers"},
		{"/v1/bulk-payments/x", "/v1/bulk-payments/{product}"},
		{"/v1/signing-baskets", "/v1/signing-baskets"},
		{"/v1/signing-baskets/b1/status", "/v1/signing-baskets/{id}/status"},
		{"/v1/signing-baskets/b1/authorisations", "/v1/signing-baskets/{id}/authorisations"},
		{"/v1/agreements", "/v1/agreements"},
		{"/v1/user", "/v1/user"},
		{"/v1/bank-offered-consents", "/v1/bank-offered-consents"},
		{"/v1/consents/c1", "/v1/consents/{id}"},
		{"/v1/sandbox/customers", "/v1/sandbox/customers"},
		{"/v1/sandbox/customers/12345678901", "/v1/sandbox/customers/{id}"},
		{"/v1/sandbox/accounts/m1/transactions", "/v1/sandbox/accounts/{id}/transactions"},
		{"/v1/sandbox/card-accounts/m1/transactions", "/v1/sandbox/card-accounts/{id}/transactions"},
		{"/v1/sandbox/agreements", "/v1/sandbox/agreements"},
		{"/v1/sandbox/initialize", "/v1/sandbox/initialize"},
		{"/v1/tpps/PSDNO-FSA-987654321/contact-information", "/v1/tpps/{id}/contact-information"},
		{"/v1/accounts/a1?withBalance=SECRET", "/v1/accounts/{id}"},
		{"/v1/accounts#SECRET", "/v1/accounts"},
		{"/v1/unknown/SECRET", "/v1/{id}/{id}"},
		{"/v1/accounts/a1/", "/v1/accounts/{id}/"},
		{"/v1//SECRET", "/v1//{id}"},
		{"/SECRET/x", "/{id}/{id}"},
		{"/api/SECRET", "/{id}/{id}"},
		{"/v1/accounts/v2", "/v1/accounts/{id}"},
		{"", "/"},
		{"/", "/"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := pathTemplate(tt.in)
			assert.Equal(t, tt.want, got)
			assert.NotContains(t, got, "SECRET")
			// A template of a template is the same template (so that
			// redacting twice is harmless).
			u, err := url.Parse(got)
			require.NoError(t, err)
			assert.Equal(t, got, pathTemplate(u.EscapedPath()))
		})
	}
}

func TestRedactURLError(t *testing.T) {
	t.Parallel()
	const full = "https://psd2.bank.example/api/v1/accounts/enc!!SECRET=/transactions?dateFrom=SECRETQ#SECRETF"
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	certErr := &tls.CertificateVerificationError{Err: errors.New("x509: certificate signed by unknown authority")}
	tests := []struct {
		name  string
		cause error
		check func(t *testing.T, err error)
	}{
		{"dial", opErr, func(t *testing.T, err error) {
			var op *net.OpError
			require.ErrorAs(t, err, &op)
			assert.Same(t, opErr, op)
			assert.ErrorIs(t, err, syscall.ECONNREFUSED)
		}},
		{"deadline", context.DeadlineExceeded, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			var ne net.Error
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Timeout())
			assert.NotContains(t, ne.Error(), "SECRET")
		}},
		{"canceled", context.Canceled, func(t *testing.T, err error) { assert.ErrorIs(t, err, context.Canceled) }},
		{"tls", certErr, func(t *testing.T, err error) {
			var ce *tls.CertificateVerificationError
			require.ErrorAs(t, err, &ce)
			assert.Same(t, certErr, ce)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ue := &url.Error{Op: "Get", URL: full, Err: tt.cause}
			wrapped := fmt.Errorf("accounts.Transactions: %w", ue)
			for name, in := range map[string]error{"direct": ue, "wrapped": wrapped, "twice": redactURLError(ue)} {
				err := redactURLError(in)
				msg := err.Error()
				assert.NotContains(t, msg, "SECRET", name)
				assert.NotContains(t, msg, "psd2.bank.example", name)
				assert.Contains(t, msg, `Get "/v1/accounts/{id}/transactions": `+tt.cause.Error(), name)
				var got *url.Error
				require.ErrorAs(t, err, &got, name)
				assert.Equal(t, "/v1/accounts/{id}/transactions", got.URL, name)
				assert.Equal(t, "Get", got.Op, name)
				tt.check(t, err)
				assert.Equal(t, msg, redactURLError(err).Error(), "idempotent")
			}
			assert.True(t, strings.HasPrefix(redactURLError(wrapped).Error(), "accounts.Transactions: "), "the wrapper's text is kept")
		})
	}

	t.Run("unparseable URL", func(t *testing.T) {
		t.Parallel()
		err := redactURLError(&url.Error{Op: "parse", URL: "%zzSECRET", Err: errors.New("invalid URL escape")})
		assert.Equal(t, `parse "[redacted]": invalid URL escape`, err.Error())
	})
	t.Run("not a url.Error", func(t *testing.T) {
		t.Parallel()
		plain := errors.New("plain")
		assert.Same(t, plain, redactURLError(plain))
		assert.NoError(t, redactURLError(nil))
	})
}

// TestRedactURLErrorFromTransport: the error net/http really returns.
func TestRedactURLErrorFromTransport(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/api/v1/payments/sepa-credit-transfers/SECRET/authorisations?x=SECRET", nil)
	require.NoError(t, err)
	_, err = (&http.Client{Transport: &http.Transport{}}).Do(req)
	require.Error(t, err)
	require.Contains(t, err.Error(), "SECRET", "net/http writes the URL into its error")
	red := redactURLError(err)
	assert.NotContains(t, red.Error(), "SECRET")
	assert.Contains(t, red.Error(), `Post "/v1/payments/sepa-credit-transfers/{id}/authorisations"`)
	var op *net.OpError
	require.ErrorAs(t, red, &op)
	assert.Equal(t, "dial", op.Op)
}

func TestRedactURI(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://tpp.example/cb", "https://tpp.example/cb"},
		{"https://tpp.example/cb?state=SECRET", "https://tpp.example/cb?[redacted]"},
		{"https://tpp.example/cb?", "https://tpp.example/cb?[redacted]"},
		{"https://tpp.example/cb#SECRET", "https://tpp.example/cb#[redacted]"},
		{"https://user:SECRET@tpp.example:8443/cb?a=1#f", "https://[redacted]@tpp.example:8443/cb?[redacted]#[redacted]"},
		{"/relative?state=SECRET", "[redacted]"},
		{"mailto:SECRET@example.com", "[redacted]"},
		{"%zzSECRET", "[redacted]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, redactURI(tt.in), tt.in)
	}
}

// TestPSUPrintsRedacted plants a distinct marker in every PSU field and
// looks for it in every printed form of the PSU.
func TestPSUPrintsRedacted(t *testing.T) {
	t.Parallel()
	p := PSU{ID: "MARK-ID", CorporateID: "MARK-CORP", IPAddress: "MARK-IP", IPPort: "MARK-PORT",
		UserAgent: "MARK-UA", Accept: "MARK-ACCEPT", AcceptCharset: "MARK-CHARSET", AcceptEncoding: "MARK-ENCODING",
		AcceptLanguage: "MARK-LANGUAGE", GeoLocation: "MARK-GEO", HTTPMethod: "MARK-METHOD", DeviceID: "MARK-DEVICE"}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("m", "psu", p, "ptr", &p)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "psu", p, "ptr", &p)
	b, err := json.Marshal(struct {
		P  PSU
		PP *PSU
	}{p, &p})
	require.NoError(t, err)
	forms := map[string]string{
		"text": text.String(), "json handler": js.String(), "json.Marshal": string(b),
		"v": fmt.Sprintf("%v", p), "+v": fmt.Sprintf("%+v", p), "#v": fmt.Sprintf("%#v", p), "s": p.String(),
		"ptr": fmt.Sprintf("%v %+v %#v", &p, &p, &p), "nested": fmt.Sprintf("%v %+v %#v", []PSU{p}, struct{ P PSU }{p}, []PSU{p}),
	}
	for name, out := range forms {
		assert.NotContains(t, out, "MARK", name)
		assert.Contains(t, out, redactedValue, name)
	}

	// What stays: which fields are set, and a valid HTTP method.
	q := PSU{ID: "x", IPAddress: "y", HTTPMethod: "GET"}
	assert.Equal(t, "client.PSU{ID:[redacted] IPAddress:[redacted] HTTPMethod:GET}", q.String())
	assert.Equal(t, q.String(), q.GoString())
	out, err := json.Marshal(q)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ID":"[redacted]","IPAddress":"[redacted]","HTTPMethod":"GET"}`, string(out))
	assert.Equal(t, "client.PSU{}", PSU{}.String())
	out, err = json.Marshal(PSU{})
	require.NoError(t, err)
	assert.Equal(t, "{}", string(out))
}

// TestPSUErrorsNameNoValue: a refused PSU value is named by its field,
// never printed.
func TestPSUErrorsNameNoValue(t *testing.T) {
	t.Parallel()
	for _, p := range []PSU{
		{ID: "MARK-ID"}, {DeviceID: "MARK-DEVICE"},
		{IPAddress: "MARK-IP\n"}, {IPPort: "MARK-PORT\r"}, {CorporateID: "MARK-CORP\x00"},
		{UserAgent: "MARK-UA\n"}, {GeoLocation: "MARK-GEO\n"},
	} {
		_, err := headersOf(WithPSU(p))
		require.Error(t, err, p.String())
		assert.NotContains(t, err.Error(), "MARK")
	}
	for _, o := range []RequestOption{WithPSUIdentity("MARK-NATIONAL\n"), WithTPPSessionID("MARK-SESSION\n"),
		WithRedirectURI("https://tpp.example/cb?state=MARK\n"), WithRedirectURI("ftp://tpp.example/cb?state=MARK"),
		WithHeader("X-Custom", "MARK\n")} {
		_, err := headersOf(o)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "MARK")
	}
}

func BenchmarkPathTemplate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = pathTemplate("/api/v1/payments/sepa-credit-transfers/enc!!gaIRabcdefghijklmnop=/status")
	}
}

func BenchmarkHeaderAttr(b *testing.B) {
	h := http.Header{}
	for _, k := range []string{"Date", "Digest", "X-Request-ID", "PSU-ID", "TPP-Session-ID", "Signature", "Content-Type"} {
		h.Set(k, "value")
	}
	h.Set("TPP-Redirect-URI", "https://tpp.example/cb?state=abc")
	b.ReportAllocs()
	for b.Loop() {
		_ = headerAttr("request_header", h)
	}
}

// splitPathTemplate is pathTemplate as first written, with strings.Split
// and a strings.Builder: the reference FuzzPathTemplate holds the
// allocation-free one to.
func splitPathTemplate(escapedPath string) string {
	if i := strings.IndexAny(escapedPath, "?#"); i >= 0 {
		escapedPath = escapedPath[:i]
	}
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, s := range segs {
		if isVersion(s) {
			segs = segs[i:]
			break
		}
	}
	var b strings.Builder
	b.Grow(len(escapedPath))
	next := "" // placeholder of the next segment; "" means a literal is expected
	for _, s := range segs {
		b.WriteByte('/')
		switch {
		case s == "":
			// An empty segment (a trailing or doubled slash) says nothing.
		case next == placeholderProduct:
			if paymentProducts[s] {
				b.WriteString(s)
			} else {
				b.WriteString(placeholderProduct)
			}
			next = placeholderID
			continue
		case next == placeholderID:
			b.WriteString(placeholderID)
		default:
			if follow, ok := pathWords[s]; ok || isVersion(s) {
				b.WriteString(s)
				next = follow
				continue
			}
			b.WriteString(placeholderID)
		}
		next = ""
	}
	return b.String()
}

// FuzzPathTemplate: pathTemplate and routeTemplate give the reference's
// template for any path.
func FuzzPathTemplate(f *testing.F) {
	for _, p := range []string{"", "/", "//", "/v1/accounts/a1/balances", "/api/v1/payments/sepa-credit-transfers/x/status",
		"/v1/payments/nope/x", "/api/SECRET", "/v1//SECRET/", "v1/consents/c?x#y", "/a/b/v22/tpps/t/contact-information"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		want := splitPathTemplate(p)
		if got := pathTemplate(p); got != want {
			t.Fatalf("pathTemplate(%q) = %q, want %q", p, got, want)
		}
		if got := routeTemplate(p); got != want {
			t.Fatalf("routeTemplate(%q) = %q, want %q", p, got, want)
		}
	})
}

// TestRouteTemplateInterned: the template of a route seen before is the
// string made then, and routeTemplate allocates nothing for it.
func TestRouteTemplateInterned(t *testing.T) {
	a, b := routeTemplate("/v1/accounts/a1/balances"), routeTemplate("/v1/accounts/b2/balances")
	assert.Equal(t, "/v1/accounts/{id}/balances", a)
	assert.Equal(t, unsafe.StringData(a), unsafe.StringData(b), "one string for one route")
	allocs := testing.AllocsPerRun(100, func() { _ = routeTemplate("/v1/accounts/c3/balances") })
	assert.Zero(t, allocs)
}

// TestInternedStringsBounded: past internLimit strings are made afresh,
// equal to what they would be, and none is held.
func TestInternedStringsBounded(t *testing.T) {
	var in internedStrings
	for i := range internLimit + 10 {
		s := fmt.Sprintf("/v1/r%d", i)
		assert.Equal(t, s, in.get([]byte(s)))
	}
	assert.Len(t, *in.m.Load(), internLimit)
	s := in.get([]byte("/v1/r5"))
	assert.Equal(t, unsafe.StringData(s), unsafe.StringData(in.get([]byte("/v1/r5"))), "a held one is still shared")
}
