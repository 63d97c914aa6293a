package signing

import (
	"bufio"
	"crypto/x509"
	"encoding/hex"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readJavaTable reads a TSV recorded by testdata/java/JavaRFC2253.java: its
// columns, with the last one (a Go quoted string) unquoted. The tests never
// run Java.
func readJavaTable(t *testing.T, path string, cols int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row := strings.Split(line, "\t")
		require.Len(t, row, cols, line)
		require.False(t, strings.HasPrefix(row[cols-1], "ERROR"), line)
		row[cols-1], err = strconv.Unquote(row[cols-1])
		require.NoError(t, err, line)
		rows = append(rows, row)
	}
	require.NoError(t, sc.Err())
	return rows
}

func big16(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	return n
}

// TestKeyIDAgainstJava checks KeyID byte for byte against what Java's
// X500Principal.getName("RFC2253") and BigInteger.toString(16) gave for
// every certificate of testdata/issuers.
func TestKeyIDAgainstJava(t *testing.T) {
	t.Parallel()
	rows := readJavaTable(t, "testdata/issuers-java.tsv", 3)
	entries, err := os.ReadDir("testdata/issuers")
	require.NoError(t, err)
	require.Len(t, rows, len(entries), "one line per certificate")
	for _, row := range rows {
		file, serial, java := row[0], row[1], row[2]
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			cert := readCert(t, "testdata/issuers/"+file)
			dn, err := RenderDN(cert.RawIssuer)
			require.NoError(t, err)
			assert.Equal(t, java, dn)
			assert.Equal(t, java, IssuerDN(cert))
			want := "SN=" + serial + ",CA=" + java
			assert.Equal(t, want, KeyID(cert))
			assert.True(t, MatchKeyID(want, cert))
			assert.True(t, MatchKeyID(KeyIDOpenSSL(cert), cert))
			// The strict form never names a type outside RFC 2253's table.
			for _, kw := range []string{"organizationIdentifier=", "emailAddress=", "serialNumber="} {
				assert.NotContains(t, dn, kw)
			}
		})
	}
}

// TestRenderDNAgainstJava covers what certificates Go parses cannot carry:
// malformed UTF-8 of every kind, the string types Java does not read as
// text, non-string values, OIDs with huge arcs, multi-valued RDNs.
func TestRenderDNAgainstJava(t *testing.T) {
	t.Parallel()
	rows := readJavaTable(t, "testdata/names-java.tsv", 3)
	require.GreaterOrEqual(t, len(rows), 50)
	for _, row := range rows {
		t.Run(row[0], func(t *testing.T) {
			t.Parallel()
			raw, err := hex.DecodeString(row[1])
			require.NoError(t, err)
			dn, err := RenderDN(raw)
			require.NoError(t, err)
			assert.Equal(t, row[2], dn)
			assert.True(t, utf8.ValidString(dn))
			attrs, err := parseName(raw)
			require.NoError(t, err)
			got, err := parseDNString(dn)
			require.NoError(t, err)
			assert.True(t, sameName(got, attrs), "the rendering parses back to the name")
		})
	}
}

func TestJavaUTF8(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "Tromsø", "😀€"} {
		assert.Equal(t, s, javaUTF8([]byte(s)))
	}
	// The cases of names-java.tsv, in isolation.
	assert.Equal(t, "a\uFFFD", javaUTF8([]byte("a\xe2\x82")))
	assert.Equal(t, "\uFFFD\uFFFD\uFFFD", javaUTF8([]byte("\xe0\x80\x80")))
	assert.Equal(t, "\uFFFDx", javaUTF8([]byte("\xed\xa0\x80x")))
	assert.Equal(t, "\uFFFDAB", javaUTF8([]byte("\xf0\x9fAB")))
}

// TestMatchKeyID: the emulator's keyId check accepts the strict and the
// OpenSSL rendering and anything that parses to the same issuer, and
// nothing else.
func TestMatchKeyID(t *testing.T) {
	t.Parallel()
	qtsp := readCert(t, "testdata/issuers/qtsp-orgid.pem")
	multi := readCert(t, "testdata/issuers/multi-valued.pem")
	nordic := readCert(t, "testdata/issuers/nordic-letters.pem")
	bmp := readCert(t, "testdata/issuers/bmp-letters.pem")
	escapes := readCert(t, "testdata/issuers/escapes.pem")
	tests := []struct {
		name  string
		cert  *x509.Certificate
		keyID string
		ok    bool
	}{
		{"strict", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,2.5.4.97=#0c0f4e54524e4f2d393833313633333237,O=Buypass AS,C=NO", true},
		{"OpenSSL", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,organizationIdentifier=NTRNO-983163327,O=Buypass AS,C=NO", true},
		{"upper-case hex and OID. prefix", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,OID.2.5.4.97=#0C0F4E54524E4F2D393833313633333237,O=Buypass AS,C=NO", true},
		{"keywords in any case, spaces around", qtsp, "SN=9FA1,CA=cn = Buypass Class 3 CA G2 ST Business , ORGANIZATIONIDENTIFIER=NTRNO-983163327,o=Buypass AS,c=NO", true},
		{"quoted value", qtsp, `SN=9FA1,CA=CN="Buypass Class 3 CA G2 ST Business",2.5.4.97=NTRNO-983163327,O=Buypass AS,C=NO`, true},
		{"hex for a keyword type", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,2.5.4.97=NTRNO-983163327,O=#0c0a42757970617373204153,C=NO", true},
		{"hex of another string type", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,2.5.4.97=#130f4e54524e4f2d393833313633333237,O=Buypass AS,C=NO", false},
		{"lower-case serial", qtsp, "SN=9fa1,CA=CN=Buypass Class 3 CA G2 ST Business,organizationIdentifier=NTRNO-983163327,O=Buypass AS,C=NO", false},
		{"padded serial", qtsp, "SN=009FA1,CA=CN=Buypass Class 3 CA G2 ST Business,organizationIdentifier=NTRNO-983163327,O=Buypass AS,C=NO", false},
		{"RDNs in DER order", qtsp, "SN=9FA1,CA=C=NO,O=Buypass AS,organizationIdentifier=NTRNO-983163327,CN=Buypass Class 3 CA G2 ST Business", false},
		{"RDN missing", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,O=Buypass AS,C=NO", false},
		{"value differs in case", qtsp, "SN=9FA1,CA=CN=buypass Class 3 CA G2 ST Business,organizationIdentifier=NTRNO-983163327,O=Buypass AS,C=NO", false},
		{"unknown keyword", qtsp, "SN=9FA1,CA=CN=Buypass Class 3 CA G2 ST Business,orgId=NTRNO-983163327,O=Buypass AS,C=NO", false},
		{"no SN", qtsp, "CA=CN=x", false},
		{"no CA", qtsp, "SN=9FA1", false},
		{"bad hex", qtsp, "SN=9FA1,CA=CN=#0c", false},
		{"unterminated quote", qtsp, `SN=9FA1,CA=CN="x`, false},
		{"multi-valued in DER order", multi, "SN=BC614E,CA=CN=Issuing CA+2.5.4.5=#1309313233343536373839,O=Bank ASA+OU=Payments,C=NO", true},
		{"multi-valued reversed", multi, "SN=BC614E,CA=serialNumber=123456789+CN=Issuing CA,OU=Payments+O=Bank ASA,C=NO", true},
		{"multi-valued split", multi, "SN=BC614E,CA=serialNumber=123456789,CN=Issuing CA,OU=Payments+O=Bank ASA,C=NO", false},
		{"UTF-8 as hex pairs", nordic, `SN=100,CA=CN=Sparebanken S\C3\B8r CA,O=B\C3\A6reevne \C3\85lesund \C3\98\C3\86\C3\85 \C3\B8\C3\A6\C3\A5,L=Troms\C3\B8,C=NO`, true},
		{"BMPString decoded", bmp, "SN=100FF,CA=CN=CA ø,O=Københavns Æble Å,C=DK", true},
		{"BMPString as Java reads it", bmp, "SN=100FF,CA=" + IssuerDN(bmp), true},
		{"escapes Java", escapes, `SN=1,CA=L=\ spaced out\ ,CN=\#hash leading,OU=a\\b\<c\>d\;e\=f,O=Smith\, Jones \+ Co \"Ltd\",C=NO`, true},
		{"escapes OpenSSL", escapes, `SN=1,CA=L=\ spaced out\ ,CN=\#hash leading,OU=a\\b\<c\>d\;e=f,O=Smith\, Jones \+ Co \"Ltd\",C=NO`, true},
		{"escaped trailing space dropped", escapes, `SN=1,CA=L=\ spaced out ,CN=\#hash leading,OU=a\\b\<c\>d\;e=f,O=Smith\, Jones \+ Co \"Ltd\",C=NO`, false},
		{"unescaped quote", escapes, `SN=1,CA=L=\ spaced out\ ,CN=\#hash leading,OU=a\\b\<c\>d\;e=f,O=Smith\, Jones \+ Co "Ltd",C=NO`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.ok, MatchKeyID(tt.keyID, tt.cert), tt.keyID)
		})
	}
}

// TestKeywordOIDs: no keyword names two types, and RFC 2253's keywords
// keep their own types.
func TestKeywordOIDs(t *testing.T) {
	t.Parallel()
	for oid, kw := range rfc2253Keywords {
		assert.Equal(t, oid, keywordOIDs[kw])
	}
	for oid, kw := range attrNames {
		assert.Equal(t, oid, keywordOIDs[strings.ToUpper(kw)], kw)
	}
	got, ok := attrOID("oid.2.5.4.3")
	assert.True(t, ok)
	assert.Equal(t, "2.5.4.3", got)
	for _, bad := range []string{"", "2..5", "2.05", "2.x", "nosuch"} {
		_, ok := attrOID(bad)
		assert.False(t, ok, bad)
	}
}
