package signing

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// printedForms renders v in every way a program may print or log it:
// slog's text and JSON handlers, the fmt verbs, json.Marshal, alone and
// nested in a struct and a slice.
func printedForms(t *testing.T, v any) map[string]string {
	t.Helper()
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	nested, err := json.Marshal(struct{ V any }{v})
	require.NoError(t, err)
	return map[string]string{
		"slog text": text.String(), "slog json": js.String(), "json.Marshal": string(b), "json nested": string(nested),
		"v": fmt.Sprintf("%v", v), "+v": fmt.Sprintf("%+v", v), "#v": fmt.Sprintf("%#v", v), "s": fmt.Sprintf("%s", v),
		"nested": fmt.Sprintf("%v %+v %#v", []any{v}, struct{ V any }{v}, []any{v}),
	}
}

// keyMarkers are strings that only a printed private key would contain:
// its private exponent and primes in decimal, hex and base64, and its DER.
func keyMarkers(t *testing.T) []string {
	k := testKey(0)
	der := x509.MarshalPKCS1PrivateKey(k)
	var out []string
	for _, n := range append([]string{k.D.String(), k.D.Text(16)}, k.Primes[0].String(), k.Primes[1].String(),
		k.Precomputed.Dp.String(), base64.StdEncoding.EncodeToString(k.D.Bytes())) {
		out = append(out, n[:32]) // a prefix is enough to leak
	}
	return append(out, base64.StdEncoding.EncodeToString(der)[64:128])
}

func TestCredentialsPrintRedacted(t *testing.T) {
	t.Parallel()
	cert := validCert(t, 0)
	creds, err := LoadPEM(certPEM(cert), pkcs1PEM(testKey(0)))
	require.NoError(t, err)
	markers := keyMarkers(t)
	for name, v := range map[string]any{"pointer": creds, "value": *creds} {
		for form, out := range printedForms(t, v) {
			for _, m := range markers {
				assert.NotContains(t, out, m, "%s %s", name, form)
			}
			assert.Contains(t, out, redactedValue, "%s %s", name, form)
		}
	}
	serial := strings.ToUpper(cert.SerialNumber.Text(16))
	assert.Equal(t, "signing.Credentials{serial="+serial+" notBefore="+cert.NotBefore.UTC().Format("2006-01-02T15:04:05Z07:00")+
		" notAfter="+cert.NotAfter.UTC().Format("2006-01-02T15:04:05Z07:00")+" chain=0 key=[redacted]}", creds.String())
	b, err := json.Marshal(creds)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, serial, got["serial"])
	assert.Equal(t, redactedValue, got["key"])
	assert.EqualValues(t, 0, got["chain"])

	// Empty and nil credentials print without failing.
	assert.Equal(t, "signing.Credentials{chain=0}", Credentials{}.String())
	assert.Equal(t, "<nil>", fmt.Sprintf("%v", (*Credentials)(nil)))
	b, err = json.Marshal((*Credentials)(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))
}

func TestSignerPrintsRedacted(t *testing.T) {
	t.Parallel()
	s, err := NewSigner(testKey(0), `SN=1A,CA=CN=Test`)
	require.NoError(t, err)
	markers := keyMarkers(t)
	for form, out := range printedForms(t, s) {
		for _, m := range markers {
			assert.NotContains(t, out, m, form)
		}
		assert.Contains(t, out, "SN=1A", form)
	}
	assert.Equal(t, `signing.Signer{keyId="SN=1A,CA=CN=Test" key=[redacted]}`, s.String())
	assert.Equal(t, "signing.Signer(nil)", (*Signer)(nil).String())
}

func TestSignatureParamsPrintRedacted(t *testing.T) {
	t.Parallel()
	sig := []byte("MARK-SIGNATURE-BYTES-0123456789")
	p := SignatureParams{KeyID: "SN=1A,CA=CN=Test", Algorithm: Algorithm, Headers: []string{"date", "digest"}, Signature: sig}
	markers := []string{string(sig), base64.StdEncoding.EncodeToString(sig), fmt.Sprint(sig[:8])[1:20]}
	for name, v := range map[string]any{"pointer": &p, "value": p} {
		for form, out := range printedForms(t, v) {
			for _, m := range markers {
				assert.NotContains(t, out, m, "%s %s", name, form)
			}
			assert.Contains(t, out, "SN=1A", "%s %s", name, form)
		}
	}
	assert.Equal(t, `signing.SignatureParams{keyId="SN=1A,CA=CN=Test" algorithm="rsa-sha256" headers="date digest" signature=[redacted]}`, p.String())
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"keyId":"SN=1A,CA=CN=Test","algorithm":"rsa-sha256","headers":["date","digest"],"signature":"[redacted]"}`, string(b))
}

// TestCredentialErrorsCarryNoKey: no error of loading or checking
// credentials prints key material.
func TestCredentialErrorsCarryNoKey(t *testing.T) {
	t.Parallel()
	cert := validCert(t, 0)
	other := validCert(t, 1)
	key := pkcs1PEM(testKey(0))
	corrupt := bytes.Replace(key, []byte("\n"), []byte("\nAAAA"), 3)
	var errs []error
	for _, in := range [][2][]byte{{certPEM(other), key}, {certPEM(cert), corrupt}, {key, key}, {certPEM(cert), certPEM(cert)}} {
		_, err := LoadPEM(in[0], in[1])
		require.Error(t, err)
		errs = append(errs, err)
	}
	_, err := LoadPKCS12(key, "secret")
	require.Error(t, err)
	errs = append(errs, err)
	markers := append(keyMarkers(t), string(key[40:80]))
	for _, err := range errs {
		for _, m := range markers {
			assert.NotContains(t, fmt.Sprintf("%v %+v", err, err), m)
		}
	}
}
