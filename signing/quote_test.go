package signing

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyIDWithQuotesRoundTrip: an issuer with a double quote and
// backslashes (escapes.pem: O=Smith, Jones + Co "Ltd", OU=a\b<c>d;e=f)
// signs; the characters between the keyId's quotes are the RFC 2253 text
// (docs/interface.md section 5.4), its escapes unchanged but \" written
// \22, which a reader that takes everything up to the next quote (as a
// regular expression like keyId="([^"]*)" does) reads whole, and which
// still names the certificate.
func TestKeyIDWithQuotesRoundTrip(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	cert := readCert(t, "testdata/issuers/escapes.pem")
	keyIDPart := regexp.MustCompile(`keyId="([^"]*)"`)
	for keyID, names := range map[string]bool{
		KeyID(cert): true, KeyIDOpenSSL(cert): true, `SN=1,CA=CN=a\"b\\`: false,
	} {
		t.Run(keyID, func(t *testing.T) {
			t.Parallel()
			s, err := NewSigner(k, keyID)
			require.NoError(t, err)
			assert.Equal(t, keyID, s.KeyID())
			req := signedRequest(t, "Date", "d", "X-Request-ID", "r")
			require.NoError(t, s.Sign(req))
			v := req.Header.Get("Signature")
			written := strings.ReplaceAll(keyID, `\"`, `\22`)
			assert.True(t, strings.HasPrefix(v, `keyId="`+written+`",algorithm="rsa-sha256",`), v)
			assert.Equal(t, written, keyIDPart.FindStringSubmatch(v)[1])
			p, err := ParseSignature(v)
			require.NoError(t, err)
			assert.Equal(t, written, p.KeyID)
			assert.Equal(t, []string{"date", "x-request-id"}, p.Headers)
			require.NoError(t, Verify(req, &k.PublicKey))
			assert.Equal(t, names, MatchKeyID(p.KeyID, cert))
			assert.Equal(t, names, MatchKeyID(keyID, cert))
		})
	}
}

// TestKeyIDNotWritable: a keyId whose double quote is not RFC 2253's
// escape, or that ends in an unpaired backslash, cannot be written between
// quotes; NewSigner refuses it.
func TestKeyIDNotWritable(t *testing.T) {
	t.Parallel()
	for _, keyID := range []string{`"`, `\`, `a\`, `SN=1,CA=CN="x"`, `a\\"b`} {
		_, err := NewSigner(testKey(0), keyID)
		assert.ErrorIs(t, err, ErrInvalidOption, keyID)
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
		"":                "",
		"SN=1,CA=CN=x":    "SN=1,CA=CN=x",
		`O=Smith\, Jones`: `O=Smith\, Jones`,
		`Co \"Ltd\"`:      `Co \22Ltd\22`,
		`a\\b`:            `a\\b`,
		`a\\\"`:           `a\\\22`,
		`ø and \"q\" ø`:   `ø and \22q\22 ø`,
	} {
		assert.Equal(t, want, QuoteParam(in), in)
		got, n, ok := unquoteParam(`"` + want + `",rest`)
		require.True(t, ok, want)
		assert.Equal(t, want, got, "read as written")
		assert.Equal(t, len(want)+2, n)
	}
	tests := []struct {
		in, val string
		ok      bool
	}{
		{`"CN=Smith\, Jones"`, `CN=Smith\, Jones`, true},
		{`"a\b"`, `a\b`, true},
		{`"a\"`, "", false},
		{`"a`, "", false},
		{`"a\\"`, `a\\`, true},
		{`"a\\\"b"`, `a\\\"b`, true},
	}
	for _, tt := range tests {
		val, _, ok := unquoteParam(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.val, val, tt.in)
	}
}

// TestDecodeWord: DecodeWord reads a Signature value as ParseSignature
// does: EncodeWord's word, the charset spellings the parser takes (utf8,
// a language tag, ISO-8859-1 in Q encoding) decoded; a plain value as it
// is; a bad word refused.
func TestDecodeWord(t *testing.T) {
	t.Parallel()
	const v = `keyId="SN=1,CA=O=Bank Norge ø",headers="Date"`
	b64 := base64.StdEncoding.EncodeToString([]byte(v))
	for in, want := range map[string]string{
		EncodeWord(v):                                   v,
		" =?utf8?B?" + b64 + "?= ":                      v,
		"=?UTF-8*no?B?" + b64 + "?=":                    v,
		`=?iso-8859-1?Q?keyId=3D"CA=3DO=3DNorge_=F8"?=`: `keyId="CA=O=Norge ø"`,
		`keyId="SN=1,CA=CN=x",signature="AA=="`:         `keyId="SN=1,CA=CN=x",signature="AA=="`,
	} {
		got, err := DecodeWord(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := DecodeWord("=?utf-8?B?not base64?=")
	assert.ErrorIs(t, err, ErrMalformed)
}
