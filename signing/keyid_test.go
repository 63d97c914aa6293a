package signing

import (
	"bufio"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// issuerVector is one line of testdata/issuers.tsv: a certificate in
// testdata/issuers and what OpenSSL 3.0 printed for it with
// `openssl x509 -noout -serial` and `-issuer -nameopt RFC2253` (with and
// without -esc_msb). The test does not run openssl; the lines were recorded
// once from its output.
type issuerVector struct {
	file, serial, escaped, utf8 string
}

func readIssuerVectors(t *testing.T) []issuerVector {
	t.Helper()
	f, err := os.Open("testdata/issuers.tsv")
	require.NoError(t, err)
	defer f.Close()
	var vs []issuerVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		require.Len(t, cols, 4, line)
		vs = append(vs, issuerVector{cols[0], cols[1], cols[2], cols[3]})
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, len(vs), 9)
	return vs
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	block, _ := pem.Decode(data)
	require.NotNil(t, block, path)
	c, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return c
}

var highByteEscape = regexp.MustCompile(`\\[89A-F][0-9A-F]`)

// unescapeHigh undoes OpenSSL's esc_msb: \XX for each byte >= 0x80.
func unescapeHigh(s string) string {
	return highByteEscape.ReplaceAllStringFunc(s, func(m string) string {
		b, _ := strconv.ParseUint(m[1:], 16, 8)
		return string([]byte{byte(b)})
	})
}

func TestKeyIDAgainstOpenSSL(t *testing.T) {
	t.Parallel()
	for _, v := range readIssuerVectors(t) {
		t.Run(v.file, func(t *testing.T) {
			t.Parallel()
			cert := readCert(t, "testdata/issuers/"+v.file)
			// The two recorded forms agree: UTF-8 kept is the escaped form
			// with its \XX bytes put back.
			require.Equal(t, v.utf8, unescapeHigh(v.escaped))

			dn, err := RenderDNOpenSSL(cert.RawIssuer)
			require.NoError(t, err)
			assert.Equal(t, v.utf8, dn)
			assert.Equal(t, v.utf8, IssuerDNOpenSSL(cert))
			assert.True(t, utf8.ValidString(dn))

			// OpenSSL pads the serial to whole bytes; the keyId does not.
			sn := strings.TrimLeft(v.serial, "0")
			assert.Equal(t, "SN="+sn+",CA="+v.utf8, KeyIDOpenSSL(cert))

			// Every form OpenSSL prints names the certificate.
			for _, dn := range []string{v.utf8, v.escaped} {
				assert.True(t, MatchKeyID("SN="+sn+",CA="+dn, cert), dn)
			}
		})
	}
}

func TestKeyIDSerial(t *testing.T) {
	t.Parallel()
	issuer := pkix.Name{CommonName: "CA", Country: []string{"NO"}}
	raw, err := asn1.Marshal(issuer.ToRDNSequence())
	require.NoError(t, err)
	tests := []struct {
		serial *big.Int
		want   string
	}{
		{big.NewInt(10), "SN=A,CA=CN=CA,C=NO"},
		{big16("ABCDEF0123456789ABCDEF"), "SN=ABCDEF0123456789ABCDEF,CA=CN=CA,C=NO"},
		{big.NewInt(256), "SN=100,CA=CN=CA,C=NO"},
		{big.NewInt(0x9fa1), "SN=9FA1,CA=CN=CA,C=NO"},
		{big.NewInt(0), "SN=0,CA=CN=CA,C=NO"},
		{nil, "SN=0,CA=CN=CA,C=NO"},
		{big.NewInt(-255), "SN=-FF,CA=CN=CA,C=NO"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			c := &x509.Certificate{SerialNumber: tt.serial, RawIssuer: raw}
			assert.Equal(t, tt.want, KeyID(c))
			assert.Equal(t, tt.want, KeyIDOpenSSL(c))
			assert.True(t, MatchKeyID(tt.want, c))
		})
	}
	assert.Empty(t, KeyID(nil))
	assert.Empty(t, KeyIDOpenSSL(nil))
	assert.Empty(t, IssuerDN(nil))
	assert.Empty(t, IssuerDNOpenSSL(nil))
	assert.False(t, MatchKeyID("SN=0,CA=", nil))
	// An unparsable raw issuer falls back to Go's rendering.
	c := &x509.Certificate{SerialNumber: big.NewInt(1), RawIssuer: []byte{0xff}, Issuer: issuer}
	assert.Equal(t, "SN=1,CA="+issuer.String(), KeyID(c))
	assert.Equal(t, "SN=1,CA="+issuer.String(), KeyIDOpenSSL(c))
	assert.True(t, MatchKeyID(KeyID(c), c))
	assert.False(t, MatchKeyID("SN=1,CA=CN=other", c))
}

func TestRenderDNOpenSSL(t *testing.T) {
	t.Parallel()
	atv := func(oid asn1.ObjectIdentifier, tag int, b []byte) []byte {
		v, err := asn1.Marshal(struct {
			T asn1.ObjectIdentifier
			V asn1.RawValue
		}{oid, asn1.RawValue{Tag: tag, Bytes: b}})
		require.NoError(t, err)
		return v
	}
	set := func(atvs ...[]byte) asn1.RawValue {
		var b []byte
		for _, a := range atvs {
			b = append(b, a...)
		}
		return asn1.RawValue{Tag: asn1.TagSet, IsCompound: true, Bytes: b}
	}
	name := func(sets ...asn1.RawValue) []byte {
		b, err := asn1.Marshal(sets)
		require.NoError(t, err)
		return b
	}
	cn := asn1.ObjectIdentifier{2, 5, 4, 3}
	tests := []struct {
		name string
		raw  []byte
		want string
		err  bool
	}{
		{name: "empty name", raw: name(), want: ""},
		{name: "latin-1 teletex", raw: name(set(atv(cn, asn1.TagT61String, []byte("Troms\xf8")))), want: "CN=Tromsø"},
		{name: "universal string", raw: name(set(atv(cn, 28, []byte{0, 0, 0, 'a', 0, 0, 0, 0xe5}))), want: "CN=aå"},
		{name: "DEL and NUL escaped", raw: name(set(atv(cn, asn1.TagUTF8String, []byte("a\x7fb\x00")))), want: `CN=a\7Fb\00`},
		{name: "integer value as hex", raw: name(set(atv(cn, asn1.TagInteger, []byte{5}))), want: "CN=#020105"},
		{name: "OID type", raw: []byte{0x30, 0x0c, 0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x2a, 0x03, 0x04, 0x0c, 0x01, 'x'}, want: "1.2.3.4=#0C0178"},
		{name: "OID with a useless 0x80", raw: []byte{0x30, 0x0c, 0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x2a, 0x80, 0x04, 0x0c, 0x01, 'x'}, err: true},
		{name: "OID unterminated", raw: []byte{0x30, 0x0c, 0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x2a, 0x03, 0x84, 0x0c, 0x01, 'x'}, err: true},
		{name: "type not an OID", raw: name(set([]byte{0x30, 0x06, 0x0c, 0x01, 'x', 0x0c, 0x01, 'y'})), err: true},
		{name: "invalid UTF-8 as hex", raw: name(set(atv(cn, asn1.TagUTF8String, []byte{0xff}))), want: "CN=#0C01FF"},
		{name: "odd BMP as hex", raw: name(set(atv(cn, asn1.TagBMPString, []byte{0, 'a', 0}))), want: "CN=#1E03006100"},
		{name: "not DER", raw: []byte{0x30, 0x05, 0x01}, err: true},
		{name: "trailing data", raw: append(name(), 0), err: true},
		{name: "RDN not a SET", raw: name(asn1.RawValue{Tag: asn1.TagSequence, IsCompound: true, Bytes: atv(cn, asn1.TagUTF8String, []byte("x"))}), err: true},
		{name: "empty RDN", raw: name(set()), err: true},
		{name: "bad attribute", raw: name(set([]byte{0x02, 0x01, 0x01})), err: true},
		{name: "too long", raw: make([]byte, maxDNLen+1), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := RenderDNOpenSSL(tt.raw)
			if tt.err {
				require.ErrorIs(t, err, ErrMalformedInput)
				_, err = RenderDN(tt.raw)
				require.ErrorIs(t, err, ErrMalformedInput)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzRenderDN(f *testing.F) {
	entries, err := os.ReadDir("testdata/issuers")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile("testdata/issuers/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		block, _ := pem.Decode(data)
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			f.Add(c.RawIssuer)
		}
	}
	f.Add([]byte{0x30, 0x00})
	f.Add([]byte{0x30, 0x80})
	f.Fuzz(func(t *testing.T, raw []byte) {
		attrs, perr := parseName(raw)
		for _, render := range []func([]byte) (string, error){RenderDN, RenderDNOpenSSL} {
			dn, err := render(raw)
			if err != nil {
				require.ErrorIs(t, err, ErrMalformedInput)
				require.Empty(t, dn)
				require.Error(t, perr)
				continue
			}
			require.NoError(t, perr)
			require.True(t, utf8.ValidString(dn), "rendered names are valid UTF-8")
			// What either renderer writes parses back to the same name.
			got, err := parseDNString(dn)
			require.NoError(t, err, dn)
			require.True(t, sameName(got, attrs), dn)
		}
	})
}
