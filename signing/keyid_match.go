package signing

import (
	"bytes"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"strings"
)

// MatchKeyID reports whether keyID names cert: "SN=<serial>,CA=<issuer>"
// with the serial written exactly as [KeyID] writes it (upper-case hex, no
// padding) and an issuer that, parsed as an RFC 2253 string, is the
// certificate's issuer. The issuer may be written as [KeyID] writes it
// (strict RFC 2253, Java's form), as [KeyIDOpenSSL] writes it (OpenSSL's
// keywords such as organizationIdentifier, values decoded), or in any mix:
//
//   - attribute types by keyword, case-insensitive (RFC 2253's, OpenSSL's
//     and Java's keywords), or as a dotted OID, optionally after "OID.";
//   - values as strings with RFC 2253 escapes (\, \= \# \\ ..., \XX hex
//     pairs, UTF-8 as several pairs), in double quotes, or as "#" and the
//     hex of their DER encoding, which must equal the certificate's bytes;
//   - a string value equals the certificate's when it is its text
//     (UTF8String, BMPString and UniversalString decoded, the one-byte
//     types as ISO 8859-1) or Java's reading of its bytes as UTF-8;
//   - RDNs in reverse order of the certificate's (most significant last),
//     the attributes of a multi-valued RDN in any order.
//
// Comparison is exact otherwise: no case folding and no whitespace
// collapsing beyond unescaped spaces around types and values.
func MatchKeyID(keyID string, cert *x509.Certificate) bool {
	if cert == nil {
		return false
	}
	rest, ok := strings.CutPrefix(keyID, "SN=")
	if !ok {
		return false
	}
	sn, dn, ok := strings.Cut(rest, ",CA=")
	if !ok || sn != serialHex(cert) {
		return false
	}
	want, err := parseName(cert.RawIssuer)
	if err != nil {
		return dn == IssuerDN(cert)
	}
	got, err := parseDNString(dn)
	if err != nil {
		return false
	}
	return sameName(got, want)
}

// dnValue is one attribute of a parsed RFC 2253 string: its dotted type and
// either the unescaped text or, for a "#" value, the DER bytes.
type dnValue struct {
	oid  string
	text string
	der  []byte // non-nil for a "#" hex value
}

var errDNSyntax = errors.New("signing: malformed RFC 2253 name")

// keywordOIDs maps upper-case attribute type keywords to dotted OIDs:
// RFC 2253's, OpenSSL's (attrNames) and Java's (AVAKeyword).
var keywordOIDs = func() map[string]string {
	m := map[string]string{
		"S": "2.5.4.8", "T": "2.5.4.12", "IP": "1.3.6.1.4.1.42.2.11.2.1",
		"DNQ": "2.5.4.46", "DNQUALIFIER": "2.5.4.46", "SURNAME": "2.5.4.4",
		"GIVENNAME": "2.5.4.42", "INITIALS": "2.5.4.43", "GENERATION": "2.5.4.44",
		"EMAIL": "1.2.840.113549.1.9.1", "EMAILADDRESS": "1.2.840.113549.1.9.1",
		"SERIALNUMBER": "2.5.4.5",
	}
	for oid, kw := range attrNames {
		m[strings.ToUpper(kw)] = oid
	}
	for oid, kw := range rfc2253Keywords {
		m[kw] = oid
	}
	return m
}()

// attrOID resolves an attribute type written in a DN string.
func attrOID(typ string) (string, bool) {
	if t, ok := strings.CutPrefix(strings.ToUpper(typ), "OID."); ok {
		typ = t
	}
	if typ == "" {
		return "", false
	}
	if c := typ[0]; c < '0' || c > '9' {
		oid, ok := keywordOIDs[strings.ToUpper(typ)]
		return oid, ok
	}
	for arc := range strings.SplitSeq(typ, ".") {
		if arc == "" || strings.Trim(arc, "0123456789") != "" || (len(arc) > 1 && arc[0] == '0') {
			return "", false
		}
	}
	return typ, true
}

// parseDNString parses an RFC 2253 string into its RDNs, in string order.
// An empty string is the empty name.
func parseDNString(s string) ([][]dnValue, error) {
	if strings.Trim(s, " ") == "" {
		return nil, nil
	}
	var rdns [][]dnValue
	var cur []dnValue
	for {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || strings.ContainsAny(s[:eq], ",+\\\"") {
			return nil, errDNSyntax
		}
		oid, ok := attrOID(strings.Trim(s[:eq], " "))
		if !ok {
			return nil, errDNSyntax
		}
		v, n, err := parseDNValue(s[eq+1:])
		if err != nil {
			return nil, err
		}
		v.oid = oid
		cur = append(cur, v)
		s = s[eq+1+n:]
		if s == "" {
			return append(rdns, cur), nil
		}
		if s[0] == ',' {
			rdns = append(rdns, cur)
			cur = nil
		}
		s = s[1:]
	}
}

// parseDNValue reads one attribute value at the start of s, up to an
// unescaped "," or "+" or the end; n is the length read (the separator not
// included).
func parseDNValue(s string) (v dnValue, n int, err error) {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	// end skips trailing spaces and checks that a separator or the end
	// follows.
	end := func(i int) (int, error) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] != ',' && s[i] != '+' {
			return 0, errDNSyntax
		}
		return i, nil
	}
	switch {
	case i < len(s) && s[i] == '#':
		j := i + 1
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
		der, err := hex.DecodeString(s[i+1 : j])
		if err != nil || len(der) == 0 {
			return v, 0, errDNSyntax
		}
		var raw asn1.RawValue
		if rest, err := asn1.Unmarshal(der, &raw); err != nil || len(rest) != 0 {
			return v, 0, errDNSyntax
		}
		v.der = der
		n, err = end(j)
		return v, n, err
	case i < len(s) && s[i] == '"':
		var b []byte
		j := i + 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' {
				c, w, ok := unescapeDN(s[j:])
				if !ok {
					return v, 0, errDNSyntax
				}
				b = append(b, c)
				j += w - 1
				continue
			}
			b = append(b, s[j])
		}
		if j == len(s) {
			return v, 0, errDNSyntax
		}
		v.text = string(b)
		n, err = end(j + 1)
		return v, n, err
	}
	var b []byte
	kept := 0 // length of b up to the last escaped character
	for ; i < len(s) && s[i] != ',' && s[i] != '+'; i++ {
		switch s[i] {
		case '\\':
			c, w, ok := unescapeDN(s[i:])
			if !ok {
				return v, 0, errDNSyntax
			}
			b = append(b, c)
			kept = len(b)
			i += w - 1
		case '"':
			return v, 0, errDNSyntax
		default:
			b = append(b, s[i])
		}
	}
	t := len(b)
	for t > kept && b[t-1] == ' ' {
		t--
	}
	v.text = string(b[:t])
	return v, i, nil
}

// unescapeDN reads the escape at the start of s (s[0] == '\\'): a hex pair
// gives its byte, any other character is itself. w is the length read.
func unescapeDN(s string) (c byte, w int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	if len(s) >= 3 {
		if h, err := hex.DecodeString(s[1:3]); err == nil {
			return h[0], 3, true
		}
	}
	return s[1], 2, true
}

// sameName compares a parsed DN string (string order) with a certificate's
// name (encoded order).
func sameName(got [][]dnValue, want []nameAttr) bool {
	var sets [][]nameAttr
	for i, a := range want {
		if i == 0 || a.set != want[i-1].set {
			sets = append(sets, nil)
		}
		sets[len(sets)-1] = append(sets[len(sets)-1], a)
	}
	if len(got) != len(sets) {
		return false
	}
	for i, rdn := range got {
		set := sets[len(sets)-1-i]
		if len(rdn) != len(set) {
			return false
		}
		used := make([]bool, len(set))
		for _, v := range rdn {
			found := false
			for j, a := range set {
				if !used[j] && a.oid == v.oid && valueMatches(v, a.value) {
					used[j], found = true, true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// valueMatches compares one value of a DN string with the certificate's.
func valueMatches(v dnValue, raw asn1.RawValue) bool {
	if v.der != nil {
		return bytes.Equal(v.der, raw.FullBytes)
	}
	if s, ok := stringValue(raw); ok && s == v.text {
		return true
	}
	return javaStringTag(raw) && javaUTF8(raw.Bytes) == v.text
}
