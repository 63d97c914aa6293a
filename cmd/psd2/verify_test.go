package main

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math/big"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/signing"
)

// The corpus: captured requests, each with one fault or none, in
// testdata/verify (one file each, cases.json says what verify must name),
// made by the cases below. go test -run TestVerifyCorpus
// -write-verify-corpus writes them again, with new throwaway keys (no key
// is kept); the certificate verify takes with -cert is tpp-cert.pem.
var writeCorpus = flag.Bool("write-verify-corpus", false, "write testdata/verify again from the corpus cases")

// corpusDir holds the corpus.
const corpusDir = "testdata/verify"

// corpusNow is when the corpus was captured: verify judges its Dates
// against it (-now), so the corpus does not age.
var corpusNow = time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)

// corpusKeys are the certificates of a corpus: tpp and other, issued by one
// CA whose name has a non-ASCII letter and an organizationIdentifier, as a
// QTSP's does. tpp's serial has an odd number of hex digits, so that a
// padded serial differs from it. other has its own key.
type corpusKeys struct {
	tpp, other *signing.Credentials
}

var otherKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

func newCorpusKeys(t *testing.T) *corpusKeys {
	t.Helper()
	caKey := testtpp.Key(t)
	caName := pkix.Name{Country: []string{"NO"}, Organization: []string{"Prøve Tillit AS"}, CommonName: "Prøve QTSP CA",
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "NTRNO-987654321"}}}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: caName, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2034, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage: x509.KeyUsageCertSign}
	issue := func(serial int64, name string, key *rsa.PrivateKey) *signing.Credentials {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{Country: []string{"NO"}, Organization: []string{name}, CommonName: name},
			NotBefore: ca.NotBefore, NotAfter: ca.NotAfter, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return &signing.Credentials{Certificate: c, Key: key}
	}
	ok, err := otherKey()
	require.NoError(t, err)
	return &corpusKeys{tpp: issue(0x5A3C1, "Corpus TPP AS", testtpp.Key(t)), other: issue(0x7B2E, "Other TPP AS", ok)}
}

// capture is a request as it was captured.
type capture struct {
	method, target string
	header         http.Header
	body           []byte
	crlf           bool // CRLF line ends and a Content-Length
	chunked        bool // the body in chunks
}

// raw is the capture file: LF line ends unless crlf.
func (c capture) raw() []byte {
	var head bytes.Buffer
	if strings.HasPrefix(c.target, "https://") {
		fmt.Fprintf(&head, "%s %s\n", c.method, c.target) // no HTTP version
	} else {
		fmt.Fprintf(&head, "%s %s HTTP/1.1\nHost: psd2.bank.example\n", c.method, c.target)
	}
	h := c.header.Clone()
	switch {
	case c.crlf:
		h.Set("Content-Length", fmt.Sprint(len(c.body)))
	case c.chunked:
		h.Set("Transfer-Encoding", "chunked")
	}
	_ = h.Write(&head) // CRLF line ends
	out := bytes.ReplaceAll(head.Bytes(), []byte("\r\n"), []byte("\n"))
	out = append(out, '\n')
	if c.crlf {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	switch {
	case c.chunked:
		var b bytes.Buffer
		cw := httputil.NewChunkedWriter(&b)
		for p := range slices.Chunk(c.body, 7) {
			_, _ = cw.Write(p)
		}
		_ = cw.Close()
		b.WriteString("\r\n")
		out = append(out, b.Bytes()...)
	case len(c.body) > 0:
		out = append(append(out, c.body...), '\n')
	}
	return out
}

const (
	paymentPath = "/api/v1/payments/norwegian-domestic-credit-transfers"
	paymentBody = `{"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorName":"Kari Nordmann"}`
	basketBody  = `{"paymentIds":["enc!!abc"]}`
)

// req describes the request a corpus case signs.
type req struct {
	method, target, body string
	mod                  func(h http.Header) // before signing
	signer               *signing.Credentials
	keyID                string
	opts                 []signing.Option
}

// signed builds and signs r as the SDK would, with Date corpusNow plus
// dateOff, and returns it captured.
func (k *corpusKeys) signed(t *testing.T, r req) capture {
	t.Helper()
	if r.method == "" {
		r.method, r.target, r.body = http.MethodPost, paymentPath, paymentBody
	}
	if r.signer == nil {
		r.signer = k.tpp
	}
	if r.keyID == "" {
		r.keyID = signing.KeyID(k.tpp.Certificate)
	}
	hr, err := http.NewRequest(r.method, "https://psd2.bank.example"+strings.TrimPrefix(r.target, "https://psd2.bank.example"), strings.NewReader(r.body))
	require.NoError(t, err)
	h := hr.Header
	h.Set("Date", corpusNow.Format(http.TimeFormat))
	h.Set("X-Request-ID", "3f1b8c1e-6a7d-4f1e-9a57-0c5b2d9e8f10")
	if r.body != "" {
		h.Set("Digest", signing.Digest([]byte(r.body)))
		h.Set("Content-Type", "application/json")
	}
	h.Set("PSU-ID", "8a7b6c5d-1111-4222-8333-944455556666")
	h.Set("TPP-Redirect-URI", "https://tpp.example/cb")
	h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(k.tpp.Certificate.Raw))
	if r.mod != nil {
		r.mod(h)
	}
	s, err := signing.NewSigner(r.signer.Key, r.keyID, r.opts...)
	require.NoError(t, err)
	require.NoError(t, s.Sign(hr))
	return capture{method: r.method, target: r.target, header: h, body: []byte(r.body)}
}

// sigText is a capture's Signature value, unwrapped.
func sigText(t *testing.T, c capture) string {
	t.Helper()
	v := c.header.Get("Signature")
	w, err := parseEncodedWord(v)
	if err != nil {
		return v
	}
	return string(w.bytes)
}

// withParam replaces one key="value" parameter of a Signature text.
func withParam(t *testing.T, text, key, value string) string {
	t.Helper()
	old, ok := signatureParam(text, key)
	require.True(t, ok, key)
	return strings.Replace(text, key+`="`+old+`"`, key+`="`+value+`"`, 1)
}

// latin1Bytes encodes s (all of whose runes are below U+0100) as ISO-8859-1.
func latin1Bytes(t *testing.T, s string) []byte {
	t.Helper()
	out := make([]byte, 0, len(s))
	for _, r := range s {
		require.Less(t, r, rune(0x100))
		out = append(out, byte(r))
	}
	return out
}

// qEncode writes b in RFC 2047's Q encoding.
func qEncode(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c > 0x20 && c < 0x7f && c != '=' && c != '?' && c != '_' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, "=%02X", c)
		}
	}
	return s.String()
}

// corpusCase is one captured request of the corpus and what verify must
// name for it: "" for none, else exactly that one code.
type corpusCase struct {
	File  string `json:"file"`
	Want  string `json:"want"`
	Cert  bool   `json:"cert,omitempty"` // verify with -cert tpp-cert.pem
	About string `json:"about"`
	make  func(t *testing.T, k *corpusKeys) capture
}

func corpusCases() []corpusCase {
	sdk := func(k *corpusKeys) string { return signing.KeyID(k.tpp.Certificate) }
	sn := func(k *corpusKeys) string { return strings.ToUpper(k.tpp.Certificate.SerialNumber.Text(16)) }
	wrap := func(c capture, text string) capture { c.header.Set("Signature", text); return c }
	return []corpusCase{
		// No fault.
		{File: "clean-payment.http", About: "a payment as the SDK sends it (the value wrapped, its keyId has ø)", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{})
		}},
		{File: "clean-payment-own-order.http", About: "headers listed in another order, the signing string in the same", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("x-request-id", "tpp-redirect-uri", "digest", "psu-id", "date")}})
		}},
		{File: "clean-basket-no-digest.http", About: "a signing basket without Digest (section 4.1 lists none)", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodPost, target: "/api/v1/signing-baskets", body: basketBody, mod: func(h http.Header) { h.Del("Digest") }})
		}},
		{File: "clean-basket-digest.http", About: "a signing basket with a matching Digest", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodPost, target: "/api/v1/signing-baskets", body: basketBody})
		}},
		{File: "clean-accounts.http", About: "GET /v1/accounts: no body, no Digest", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodGet, target: "/api/v1/accounts?withBalance=true"})
		}},
		{File: "clean-with-cert.http", Cert: true, About: "a payment, checked with -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{})
		}},
		{File: "clean-sha512.http", About: "a Digest in SHA-512", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("Digest", signing.DigestSHA512([]byte(paymentBody))) }})
		}},
		{File: "clean-iso-8859-1.http", About: "the value as an encoded word in ISO-8859-1", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, "=?iso-8859-1?B?"+base64.StdEncoding.EncodeToString(latin1Bytes(t, sigText(t, c)))+"?=")
		}},
		{File: "clean-q-encoding.http", About: "the value as an encoded word in Q encoding", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, "=?UTF-8?Q?"+qEncode([]byte(sigText(t, c)))+"?=")
		}},
		{File: "clean-crlf-content-length.http", About: "CRLF line ends and a Content-Length", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.crlf = true
			return c
		}},
		{File: "clean-chunked.http", About: "a chunked body", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.chunked = true
			return c
		}},
		{File: "clean-absolute-target.http", About: "request line with an absolute URL and no HTTP version", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodGet, target: "https://psd2.bank.example/api/v1/accounts"})
		}},
		{File: "clean-corporate.http", About: "PSU-Corporate-ID sent and signed", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodGet, target: "/api/v1/accounts", mod: func(h http.Header) { h.Set("PSU-Corporate-ID", "0b7f3a52-5a1d-4c1e-9e0f-5c8a4e2b1d77") }})
		}},

		// keyId (5.4).
		{File: "keyid-openssl.http", Want: codeKeyIDForm, About: "issuer in OpenSSL's form", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: signing.KeyIDOpenSSL(k.tpp.Certificate)})
		}},
		{File: "keyid-oid.http", Want: codeKeyIDForm, About: "organizationIdentifier as OID.2.5.4.97= with its text", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: strings.ReplaceAll(signing.KeyIDOpenSSL(k.tpp.Certificate), "organizationIdentifier=", "OID.2.5.4.97=")})
		}},
		{File: "keyid-rdn-reversed.http", Want: codeKeyIDRDNOrder, About: "issuer RDNs most significant first", make: func(t *testing.T, k *corpusKeys) capture {
			rdns := splitRDNs(signing.IssuerDN(k.tpp.Certificate))
			slices.Reverse(rdns)
			return k.signed(t, req{keyID: "SN=" + sn(k) + ",CA=" + strings.Join(rdns, ",")})
		}},
		{File: "keyid-go.http", Want: codeKeyIDRDNOrder, About: "issuer as Go's pkix.Name.String writes it (its RDNs in Go's order)", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: "SN=" + sn(k) + ",CA=" + k.tpp.Certificate.Issuer.String()})
		}},
		{File: "keyid-serial-lower.http", Want: codeKeyIDSerial, About: "serial in lower case", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: "SN=" + strings.ToLower(sn(k)) + ",CA=" + signing.IssuerDN(k.tpp.Certificate)})
		}},
		{File: "keyid-serial-padded.http", Want: codeKeyIDSerial, About: "serial padded to whole bytes", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: "SN=0" + sn(k) + ",CA=" + signing.IssuerDN(k.tpp.Certificate)})
		}},
		{File: "keyid-other-certificate.http", Want: codeKeyIDCert, About: "keyId of another certificate", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: signing.KeyID(k.other.Certificate)})
		}},
		{File: "keyid-other-issuer.http", Want: codeKeyIDCert, About: "the serial right, the issuer another CA's", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: "SN=" + sn(k) + ",CA=CN=Annen QTSP,O=Annen AS,C=NO"})
		}},
		{File: "keyid-other-certificate-with-cert.http", Want: codeKeyIDCert, Cert: true, About: "keyId of another certificate, checked with -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{keyID: signing.KeyID(k.other.Certificate)})
		}},

		// Date (5.3).
		{File: "date-stale.http", Want: codeDateSkew, About: "Date five minutes behind", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("Date", corpusNow.Add(-5*time.Minute).Format(http.TimeFormat)) }})
		}},
		{File: "date-ahead.http", Want: codeDateSkew, About: "Date 61 seconds ahead", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("Date", corpusNow.Add(61*time.Second).Format(http.TimeFormat)) }})
		}},
		{File: "date-missing.http", Want: codeDateMissing, About: "no Date", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Del("Date") }})
		}},
		{File: "date-iso8601.http", Want: codeDateFormat, About: "Date in ISO 8601", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("Date", corpusNow.Format(time.RFC3339)) }})
		}},

		// Digest (sections 4.1 to 4.3).
		{File: "digest-body-changed.http", Want: codeDigestMismatch, About: "the body changed after signing", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.body = []byte(strings.Replace(paymentBody, "10.00", "1000.00", 1))
			return c
		}},
		{File: "digest-missing-payment.http", Want: codeDigestMissing, About: "a payment without Digest", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Del("Digest") }})
		}},
		{File: "digest-missing-sandbox-body.http", Want: codeDigestMissing, About: "a body without Digest on an operation with no header table", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodPost, target: "/api/v1/sandbox/customers", body: `{"customerNumber":"01017012345"}`, mod: func(h http.Header) { h.Del("Digest") }})
		}},
		{File: "digest-md5.http", Want: codeDigestAlgorithm, About: "a Digest in MD5 only", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("Digest", "MD5=Q2hlY2sgSW50ZWdyaXR5IQ==") }})
		}},
		{File: "digest-basket-mismatch.http", Want: codeDigestMismatch, About: "a basket's Digest that does not match (one sent must)", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{method: http.MethodPost, target: "/api/v1/signing-baskets", body: basketBody, mod: func(h http.Header) { h.Set("Digest", signing.Digest([]byte(paymentBody))) }})
		}},

		// Headers list (5.4, 5.5).
		{File: "headers-signed-in-other-order.http", Want: codeHeaderOrder, About: "listed in one order, signed in another", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{opts: []signing.Option{signing.WithHeaders("x-request-id", "date", "digest", "psu-id", "tpp-redirect-uri")}})
			return wrap(c, signing.EncodeWord(withParam(t, sigText(t, c), "headers", "date digest x-request-id psu-id tpp-redirect-uri")))
		}},
		{File: "headers-upper-case.http", Want: codeHeaderCase, About: "names in the headers part not in lower case", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, signing.EncodeWord(withParam(t, sigText(t, c), "headers", "Date Digest X-Request-ID PSU-ID TPP-Redirect-URI")))
		}},
		{File: "headers-x-request-id-unsigned.http", Want: codeHeaderUnsigned, About: "X-Request-ID sent, not signed", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("date", "digest", "psu-id", "tpp-redirect-uri")}})
		}},
		{File: "headers-psu-id-unsigned.http", Want: codeHeaderUnsigned, About: "PSU-ID sent, not signed", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("date", "digest", "x-request-id", "tpp-redirect-uri")}})
		}},
		{File: "headers-psu-id-removed.http", Want: codeHeaderMissing, About: "a signed PSU-ID taken out of the request", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.header.Del("PSU-ID")
			return c
		}},
		{File: "headers-request-target.http", Want: codeHeaderNotUsed, About: "(request-target) in the list", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("(request-target)", "date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri")}})
		}},
		{File: "headers-content-type.http", Want: codeHeaderNotUsed, About: "content-type in the list", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "content-type")}})
		}},
		{File: "headers-host.http", Want: codeHeaderNotUsed, About: "host in the list", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{opts: []signing.Option{signing.WithHeaders("date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "host")}})
		}},
		{File: "headers-date-twice.http", Want: codeHeaderRepeated, About: "date listed twice (and signed so)", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			names := []string{"date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "date"}
			ss, err := signing.SigningString(&http.Request{Header: c.header}, names)
			require.NoError(t, err)
			sum := sha256.Sum256([]byte(ss))
			sig, err := rsa.SignPKCS1v15(nil, k.tpp.Key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
			require.NoError(t, err)
			text := withParam(t, withParam(t, sigText(t, c), "headers", strings.Join(names, " ")), "signature", base64.StdEncoding.EncodeToString(sig))
			return wrap(c, signing.EncodeWord(text))
		}},

		// The signature (5.2, 5.4).
		{File: "signature-header-changed.http", Want: codeSignatureInvalid, About: "a signed header changed after signing", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.header.Set("TPP-Redirect-URI", "https://evil.example/cb")
			return c
		}},
		{File: "signature-other-key.http", Want: codeSignatureInvalid, About: "signed with another key than the certificate's", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{signer: k.other, keyID: sdk(k)})
		}},
		{File: "signature-missing.http", Want: codeSignatureMissing, About: "no Signature", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.header.Del("Signature")
			return c
		}},
		{File: "signature-not-base64.http", Want: codeSignatureFormat, About: "the signature part not base64", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, signing.EncodeWord(withParam(t, sigText(t, c), "signature", "not*base64")))
		}},
		{File: "signature-no-algorithm.http", Want: codeSignatureFormat, About: "three parts, no algorithm", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, signing.EncodeWord(strings.Replace(sigText(t, c), `algorithm="rsa-sha256",`, "", 1)))
		}},
		{File: "signature-twice.http", Want: codeSignatureFormat, About: "two Signature headers", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			c.header.Add("Signature", c.header.Get("Signature"))
			return c
		}},
		{File: "algorithm-hmac.http", Want: codeAlgorithm, About: "algorithm hmac-sha256", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, signing.EncodeWord(withParam(t, sigText(t, c), "algorithm", "hmac-sha256")))
		}},

		// RFC 2047 wrapping (5.6).
		{File: "word-missing.http", Want: codeWordMissing, About: "non-ASCII value sent as raw UTF-8", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, sigText(t, c))
		}},
		{File: "word-partial.http", Want: codeWordPartial, About: "only the keyId wrapped", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, withParam(t, sigText(t, c), "keyId", "=?utf-8?B?"+base64.StdEncoding.EncodeToString([]byte(sdk(k)))+"?="))
		}},
		{File: "word-latin1-label-utf8-bytes.http", Want: codeWordCharset, About: "iso-8859-1 said, UTF-8 bytes sent", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, "=?iso-8859-1?B?"+base64.StdEncoding.EncodeToString([]byte(sigText(t, c)))+"?=")
		}},
		{File: "word-utf8-label-latin1-bytes.http", Want: codeWordCharset, About: "utf-8 said, ISO-8859-1 bytes sent", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, "=?utf-8?B?"+base64.StdEncoding.EncodeToString(latin1Bytes(t, sigText(t, c)))+"?=")
		}},
		{File: "word-windows-1252.http", Want: codeWordCharset, About: "a charset 5.6 does not name", make: func(t *testing.T, k *corpusKeys) capture {
			c := k.signed(t, req{})
			return wrap(c, "=?windows-1252?B?"+base64.StdEncoding.EncodeToString(latin1Bytes(t, sigText(t, c)))+"?=")
		}},

		// The certificate.
		{File: "certificate-missing-with-cert.http", Want: codeCertificate, Cert: true, About: "no TPP-Signature-Certificate, checked with -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Del("TPP-Signature-Certificate") }})
		}},
		{File: "certificate-missing.http", Want: codeCertificate, About: "no TPP-Signature-Certificate and no -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Del("TPP-Signature-Certificate") }})
		}},
		{File: "certificate-not-base64.http", Want: codeCertificate, About: "TPP-Signature-Certificate not base64", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) { h.Set("TPP-Signature-Certificate", "MIIB*not-base64") }})
		}},
		{File: "certificate-other-than-cert.http", Want: codeCertMismatch, Cert: true, About: "TPP-Signature-Certificate another than -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{mod: func(h http.Header) {
				h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(k.other.Certificate.Raw))
			}})
		}},
		{File: "certificate-and-keyid-other.http", Want: codeCertMismatch, Cert: true, About: "certificate, keyId and key all another TPP's than -cert", make: func(t *testing.T, k *corpusKeys) capture {
			return k.signed(t, req{signer: k.other, keyID: signing.KeyID(k.other.Certificate), mod: func(h http.Header) {
				h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(k.other.Certificate.Raw))
			}})
		}},
	}
}

// runCorpus runs psd2 verify on every case's file in dir and checks that
// it names exactly the case's fault; it returns how many were named
// correctly.
func runCorpus(t *testing.T, dir string, cases []corpusCase) int {
	t.Helper()
	named := 0
	for _, c := range cases {
		args := []string{"verify", "--json", "-now", corpusNow.Format(http.TimeFormat)}
		if c.Cert {
			args = append(args, "-cert", filepath.Join(dir, "tpp-cert.pem"))
		}
		out, errOut, code := psd2(t, append(args, filepath.Join(dir, c.File))...)
		var rep verifyReport
		if !assert.NoError(t, json.Unmarshal([]byte(out), &rep), "%s: %s", c.File, errOut) {
			continue
		}
		var codes []string
		for _, f := range rep.Findings {
			codes = append(codes, f.Code)
			assert.NotEmpty(t, f.Message, c.File)
		}
		want, wantExit := []string(nil), exitOK
		if c.Want != "" {
			want, wantExit = []string{c.Want}, exitFailed
		}
		ok := assert.Equal(t, want, codes, "%s (%s): %v", c.File, c.About, rep.Findings)
		ok = assert.Equal(t, wantExit, code, "%s: %s", c.File, errOut) && ok
		if ok {
			named++
		}
	}
	return named
}

// writeCorpusTo writes the corpus made with k to dir: a file per case,
// cases.json and tpp-cert.pem.
func writeCorpusTo(t *testing.T, dir string, k *corpusKeys, cases []corpusCase) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, c := range cases {
		raw := c.make(t, k).raw()
		require.NoError(t, os.WriteFile(filepath.Join(dir, c.File), raw, 0o644))
	}
	manifest, err := json.MarshalIndent(cases, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.json"), append(manifest, '\n'), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tpp-cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.tpp.Certificate.Raw}), 0o644))
}

// TestVerifyCorpus runs psd2 verify on the corpus in testdata/verify and
// on the same cases made afresh with new keys: every case's fault, or
// none, is named exactly. It logs the figure.
func TestVerifyCorpus(t *testing.T) {
	cases := corpusCases()
	if *writeCorpus {
		writeCorpusTo(t, corpusDir, newCorpusKeys(t), cases)
	}
	t.Parallel()
	faults := 0
	for _, c := range cases {
		if c.Want != "" {
			faults++
		}
	}
	require.GreaterOrEqual(t, len(cases), 30)

	data, err := os.ReadFile(filepath.Join(corpusDir, "cases.json"))
	require.NoError(t, err)
	var manifest []corpusCase
	require.NoError(t, json.Unmarshal(data, &manifest))
	strip := func(cs []corpusCase) []corpusCase {
		out := slices.Clone(cs)
		for i := range out {
			out[i].make = nil
		}
		return out
	}
	require.Equal(t, strip(cases), manifest, "testdata/verify/cases.json is not the cases of corpusCases: go test -run TestVerifyCorpus -write-verify-corpus")

	named := runCorpus(t, corpusDir, manifest)
	t.Logf("testdata/verify: verify named %d of %d captured requests correctly (%d with one fault, %d with none)", named, len(manifest), faults, len(manifest)-faults)

	fresh := t.TempDir()
	writeCorpusTo(t, fresh, newCorpusKeys(t), cases)
	assert.Equal(t, len(cases), runCorpus(t, fresh, cases), "the cases made afresh")
}

// TestVerifyCorpusCoversEveryCode checks that every finding code of
// verify.go has a captured request in the corpus.
func TestVerifyCorpusCoversEveryCode(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "verify.go", nil, 0)
	require.NoError(t, err)
	var codes []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for i, n := range spec.(*ast.ValueSpec).Names {
				if lit, ok := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "code") {
					codes = append(codes, strings.Trim(lit.Value, `"`))
				}
			}
		}
	}
	require.GreaterOrEqual(t, len(codes), 20)
	for _, c := range codes {
		assert.True(t, slices.ContainsFunc(corpusCases(), func(cc corpusCase) bool { return cc.Want == c }), "no captured request for %s", c)
	}
}

// TestReadCapture checks how verify reads a capture: line ends, the body's
// bounds, the header section's bound.
func TestReadCapture(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw, body string
		err             string
	}{
		{"LF, one final line break dropped", "POST /x HTTP/1.1\nHost: h\n\n{\"a\":1}\n", `{"a":1}`, ""},
		{"CRLF inside the body kept", "POST /x HTTP/1.1\nHost: h\n\nline1\r\nline2\r\n", "line1\r\nline2", ""},
		{"only one final line break dropped", "POST /x HTTP/1.1\nHost: h\n\nab\n\n", "ab\n", ""},
		{"a final CR is body", "POST /x HTTP/1.1\nHost: h\n\nab\r", "ab\r", ""},
		{"Content-Length exact, line break after it", "POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nab\n\r\n", "ab\n", ""},
		{"Content-Length short", "POST /x HTTP/1.1\r\nContent-Length: 9\r\n\r\nab", "", "ends after 2 of its Content-Length 9"},
		{"more than Content-Length", "POST /x HTTP/1.1\r\nContent-Length: 1\r\n\r\nabc", "", "more than Content-Length"},
		{"no blank line: no body", "GET /x HTTP/1.1\nHost: h", "", ""},
		{"leading blank line", "\nGET /x HTTP/1.1\n\n", "", ""},
		{"version left out", "GET https://h/x\n\n", "", ""},
		{"empty", "", "", "no request line"},
		{"not HTTP", "garbage\n\n", "", "not a raw HTTP request"},
	}
	for _, c := range cases {
		req, d, err := readCapture(strings.NewReader(c.raw))
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, digestsOf([]byte(c.body)), d, c.name)
		assert.NotEmpty(t, req.Method, c.name)
	}
	// The body arrives in writes of one byte: the same.
	var tw bytes.Buffer
	tr := &trimFinalLineBreak{w: &tw}
	for _, b := range []byte("ab\r\n") {
		_, _ = tr.Write([]byte{b})
	}
	require.NoError(t, tr.finish())
	assert.Equal(t, "ab", tw.String())

	long := "GET /x HTTP/1.1\nX-Long: " + strings.Repeat("a", maxCaptureHead) + "\n\n"
	_, _, err := readCapture(strings.NewReader(long))
	assert.ErrorContains(t, err, "longer than 1048576 bytes")
}

// patternReader yields n bytes of a repeating JSON-ish pattern.
func patternReader(n int64) io.Reader {
	return io.LimitReader(repeatReader("0123456789abcdefghijklmnopqrstuvwxyz,"), n)
}

type repeatReader string

func (r repeatReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); {
		i += copy(p[i:], r)
	}
	return len(p), nil
}

// TestVerifyStreamsTheBody pipes a capture with a 100 MB body to psd2
// verify - and checks that it verifies, and that the process's peak
// resident memory stays far below the body's size: the body is streamed
// through the digests, not held.
func TestVerifyStreamsTheBody(t *testing.T) {
	t.Parallel()
	const size = 100 << 20
	k := newCorpusKeys(t)
	h := sha256.New()
	_, err := io.Copy(h, patternReader(size))
	require.NoError(t, err)
	hr, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example"+paymentPath, nil)
	require.NoError(t, err)
	hr.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	hr.Header.Set("X-Request-ID", "big-1")
	hr.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(h.Sum(nil)))
	hr.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(k.tpp.Certificate.Raw))
	s, err := signing.NewSigner(k.tpp.Key, signing.KeyID(k.tpp.Certificate))
	require.NoError(t, err)
	require.NoError(t, s.Sign(hr))
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: psd2.bank.example\r\nContent-Length: %d\r\n", paymentPath, size)
	require.NoError(t, hr.Header.Write(&head))
	head.WriteString("\r\n")

	cmd := exec.CommandContext(t.Context(), bin, "verify", "--json", "-")
	cmd.Stdin = io.MultiReader(&head, patternReader(size))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	require.NoError(t, cmd.Start())
	peakRSS := watchRSS(cmd.Process.Pid)
	err = cmd.Wait()
	peak := peakRSS()
	out := stdout.Bytes()
	require.NoError(t, err, "verify on a 100 MB body: %s", out)
	var rep verifyReport
	require.NoError(t, json.Unmarshal(out, &rep))
	assert.True(t, rep.OK, "%v", rep.Findings)
	assert.Equal(t, int64(size), rep.BodySize)
	t.Logf("verify of a %d MB body: peak RSS %d MB", size>>20, peak>>20)
	if peak > 0 {
		assert.Less(t, peak, int64(48<<20), "the body must be streamed, not held")
	}
}

// TestVerifyUnit checks pieces of verify that the corpus reaches only
// through the binary.
func TestVerifyUnit(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{`CN=a\,b`, `O="x,y"`, "C=NO"}, splitRDNs(`CN=a\,b,O="x,y",C=NO`))
	for _, c := range []struct {
		method, target string
		body, want     bool
	}{
		{"POST", "/api/v1/payments/norwegian-domestic-credit-transfers", true, true},
		{"POST", "/api-sandbox/v1/periodic-payments/sepa-credit-transfers?x=1", false, true},
		{"POST", "/api/v1/payments/p/id/authorisations", false, false},
		{"POST", "/api/v1/signing-baskets", true, false},
		{"POST", "/v1/sandbox/customers", true, true},
		{"GET", "/api/v1/accounts", false, false},
	} {
		got, why := digestRule(c.method, c.target, c.body)
		assert.Equal(t, c.want, got, "%s %s: %s", c.method, c.target, why)
	}
	w, err := parseEncodedWord("=?UTF-8*no?Q?a=C3=B8_b?=")
	require.NoError(t, err)
	assert.Equal(t, "utf-8", w.charset)
	assert.True(t, utf8.Valid(w.bytes))
	assert.Equal(t, "aø b", string(w.bytes))
	for _, bad := range []string{"=?utf-8?B?not base64?=", "=?utf-8?X?abc?=", "=?utf-8?B?abc", "=?utf-8?Q?=4?="} {
		_, err := parseEncodedWord(bad)
		assert.Error(t, err, bad)
	}
}
