package client

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadHeaderNotSent: a header name or value net/http would refuse fails
// the option, so a payment POST carrying it ends in a *NotSentError (with a
// *ValidationError inside) and not in ErrOutcomeUnknown, and the bank sees
// nothing. Before the check, net/http refused such a request without
// asking for a connection, and the client counted it as possibly sent.
func TestBadHeaderNotSent(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"paymentId":"p1","transactionStatus":"RCVD"}`)
	})
	c := newTestClient(t, b.URL)
	op := Operation{Name: "test.Create", Method: "POST", Path: "/v1/payments/sepa-credit-transfers",
		Body: map[string]string{"a": "b"}, ResultID: "paymentId"}
	bad := map[string]RequestOption{
		"value with 0x01":          WithHeader("X-Foo", "a\x01b"),
		"value with DEL":           WithHeader("X-Foo", "a\x7fb"),
		"value with ESC":           WithHeader("X-Foo", "\x1b[31m"),
		"value with line feed":     WithHeader("X-Foo", "a\nb"),
		"value with NUL":           WithHeader("X-Foo", "a\x00b"),
		"name with a space":        WithHeader("Bad Name", "v"),
		"name with a colon":        WithHeader("X-Foo:", "v"),
		"name with 0x01":           WithHeader("X-\x01", "v"),
		"empty name":               WithHeader("", "v"),
		"PSU user agent with VT":   WithPSU(PSU{UserAgent: "ua\x0bx"}),
		"PSU geo location with CR": WithPSU(PSU{GeoLocation: "1\r2"}),
		"session id with ESC":      WithTPPSessionID("s\x1bid"),
		"brand with DEL":           WithBrandLoggingInformation("brand\x7f"),
		"identity with 0x1f":       WithPSUIdentity("0101\x1f"),
		"auth method with 0x02":    WithAuthMethodPreferred("HA2\x02"),
		"redirect with 0x01":       WithRedirectURI("https://tpp.example/cb?x=\x01"),
		"accept fix with 0x01":     WithCallAcceptFix("a\x01"),
		"request id with 0x7f":     WithRequestID("id\x7f"),
	}
	for name, o := range bad {
		_, err := c.Do(t.Context(), op, nil, o)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrNotSent, name)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, name)
		if name != "accept fix with 0x01" && name != "request id with 0x7f" && name != "redirect with 0x01" {
			var ve *ValidationError
			assert.True(t, errors.As(err, &ve), "%s: %v", name, err)
			assert.ErrorIs(t, err, ErrValidation, name)
		}
	}
	assert.Empty(t, b.requests(), "nothing reaches the bank")

	// Tab and bytes from 0x80 are valid in a value (HTTP's obs-text), and
	// reach the bank as given.
	_, err := c.Do(t.Context(), op, nil, WithHeader("X-Foo", "a\tb"), WithPSU(PSU{UserAgent: "ua ø"}))
	require.NoError(t, err)
	require.Len(t, b.requests(), 1)
	assert.Equal(t, "a\tb", b.requests()[0].Header.Get("X-Foo"))
	assert.Equal(t, "ua ø", b.requests()[0].Header.Get("PSU-User-Agent"))
}

// TestBadHeaderDefaultsAndClientOptions: the same rule applies to defaults
// (New fails) and to the client-wide User-Agent and x-accept-fix.
func TestBadHeaderDefaultsAndClientOptions(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]Option{
		"default header":     WithDefaults(WithHeader("X-Foo", "a\x01b")),
		"default bad name":   WithDefaults(WithHeader("X Foo", "v")),
		"default PSU":        WithDefaults(WithPSU(PSU{AcceptLanguage: "da\x7f"})),
		"user agent":         WithUserAgent("tpp\x01"),
		"user agent DEL":     WithUserAgent("tpp\x7f"),
		"accept fix control": WithAcceptFix("x\x1b"),
	} {
		_, err := New("https://bank.example", testCreds(t, 0), o)
		assert.Error(t, err, name)
	}
}

// TestCheckHeaderKeepsValueSecret: the error names the header, never its
// value, which may be personal data.
func TestCheckHeaderKeepsValueSecret(t *testing.T) {
	t.Parallel()
	_, err := headersOf(WithTPPSessionID("secret-session\x01"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TPP-Session-ID")
	assert.NotContains(t, err.Error(), "secret-session")
}

// TestWithHeaderTypedRules: WithHeader, in any spelling of the name, is
// held to the rule of the typed option that sets the same header; before,
// WithHeader("PSU-ID", "not-a-uuid") and an http TPP-Redirect-URI went
// out. Valid values still go out as given.
func TestWithHeaderTypedRules(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	op := Operation{Method: "GET", Path: "/v1/accounts"}
	const uuid = "3f0a8c1e-7d0b-4c41-9a4e-2b7f0c3d4e5f"
	bad := map[string]RequestOption{
		"PSU-ID not a UUID":             WithHeader("PSU-ID", "not-a-uuid"),
		"psu-id lower case":             WithHeader("psu-id", "not-a-uuid"),
		"PSU-Device-ID not a UUID":      WithHeader("Psu-Device-Id", "x"),
		"PSU-HTTP-Method TRACE":         WithHeader("PSU-HTTP-Method", "TRACE"),
		"http redirect":                 WithHeader("TPP-Redirect-URI", "http://evil.example/cb"),
		"relative redirect upper":       WithHeader("TPP-REDIRECT-URI", "/cb"),
		"PSU-Context BOGUS":             WithHeader("PSU-Context", "BOGUS"),
		"PSU-Context lower value":       WithHeader("psu-context", "private"),
		"TPP-Redirect-Preferred maybe":  WithHeader("TPP-Redirect-Preferred", "maybe"),
		"empty TPP-Session-ID":          WithHeader("TPP-Session-ID", ""),
		"X-Request-ID":                  WithHeader("x-request-id", uuid),
		"typed redirect http (control)": WithRedirectURI("http://evil.example/cb"),
		"typed empty PSU-Context":       WithPSUContext(""),
	}
	for name, o := range bad {
		_, err := c.Do(t.Context(), op, nil, o)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrNotSent, name)
	}
	_, err := c.Do(t.Context(), op, nil, WithHeader("x-request-id", uuid))
	assert.ErrorContains(t, err, "WithRequestID")
	assert.Empty(t, b.requests(), "nothing reaches the bank")

	_, err = c.Do(t.Context(), op, nil,
		WithHeader("psu-id", uuid), WithHeader("PSU-Context", "CORPORATE"),
		WithHeader("TPP-Redirect-URI", "https://tpp.example/other"), WithHeader("TPP-Redirect-Preferred", "false"),
		WithHeader("PSU-HTTP-Method", "POST"))
	require.NoError(t, err)
	require.Len(t, b.requests(), 1)
	h := b.requests()[0].Header
	assert.Equal(t, uuid, h.Get("PSU-ID"))
	assert.Equal(t, "CORPORATE", h.Get("PSU-Context"))
	assert.Equal(t, "https://tpp.example/other", h.Get("TPP-Redirect-URI"))
	assert.Equal(t, "false", h.Get("TPP-Redirect-Preferred"))
	assert.Equal(t, "POST", h.Get("PSU-HTTP-Method"))
}
