package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// captured is a request as the SDK sends it, before a fault is applied.
type captured struct {
	method, path string
	header       http.Header
	body         []byte
}

// raw renders c as the file verify reads.
func (c captured) raw() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\nHost: psd2.bank.example\n", c.method, c.path)
	_ = c.header.Write(&b)
	fmt.Fprintf(&b, "\n%s", c.body)
	return b.Bytes()
}

// faultCase is one captured request with one fault and the code verify
// must name for it, alone.
type faultCase struct {
	name string
	want string // "" for the clean request
	cert bool   // verify with -cert (the signer's own certificate file)
	make func(t *testing.T, creds *signing.Credentials, other *signing.Credentials) captured
}

// signed builds a captured request signed with keyID and opts, after mod
// has changed the request before signing.
func signed(t *testing.T, creds *signing.Credentials, keyID string, date time.Time, body string, mod func(h http.Header), opts ...signing.Option) captured {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example/api/v1/payments/norwegian-domestic-credit-transfers", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	req.Header.Set("X-Request-ID", "3f1b8c1e-6a7d-4f1e-9a57-0c5b2d9e8f10")
	req.Header.Set("Digest", signing.Digest([]byte(body)))
	req.Header.Set("PSU-ID", "8a7b6c5d-1111-4222-8333-944455556666")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example/cb")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(creds.Certificate.Raw))
	if mod != nil {
		mod(req.Header)
	}
	s, err := signing.NewSigner(creds.Key, keyID, opts...)
	require.NoError(t, err)
	require.NoError(t, s.Sign(req))
	return captured{http.MethodPost, "/api/v1/payments/norwegian-domestic-credit-transfers", req.Header, []byte(body)}
}

const faultBody = `{"instructedAmount":{"currency":"NOK","amount":"10.00"}}`

func faultCases() []faultCase {
	now := time.Now()
	sdk := func(c *signing.Credentials) string { return signing.KeyID(c.Certificate) }
	return []faultCase{
		{name: "clean", want: "", make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil)
		}},
		{name: "keyId in OpenSSL's form", want: codeKeyIDForm, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, signing.KeyIDOpenSSL(c.Certificate), now, faultBody, nil)
		}},
		{name: "keyId with OID.2.5.4.97", want: codeKeyIDForm, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			oid := renderings(c.Certificate)[2]
			require.Equal(t, "oid", oid.Name)
			return signed(t, c, oid.KeyID, now, faultBody, nil)
		}},
		{name: "keyId serial in lower case", want: codeKeyIDSerial, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, "SN="+strings.ToLower(c.Certificate.SerialNumber.Text(16))+",CA="+signing.IssuerDN(c.Certificate), now, faultBody, nil)
		}},
		{name: "keyId of another certificate", want: codeKeyIDCert, make: func(t *testing.T, c, o *signing.Credentials) captured {
			return signed(t, c, sdk(o), now, faultBody, nil)
		}},
		{name: "stale Date", want: codeDateSkew, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now.Add(-5*time.Minute), faultBody, nil)
		}},
		{name: "Date in the future", want: codeDateSkew, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now.Add(3*time.Minute), faultBody, nil)
		}},
		{name: "body changed after signing", want: codeDigestMismatch, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			r := signed(t, c, sdk(c), now, faultBody, nil)
			r.body = []byte(strings.Replace(faultBody, "10.00", "1000.00", 1))
			return r
		}},
		{name: "headers out of order", want: codeHeaderOrder, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil, signing.WithHeaders("digest", "date", "x-request-id", "psu-id", "tpp-redirect-uri"))
		}},
		{name: "X-Request-ID not signed", want: codeHeaderUnsigned, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil, signing.WithHeaders("date", "digest", "psu-id", "tpp-redirect-uri"))
		}},
		{name: "signed PSU-ID removed from the request", want: codeHeaderMissing, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			r := signed(t, c, sdk(c), now, faultBody, nil)
			r.header.Del("PSU-ID")
			return r
		}},
		{name: "no Date header", want: codeDateMissing, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, func(h http.Header) { h.Del("Date") })
		}},
		{name: "no Digest with a body", want: codeDigestMissing, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, func(h http.Header) { h.Del("Digest") })
		}},
		{name: "signed header changed after signing", want: codeSignatureInvalid, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			r := signed(t, c, sdk(c), now, faultBody, nil)
			r.header.Set("TPP-Redirect-URI", "https://evil.example/cb")
			return r
		}},
		{name: "no Signature", want: codeSignatureMissing, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			r := signed(t, c, sdk(c), now, faultBody, nil)
			r.header.Del("Signature")
			return r
		}},
		{name: "clean, with -cert", cert: true, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil)
		}},
		{name: "TPP-Signature-Certificate of another certificate than -cert", want: codeCertMismatch, cert: true, make: func(t *testing.T, c, o *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, func(h http.Header) {
				h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(o.Certificate.Raw))
			})
		}},
		{name: "TPP-Signature-Certificate and keyId of another certificate than -cert", want: codeCertMismatch, cert: true, make: func(t *testing.T, c, o *signing.Credentials) captured {
			return signed(t, o, sdk(o), now, faultBody, func(h http.Header) {
				h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(o.Certificate.Raw))
			})
		}},
		{name: "no TPP-Signature-Certificate, with -cert", want: codeCertificate, cert: true, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, func(h http.Header) { h.Del("TPP-Signature-Certificate") })
		}},
		{name: "keyId of another certificate, with -cert", want: codeKeyIDCert, cert: true, make: func(t *testing.T, c, o *signing.Credentials) captured {
			return signed(t, c, sdk(o), now, faultBody, nil)
		}},
		{name: "(request-target) in the header list", want: codeHeaderNotUsed, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil, signing.WithHeaders("(request-target)", "date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri"))
		}},
		{name: "content-type in the header list", want: codeHeaderNotUsed, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil, signing.WithHeaders("date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "content-type"))
		}},
		{name: "host in the header list", want: codeHeaderNotUsed, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			return signed(t, c, sdk(c), now, faultBody, nil, signing.WithHeaders("date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "host"))
		}},
		{name: "algorithm hmac-sha256", want: codeAlgorithm, make: func(t *testing.T, c, _ *signing.Credentials) captured {
			r := signed(t, c, sdk(c), now, faultBody, nil)
			p, err := signing.ParseSignature(r.header.Get("Signature"))
			require.NoError(t, err)
			v := fmt.Sprintf(`keyId="%s",algorithm="hmac-sha256",headers="%s",signature="%s"`,
				signing.QuoteParam(p.KeyID), strings.Join(p.Headers, " "), base64.StdEncoding.EncodeToString(p.Signature))
			r.header.Set("Signature", signing.EncodeWord(v))
			return r
		}},
	}
}

// TestVerifyNamesEachFault runs verify on captured requests with one
// fault each and checks it names that fault and nothing else; it logs the
// figure (faults named correctly / faults).
func TestVerifyNamesEachFault(t *testing.T) {
	t.Parallel()
	_, creds, certFile, _, _ := tppFiles(t)
	_, other, _, _, _ := tppFiles(t)
	dir := t.TempDir()
	named, faults := 0, 0
	for i, fc := range faultCases() {
		f := filepath.Join(dir, fmt.Sprintf("%02d.http", i))
		require.NoError(t, os.WriteFile(f, fc.make(t, creds, other).raw(), 0o600))
		args := []string{"verify", "--json"}
		if fc.cert {
			args = append(args, "-cert", certFile)
		}
		out, errOut, code := psd2(t, append(args, f)...)
		var rep verifyReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep), errOut)
		var codes []string
		for _, x := range rep.Findings {
			codes = append(codes, x.Code)
		}
		if fc.want == "" {
			assert.Equal(t, exitOK, code, "%s: %v", fc.name, codes)
			assert.Empty(t, codes, fc.name)
			continue
		}
		faults++
		assert.Equal(t, exitFailed, code, fc.name)
		if assert.Equal(t, []string{fc.want}, codes, fc.name) {
			named++
		}
		assert.True(t, slices.ContainsFunc(rep.Findings, func(x finding) bool { return x.Message != "" }))
	}
	require.GreaterOrEqual(t, faults, 10)
	t.Logf("verify named %d of %d faults exactly", named, faults)
}
