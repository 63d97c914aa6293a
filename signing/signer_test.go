package signing

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The request and signatures of draft-cavage-http-signatures-12
// Appendix C, as published (the draft wraps the base64 over lines; it is
// joined here).
const (
	cavageBody   = `{"hello": "world"}`
	cavageDigest = "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="
	cavageC1Sig  = "SjWJWbWN7i0wzBvtPl8rbASWz5xQW6mcJmn+ibttBqtifLN7Sazz6m79cNfwwb8DMJ5cou1s7uEGKKCs+FLEEaDV5lp7q25WqS+lavg7T8hc0GppauB6hbgEKTwblDHYGEtbGmtdHgVCk9SuS13F0hZ8FD0k/5OxEPXe5WozsbM="
	cavageC2Sig  = "qdx+H7PHHDZgy4y/Ahn9Tny9V3GP6YgBPyUXMmoxWtLbHpUnXS2mg2+SbrQDMCJypxBLSPQR2aAjn7ndmw2iicw3HMbe8VfEdKFYRqzic+efkb3nndiv/x1xSHDJWeSWkx3ButlYSuBskLu6kd9Fswtemr3lgdDEmn04swr2Os0="
	cavageC3Sig  = "vSdrb+dS3EceC9bcwHSo4MlyKS59iFIrhgYkz8+oVLEEzmYZZvRs8rgOp+63LEM3v+MFHB32NfpB2bEKBIvB1q52LaEUHFv120V01IL+TAD48XaERZFukWgHoBTLMhYS2Gb51gWxpeIq8knRmPnYePbF5MOkR0Zkly4zKH7s1dE="
)

func cavageRequest(t testing.TB) *http.Request {
	req, err := http.NewRequest(http.MethodPost, "http://example.com/foo?param=value&pet=dog", strings.NewReader(cavageBody))
	require.NoError(t, err)
	req.Header.Set("Host", "example.com")
	req.Header.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Digest", cavageDigest)
	req.Header.Set("Content-Length", "18")
	return req
}

// TestDraftCavageAppendixC reproduces the three published signatures of
// draft-cavage-http-signatures-12 Appendix C byte for byte with the
// draft's test key, and verifies the published header values.
func TestDraftCavageAppendixC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		headers   []string
		signing   string
		published []string // Signature values as the draft prints them
		sig       string
	}{
		{
			name:      "C.1 default test",
			headers:   []string{"date"},
			signing:   "date: Sun, 05 Jan 2014 21:31:40 GMT",
			published: []string{`keyId="Test",algorithm="rsa-sha256",signature="` + cavageC1Sig + `"`},
			sig:       cavageC1Sig,
		},
		{
			name:    "C.2 basic test",
			headers: []string{"(request-target)", "host", "date"},
			signing: "(request-target): post /foo?param=value&pet=dog\nhost: example.com\ndate: Sun, 05 Jan 2014 21:31:40 GMT",
			published: []string{
				`keyId="Test",algorithm="rsa-sha256",headers="(request-target) host date", signature="` + cavageC2Sig + `"`,
				`keyId="Test",algorithm="rsa-sha256",headers="(request-target) host date",signature="` + cavageC2Sig + `"`,
			},
			sig: cavageC2Sig,
		},
		{
			name:      "C.3 all headers test",
			headers:   []string{"(request-target)", "host", "date", "content-type", "digest", "content-length"},
			signing:   "(request-target): post /foo?param=value&pet=dog\nhost: example.com\ndate: Sun, 05 Jan 2014 21:31:40 GMT\ncontent-type: application/json\ndigest: " + cavageDigest + "\ncontent-length: 18",
			published: []string{`keyId="Test",algorithm="rsa-sha256",headers="(request-target) host date content-type digest content-length",signature="` + cavageC3Sig + `"`},
			sig:       cavageC3Sig,
		},
	}
	assert.Equal(t, cavageDigest, Digest([]byte(cavageBody)))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := cavageRequest(t)
			ss, err := SigningString(req, tt.headers)
			require.NoError(t, err)
			assert.Equal(t, tt.signing, ss)

			s, err := NewSigner(cavageKey(), "Test", WithHeaders(tt.headers...))
			require.NoError(t, err)
			require.NoError(t, s.Sign(req))
			want := `keyId="Test",algorithm="rsa-sha256",headers="` + strings.Join(tt.headers, " ") + `",signature="` + tt.sig + `"`
			assert.Equal(t, want, req.Header.Get("Signature"), "byte for byte")
			require.NoError(t, Verify(req, &cavageKey().PublicKey))

			for _, v := range tt.published {
				r := cavageRequest(t)
				r.Header.Set("Signature", v)
				require.NoError(t, Verify(r, &cavageKey().PublicKey), v)
				p, err := ParseSignature(v)
				require.NoError(t, err)
				assert.Equal(t, tt.headers, p.Headers)
				assert.Equal(t, tt.sig, base64.StdEncoding.EncodeToString(p.Signature))
			}
		})
	}
}

func TestDigest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body           string
		sha256, sha512 string
	}{
		{"", "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "SHA-512=z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="},
		{cavageBody, cavageDigest, "SHA-512=WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew=="},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.body), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.sha256, Digest([]byte(tt.body)))
			assert.Equal(t, tt.sha512, DigestSHA512([]byte(tt.body)))
			assert.NoError(t, VerifyDigest(tt.sha256, []byte(tt.body)))
			assert.NoError(t, VerifyDigest(tt.sha512, []byte(tt.body)))
			assert.NoError(t, VerifyDigest(tt.sha256+", "+tt.sha512, []byte(tt.body)))
			assert.NoError(t, VerifyDigest("md5=abc,"+strings.ToLower(tt.sha256[:7])+tt.sha256[7:], []byte(tt.body)))
			assert.ErrorIs(t, VerifyDigest(tt.sha256, []byte(tt.body+" ")), ErrDigestMismatch)
			assert.ErrorIs(t, VerifyDigest(tt.sha256+","+Digest([]byte("x")), []byte(tt.body)), ErrDigestMismatch)
		})
	}
	assert.ErrorIs(t, VerifyDigest("", nil), ErrDigestMismatch)
	assert.ErrorIs(t, VerifyDigest("MD5=1B2M2Y8AsgTpgAmY7PhCfg==", nil), ErrUnsupportedDigest)
	assert.ErrorIs(t, VerifyDigest("SHA-256", nil), ErrUnsupportedDigest)
}

func TestNewSignerOptions(t *testing.T) {
	t.Parallel()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	k := testKey(0)
	tests := []struct {
		name  string
		err   error
		build func() (*Signer, error)
	}{
		{name: "nil key", err: ErrNoKey, build: func() (*Signer, error) { return NewSigner(nil, "k") }},
		{name: "EC key", err: ErrKeyNotRSA, build: func() (*Signer, error) { return NewSigner(ec, "k") }},
		{name: "empty keyId", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "") }},
		{name: "invalid UTF-8 keyId", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "a\xffb") }},
		{name: "no headers", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "k", WithHeaders()) }},
		{name: "bad header name", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "k", WithHeaders("date", "a b")) }},
		{name: "signature itself", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "k", WithHeaders("Signature")) }},
		{name: "header twice", err: ErrInvalidOption, build: func() (*Signer, error) { return NewSigner(k, "k", WithHeaders("date", "Date")) }},
		{name: "nil option ignored", build: func() (*Signer, error) { return NewSigner(k, "k", nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.build()
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Nil(t, s)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "k", s.KeyID())
		})
	}
	s, err := NewSigner(k, "k", WithHeaders(" X-Request-ID ", "(request-target)", "Date"))
	require.NoError(t, err)
	hs := s.Headers()
	assert.Equal(t, []string{"x-request-id", "(request-target)", "date"}, hs)
	hs[0] = "changed"
	assert.Equal(t, "x-request-id", s.Headers()[0], "Headers returns a copy")
	d, err := NewSigner(k, "k")
	require.NoError(t, err)
	assert.Nil(t, d.Headers())
}

// signedRequest is a POST carrying the given headers (name, value pairs).
func signedRequest(t testing.TB, kv ...string) *http.Request {
	req, err := http.NewRequest(http.MethodPost, "https://bank.example/api/v1/payments/x?a=1", strings.NewReader("{}"))
	require.NoError(t, err)
	for i := 0; i < len(kv); i += 2 {
		req.Header.Add(kv[i], kv[i+1])
	}
	return req
}

func TestDefaultHeaders(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	s, err := NewSigner(k, "SN=1,CA=CN=x")
	require.NoError(t, err)
	all := []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}
	assert.Equal(t, all, DefaultHeaders())
	mine := DefaultHeaders()
	mine[0] = "changed"
	assert.Equal(t, all, DefaultHeaders(), "a caller's copy changes nothing")
	tests := []struct {
		name string
		kv   []string
		want string
	}{
		{name: "all, given in reverse", kv: []string{"TPP-Redirect-URI", "https://tpp.example/cb", "PSU-Corporate-ID", "c1", "PSU-ID", "p1", "X-Request-ID", "r1", "Digest", "SHA-256=x", "Date", "d"}, want: strings.Join(all, " ")},
		{name: "only those present", kv: []string{"X-Request-ID", "r1", "Date", "d", "PSU-IP-Address", "192.0.2.1", "Content-Type", "application/json"}, want: "date x-request-id"},
		{name: "non-canonical key in the map", kv: nil, want: "date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := signedRequest(t, tt.kv...)
			if tt.kv == nil {
				req.Header["Date"] = []string{"d"}
			}
			require.NoError(t, s.Sign(req))
			p, err := ParseSignature(req.Header.Get("Signature"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, strings.Join(p.Headers, " "))
			assert.Equal(t, Algorithm, p.Algorithm)
			assert.Equal(t, "SN=1,CA=CN=x", p.KeyID)
			require.NoError(t, Verify(req, &k.PublicKey))
			assert.True(t, strings.HasPrefix(req.Header.Get("Signature"), `keyId="SN=1,CA=CN=x",algorithm="rsa-sha256",headers="`))
		})
	}
}

func TestSigningString(t *testing.T) {
	t.Parallel()
	req := signedRequest(t, "Date", " d ", "X-Multi", "a", "X-Multi", "b\t", "X-Bad", "a\r\nforged: 1")
	req.Method = "PoSt"
	tests := []struct {
		names []string
		want  string
		err   error
	}{
		{names: []string{"(request-target)", "host", "date"}, want: "(request-target): post /api/v1/payments/x?a=1\nhost: bank.example\ndate: d"},
		{names: []string{"x-multi"}, want: "x-multi: a, b"},
		{names: []string{"date", "psu-id"}, err: ErrMissingHeader},
		{names: []string{"x-bad"}, err: ErrInvalidHeader},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.names, " "), func(t *testing.T) {
			t.Parallel()
			ss, err := SigningString(req, tt.names)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, ss)
		})
	}
	_, err := SigningString(nil, []string{"date"})
	assert.ErrorIs(t, err, ErrMissingHeader)

	s, err := NewSigner(testKey(0), "k", WithHeaders("date", "psu-id"))
	require.NoError(t, err)
	assert.ErrorIs(t, s.Sign(req), ErrMissingHeader, "a listed header missing")
	assert.ErrorIs(t, s.Sign(nil), ErrMissingHeader)
	assert.Empty(t, req.Header.Get("Signature"), "nothing set when signing fails")
	s, err = NewSigner(testKey(0), "k", WithHeaders("x-bad"))
	require.NoError(t, err)
	assert.ErrorIs(t, s.Sign(req), ErrInvalidHeader, "a line break cannot forge signing-string lines")
}

// qEncode writes b as RFC 2047 Q text, every byte but letters and digits
// as =XX.
func qEncode(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "=%02X", c)
		}
	}
	return sb.String()
}

func TestEncodedWord(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	const nonASCII = "SN=1,CA=CN=Tromsø QTSP,O=Bæreevne Å"
	tests := []struct {
		name    string
		keyID   string
		opts    []Option
		encoded bool
	}{
		{name: "ASCII stays plain", keyID: "SN=1,CA=CN=x"},
		{name: "non-ASCII keyId", keyID: nonASCII, encoded: true},
		{name: "forced", keyID: "SN=1,CA=CN=x", opts: []Option{WithEncodedWord()}, encoded: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := NewSigner(k, tt.keyID, tt.opts...)
			require.NoError(t, err)
			req := signedRequest(t, "Date", "d", "X-Request-ID", "r")
			require.NoError(t, s.Sign(req))
			v := req.Header.Get("Signature")
			if !tt.encoded {
				assert.True(t, strings.HasPrefix(v, `keyId="`))
			} else {
				require.True(t, strings.HasPrefix(v, "=?utf-8?B?") && strings.HasSuffix(v, "?="), v)
				plain, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?utf-8?B?"), "?="))
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(string(plain), `keyId="`+tt.keyID+`",algorithm="rsa-sha256",headers="date x-request-id",signature="`))
				assert.Equal(t, v, EncodeWord(string(plain)))
			}
			p, err := ParseSignature(v)
			require.NoError(t, err)
			assert.Equal(t, tt.keyID, p.KeyID)
			require.NoError(t, Verify(req, &k.PublicKey))
		})
	}

	// Q encoding and ISO-8859-1, as another implementation may send them.
	s, err := NewSigner(k, nonASCII)
	require.NoError(t, err)
	req := signedRequest(t, "Date", "d")
	require.NoError(t, s.Sign(req))
	p, err := ParseSignature(req.Header.Get("Signature"))
	require.NoError(t, err)
	plain := `keyId="` + nonASCII + `",algorithm="rsa-sha256",headers="date",signature="` + base64.StdEncoding.EncodeToString(p.Signature) + `"`
	var latin1 []byte
	for _, r := range plain {
		latin1 = append(latin1, byte(r))
	}
	for _, v := range []string{
		"=?utf-8?Q?" + qEncode([]byte(plain)) + "?=",
		"=?ISO-8859-1?Q?" + qEncode(latin1) + "?=",
		"=?iso-8859-1?B?" + base64.StdEncoding.EncodeToString(latin1) + "?=",
		"=?UTF-8*no?b?" + base64.StdEncoding.EncodeToString([]byte(plain)) + "?=",
	} {
		req.Header.Set("Signature", v)
		p, err := ParseSignature(v)
		require.NoError(t, err, v)
		assert.Equal(t, nonASCII, p.KeyID)
		require.NoError(t, Verify(req, &k.PublicKey), v)
	}
}

// TestDecodeLongWord: a Signature value is sent as one encoded word,
// however long (docs/interface.md section 5.6), far past the 75 characters
// RFC 2047 sets for a word in a mail header. The standard library's
// decoder reads it whole.
func TestDecodeLongWord(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	keyID := "SN=1,CA=CN=" + strings.Repeat("Tromsø QTSP ", 500) // 6.5 KB, 9 KB encoded
	s, err := NewSigner(k, keyID)
	require.NoError(t, err)
	req := signedRequest(t, "Date", "d", "X-Request-ID", "r")
	require.NoError(t, s.Sign(req))
	v := req.Header.Get("Signature")
	require.Greater(t, len(v), 8000)
	require.True(t, strings.HasPrefix(v, "=?utf-8?B?") && strings.HasSuffix(v, "?="))
	assert.Equal(t, 4, strings.Count(v, "?"), "one word")
	p, err := ParseSignature(v)
	require.NoError(t, err)
	assert.Equal(t, keyID, p.KeyID)
	require.NoError(t, Verify(req, &k.PublicKey))

	for _, n := range []int{0, 1, 2, 3, 57, 58, 75, 76, 1000, 12000} {
		plain := strings.Repeat("æ", n/2) + strings.Repeat("x", n%2)
		got, err := decodeWord(EncodeWord(plain))
		require.NoError(t, err, n)
		assert.Equal(t, plain, got, n)
	}
}

// A headers list naming a header twice is read (a tool may say so) but
// never verified: each listing would copy the header's value into the
// signing string before the RSA check. More than 32 names are refused
// when read.
func TestVerifyRefusesRepeatedHeaders(t *testing.T) {
	t.Parallel()
	p, err := ParseSignature(`keyId="k",algorithm="rsa-sha256",headers="date x-request-id Date",signature="AAAA"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"date", "x-request-id", "date"}, p.Headers)
	req := httptest.NewRequest(http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("Date", "Thu, 03 Dec 2026 10:00:00 GMT")
	req.Header.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	key := testKey(0)
	err = p.Verify(req, &key.PublicKey)
	require.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, `"date" listed twice in the headers list`)
	p.Headers = strings.Fields(manyHeaderNames(maxSignedHeaders + 1))
	assert.ErrorIs(t, p.Verify(req, &key.PublicKey), ErrMalformed)
}

// manyHeaderNames lists n distinct header names.
func manyHeaderNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x-h%d", i)
	}
	return strings.Join(names, " ")
}

func TestParseSignatureErrors(t *testing.T) {
	t.Parallel()
	const sig = `signature="AAAA"`
	tests := []struct {
		name, value string
		text        string // what the error's text says is wrong
	}{
		{name: "no keyId", value: `algorithm="rsa-sha256",headers="date",` + sig, text: "no keyId"},
		{name: "empty keyId", value: `keyId="",` + sig, text: "no keyId"},
		{name: "no signature", value: `keyId="k",algorithm="rsa-sha256",headers="date"`, text: "no signature"},
		{name: "empty signature", value: `keyId="k",signature=""`, text: "signature is not base64"},
		{name: "signature not base64", value: `keyId="k",signature="%%%"`, text: "signature is not base64"},
		{name: "empty algorithm", value: `keyId="k",algorithm="",` + sig, text: "empty algorithm"},
		{name: "empty headers", value: `keyId="k",headers=" ",` + sig, text: "empty headers list"},
		{name: "bad header name", value: `keyId="k",headers="date (bad",` + sig, text: `"(bad" in the headers list is not a header name`},
		{name: "too many headers", value: `keyId="k",headers="` + manyHeaderNames(maxSignedHeaders+1) + `",` + sig, text: "more than 32 names in the headers list"},
		{name: "duplicate keyId", value: `keyId="k",keyId="k",` + sig, text: "parameter keyId given twice"},
		{name: "duplicate signature", value: `keyId="k",` + sig + `,` + sig, text: "parameter signature given twice"},
		{name: "duplicate algorithm", value: `keyId="k",algorithm="rsa-sha256",algorithm="rsa-sha256",` + sig, text: "parameter algorithm given twice"},
		{name: "duplicate headers", value: `keyId="k",headers="date",headers="date",` + sig, text: "parameter headers given twice"},
		{name: "duplicate unknown", value: `keyId="k",x="1",x="2",` + sig, text: "parameter x given twice"},
		{name: "unterminated", value: `keyId="k,` + sig, text: "expected a comma after keyId"},
		{name: "unterminated last", value: `keyId="k",signature="AAAA`, text: "unterminated quoted value of signature"},
		{name: "no equals", value: `keyId`, text: `expected comma-separated key="value" parameters`},
		{name: "unquoted", value: `keyId=k,` + sig, text: "keyId is not quoted"},
		{name: "bad name", value: `key id="k",` + sig, text: `expected comma-separated key="value" parameters`},
		{name: "missing comma", value: `keyId="k" ` + sig, text: "expected a comma after keyId"},
		{name: "trailing comma", value: `keyId="k",` + sig + `,`, text: "trailing comma"},
		{name: "too long", value: `keyId="` + strings.Repeat("k", maxSignatureLen) + `",` + sig, text: "longer than 16384 bytes"},
		{name: "word not terminated", value: `=?utf-8?B?abc`, text: "bad RFC 2047 encoded word"},
		{name: "word without parts", value: `=?utf-8?B?=`, text: "bad RFC 2047 encoded word"},
		{name: "word bad base64", value: `=?utf-8?B?!!!!?=`, text: "bad RFC 2047 encoded word: illegal base64 data"},
		{name: "word unknown encoding", value: `=?utf-8?X?abc?=`, text: "bad RFC 2047 encoded word"},
		{name: "word unknown charset", value: `=?koi8-r?B?` + base64.StdEncoding.EncodeToString([]byte(`keyId="k",`+sig)) + `?=`, text: `unsupported charset "koi8-r"`},
		{name: "word invalid UTF-8", value: `=?utf-8?B?` + base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe}) + `?=`, text: "text is not valid UTF-8"},
		{name: "word bad Q", value: `=?utf-8?Q?keyId=ZZ?=`, text: "bad RFC 2047 encoded word"},
		{name: "word short Q escape", value: `=?utf-8?Q?keyId=3?=`, text: "bad RFC 2047 encoded word"},
		{name: "two words", value: EncodeWord(`keyId="k",`) + " " + EncodeWord(sig), text: "bad RFC 2047 encoded word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := ParseSignature(tt.value)
			require.ErrorIs(t, err, ErrMalformed, "every parse error is an ErrMalformed")
			assert.Contains(t, err.Error(), tt.text)
			assert.Nil(t, p)
		})
	}
	p, err := ParseSignature("  ")
	assert.ErrorIs(t, err, ErrNoSignature)
	assert.NotErrorIs(t, err, ErrMalformed)
	assert.Nil(t, p)

	p, err = ParseSignature(`keyId="k", ` + sig + ` , x="y"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"date"}, p.Headers, "an absent headers part means date")
	assert.Empty(t, p.Algorithm, "an absent algorithm is left to Verify")
	assert.Equal(t, []byte{0, 0, 0}, p.Signature)
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	k0, k1 := testKey(0), testKey(1)
	s, err := NewSigner(k0, "k")
	require.NoError(t, err)
	signed := func() *http.Request {
		req := signedRequest(t, "Date", "d", "X-Request-ID", "r", "Digest", Digest([]byte("{}")))
		require.NoError(t, s.Sign(req))
		return req
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tests := []struct {
		name   string
		change func(r *http.Request)
		pub    any
		err    error
	}{
		{name: "valid", change: func(r *http.Request) {}},
		{name: "no Signature", change: func(r *http.Request) { r.Header.Del("Signature") }, err: ErrNoSignature},
		{name: "two Signature headers", change: func(r *http.Request) { r.Header.Add("Signature", r.Header.Get("Signature")) }, err: ErrMalformed},
		{name: "malformed", change: func(r *http.Request) { r.Header.Set("Signature", "junk") }, err: ErrMalformed},
		{name: "unknown algorithm", change: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "rsa-sha256", "hmac-sha256", 1))
		}, err: ErrBadAlgorithm},
		{name: "listed header missing", change: func(r *http.Request) { r.Header.Del("X-Request-ID") }, err: ErrMissingHeader},
		{name: "header changed", change: func(r *http.Request) { r.Header.Set("Digest", Digest([]byte("x"))) }, err: ErrBadSignature},
		{name: "header given twice", change: func(r *http.Request) { r.Header.Add("Date", "d") }, err: ErrBadSignature},
		{name: "headers list changed", change: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), `headers="date digest x-request-id"`, `headers="date x-request-id digest"`, 1))
		}, err: ErrBadSignature},
		{name: "signature flipped", change: func(r *http.Request) {
			p, err := ParseSignature(r.Header.Get("Signature"))
			require.NoError(t, err)
			p.Signature[10] ^= 0x40
			r.Header.Set("Signature", `keyId="k",algorithm="rsa-sha256",headers="date digest x-request-id",signature="`+base64.StdEncoding.EncodeToString(p.Signature)+`"`)
		}, err: ErrBadSignature},
		{name: "other key", change: func(r *http.Request) {}, pub: &k1.PublicKey, err: ErrBadSignature},
		{name: "EC public key", change: func(r *http.Request) {}, pub: &ec.PublicKey, err: ErrKeyNotRSA},
		{name: "no public key", change: func(r *http.Request) {}, pub: (*ecdsa.PublicKey)(nil), err: ErrKeyNotRSA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := signed()
			tt.change(req)
			pub := tt.pub
			if pub == nil {
				pub = &k0.PublicKey
			}
			assert.ErrorIs(t, Verify(req, pub), tt.err)
		})
	}
	assert.ErrorIs(t, Verify(nil, &k0.PublicKey), ErrNoSignature)
	var none *SignatureParams
	assert.ErrorIs(t, none.Verify(signed(), &k0.PublicKey), ErrNoSignature)

	// A response's headers verify with VerifyHeader; a list naming the
	// request target cannot.
	h := signed().Header
	assert.NoError(t, VerifyHeader(h, &k0.PublicKey))
	rt, err := NewSigner(k0, "k", WithHeaders("(request-target)", "date"))
	require.NoError(t, err)
	req := signed()
	require.NoError(t, rt.Sign(req))
	assert.NoError(t, Verify(req, &k0.PublicKey))
	assert.ErrorIs(t, VerifyHeader(req.Header, &k0.PublicKey), ErrMissingHeader)
}

// TestSignerConcurrent signs and verifies with one Signer from many
// goroutines; run with -race.
func TestSignerConcurrent(t *testing.T) {
	t.Parallel()
	k := testKey(0)
	s, err := NewSigner(k, "SN=1,CA=CN=Tromsø")
	require.NoError(t, err)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := []byte(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))
				req := signedRequest(t, "Date", "d", "X-Request-ID", fmt.Sprintf("%d-%d", w, i), "Digest", Digest(body))
				if err := s.Sign(req); err != nil {
					errs <- err
					continue
				}
				if err := Verify(req, &k.PublicKey); err != nil {
					errs <- err
					continue
				}
				p, err := ParseSignature(req.Header.Get("Signature"))
				if err != nil {
					errs <- err
					continue
				}
				if !bytes.Equal([]byte(p.KeyID), []byte("SN=1,CA=CN=Tromsø")) {
					errs <- fmt.Errorf("keyId %q", p.KeyID)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func FuzzParseSignature(f *testing.F) {
	f.Add(`keyId="Test",algorithm="rsa-sha256",signature="` + cavageC1Sig + `"`)
	f.Add(`keyId="Test",algorithm="rsa-sha256",headers="(request-target) host date content-type digest content-length",signature="` + cavageC3Sig + `"`)
	f.Add(EncodeWord(`keyId="SN=1,CA=CN=Tromsø",headers="date",signature="AAAA"`))
	f.Add(`=?iso-8859-1?Q?keyId=3D=22k=22?=`)
	f.Add(`keyId="k",x="",signature="A===",`)
	pub := &cavageKey().PublicKey
	f.Fuzz(func(t *testing.T, value string) {
		p, err := ParseSignature(value)
		if err == nil {
			require.NotEmpty(t, p.KeyID)
			require.NotEmpty(t, p.Signature)
			require.NotEmpty(t, p.Headers)
		}
		req := cavageRequest(t)
		req.Header.Set("Signature", value)
		// A value that parses may name any header; it never verifies
		// unless it carries the draft's own signature for this request.
		if err := Verify(req, pub); err == nil {
			p, perr := ParseSignature(value)
			require.NoError(t, perr)
			sig := base64.StdEncoding.EncodeToString(p.Signature)
			require.Contains(t, []string{cavageC1Sig, cavageC2Sig, cavageC3Sig}, sig)
		}
	})
}
