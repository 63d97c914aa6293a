package signing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// TestFormsEveryVerb: Credentials, a Signer and SignatureParams print one
// text under every fmt verb (%q quoted, %#v too), log the facts it shows,
// and no verb, handler or JSON form shows key material or the signature
// bytes (before they had a Format, %d printed the signature as decimal
// bytes).
func TestFormsEveryVerb(t *testing.T) {
	t.Parallel()
	sig := []byte("MARK-SIGNATURE-BYTES-0123456789")
	p := SignatureParams{KeyID: "SN=1A,CA=CN=Test", Algorithm: Algorithm, Headers: []string{"date", "digest"}, Signature: sig}
	const pText = `signing.SignatureParams{keyId="SN=1A,CA=CN=Test" algorithm="rsa-sha256" headers="date digest" signature=[redacted]}`
	redacttest.AssertVerbs(t, p, pText, pText)
	sigMarks := append(redacttest.WithHex(string(sig)), strings.Trim(fmt.Sprint(sig[:8]), "[]"))
	forms := redacttest.AssertRedacted(t, p, sigMarks)
	redacttest.AssertRedacted(t, &p, sigMarks)
	assert.Contains(t, forms["slog text"], `v.keyId="SN=1A,CA=CN=Test" v.algorithm=rsa-sha256 v.headers="date digest" v.signature=[redacted]`)

	s, err := NewSigner(testKey(0), "SN=1A,CA=CN=Test")
	require.NoError(t, err)
	const sText = `signing.Signer{keyId="SN=1A,CA=CN=Test" key=[redacted]}`
	redacttest.AssertVerbs(t, s, sText, sText)
	forms = redacttest.AssertRedacted(t, s, keyMarkers(t))
	assert.Contains(t, forms["slog JSON"], `"v":{"keyId":"SN=1A,CA=CN=Test","key":"[redacted]"}`)
	redacttest.AssertVerbs(t, (*Signer)(nil), "signing.Signer(nil)", "signing.Signer(nil)")

	creds, err := LoadPEM(certPEM(validCert(t, 0)), pkcs1PEM(testKey(0)))
	require.NoError(t, err)
	redacttest.AssertVerbs(t, creds, creds.String(), creds.String())
	redacttest.AssertVerbs(t, *creds, creds.String(), creds.String())
	redacttest.AssertRedacted(t, creds, keyMarkers(t))
	redacttest.AssertRedacted(t, *creds, keyMarkers(t))
}
