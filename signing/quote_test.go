package signing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyIDWithQuotesRoundTrip: an issuer with a double quote and
// backslashes (escapes.pem: O=Smith, Jones + Co "Ltd", OU=a\b<c>d;e=f) signs,
// and ParseSignature gives the keyId back unchanged.
func TestKeyIDWithQuotesRoundTrip(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	cert := readCert(t, "testdata/issuers/escapes.pem")
	for keyID, names := range map[string]bool{
		KeyID(cert): true, KeyIDOpenSSL(cert): true,
		`SN=1,CA=CN=a\"b\\`: false, `"`: false, `\`: false, `a\`: false,
	} {
		t.Run(keyID, func(t *testing.T) {
			t.Parallel()
			require.True(t, strings.Contains(keyID, `"`) || strings.Contains(keyID, `\`))
			s, err := NewSigner(k, keyID)
			require.NoError(t, err)
			assert.Equal(t, keyID, s.KeyID())
			req := signedRequest(t, "Date", "d", "X-Request-ID", "r")
			require.NoError(t, s.Sign(req))
			v := req.Header.Get("Signature")
			assert.True(t, strings.HasPrefix(v, `keyId="`+QuoteParam(keyID)+`",algorithm="rsa-sha256",`), v)
			p, err := ParseSignature(v)
			require.NoError(t, err)
			assert.Equal(t, keyID, p.KeyID)
			assert.Equal(t, []string{"date", "x-request-id"}, p.Headers)
			require.NoError(t, Verify(req, &k.PublicKey))
			assert.Equal(t, names, MatchKeyID(p.KeyID, cert))
		})
	}
}

// TestKeyIDWithControlCharacters: a keyId with a tab or a line break is
// sent as an encoded word, so the header stays one line of ASCII.
func TestKeyIDWithControlCharacters(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	for _, keyID := range []string{"SN=2,CA=CN=trailing\\#,O=Tab\there,C=NO", "SN=1,CA=CN=a\r\nb", "SN=1,CA=CN=\x7f"} {
		s, err := NewSigner(k, keyID)
		require.NoError(t, err)
		req := signedRequest(t, "Date", "d")
		require.NoError(t, s.Sign(req))
		v := req.Header.Get("Signature")
		assert.True(t, strings.HasPrefix(v, "=?utf-8?B?"), v)
		assert.True(t, plainASCII(v), v)
		p, err := ParseSignature(v)
		require.NoError(t, err)
		assert.Equal(t, keyID, p.KeyID)
		require.NoError(t, Verify(req, &k.PublicKey))
	}
}

func TestQuoteParam(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                     "",
		"SN=1,CA=CN=x":         "SN=1,CA=CN=x",
		`O=Smith\, Jones`:      `O=Smith\\, Jones`,
		`Co \"Ltd\"`:           `Co \\\"Ltd\\\"`,
		`"`:                    `\"`,
		`\`:                    `\\`,
		"ø and \"quoted\" ø\\": "ø and \\\"quoted\\\" ø\\\\",
	} {
		assert.Equal(t, want, QuoteParam(in))
		got, n, ok := unquoteParam(`"` + want + `",rest`)
		require.True(t, ok, want)
		assert.Equal(t, in, got)
		assert.Equal(t, len(want)+2, n)
	}
	tests := []struct {
		in, val string
		ok      bool
	}{
		{`"CN=Smith\, Jones"`, `CN=Smith\, Jones`, true}, // a peer's unescaped RFC 2253 name
		{`"a\b"`, `a\b`, true},
		{`"a\"`, "", false},
		{`"a`, "", false},
		{`"a\\"`, `a\`, true},
		{`"a\\\"b"`, `a\"b`, true},
	}
	for _, tt := range tests {
		val, _, ok := unquoteParam(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.val, val, tt.in)
	}
}
