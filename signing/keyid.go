package signing

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// KeyID returns the keyId the interface expects for cert (SERVICE.md 5.4):
// "SN=<serial in upper-case hex>,CA=<issuer DN>", the DN rendered from the
// certificate's raw issuer in RFC 2253 order the way
// `openssl x509 -issuer -nameopt RFC2253` prints it, with attribute names
// such as organizationIdentifier written by name and non-ASCII characters
// kept as UTF-8.
func KeyID(cert *x509.Certificate) string {
	return "SN=" + strings.ToUpper(cert.SerialNumber.Text(16)) + ",CA=" + IssuerDN(cert)
}

// IssuerDN renders the certificate's raw issuer name in RFC 2253 form: the
// last RDN first, multi-valued RDNs joined with "+", special characters
// escaped with a backslash.
func IssuerDN(cert *x509.Certificate) string {
	dn, err := RenderDN(cert.RawIssuer)
	if err != nil {
		return cert.Issuer.String()
	}
	return dn
}

// attrNames are the names OpenSSL prints for attribute types (its short
// names, or the long name where there is no short one).
var attrNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.4":                    "SN",
	"2.5.4.5":                    "serialNumber",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.9":                    "street",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.12":                   "title",
	"2.5.4.13":                   "description",
	"2.5.4.15":                   "businessCategory",
	"2.5.4.17":                   "postalCode",
	"2.5.4.41":                   "name",
	"2.5.4.42":                   "GN",
	"2.5.4.43":                   "initials",
	"2.5.4.44":                   "generationQualifier",
	"2.5.4.46":                   "dnQualifier",
	"2.5.4.65":                   "pseudonym",
	"2.5.4.97":                   "organizationIdentifier",
	"0.9.2342.19200300.100.1.1":  "UID",
	"0.9.2342.19200300.100.1.25": "DC",
	"1.2.840.113549.1.9.1":       "emailAddress",
	"1.3.6.1.4.1.311.60.2.1.1":   "jurisdictionL",
	"1.3.6.1.4.1.311.60.2.1.2":   "jurisdictionST",
	"1.3.6.1.4.1.311.60.2.1.3":   "jurisdictionC",
}

// RenderDN renders a DER-encoded X.501 Name in RFC 2253 order as OpenSSL's
// -nameopt RFC2253 does, except that non-ASCII characters stay UTF-8.
// Attribute types OpenSSL does not name are written as dotted OIDs with the
// value as "#" and the hex of its DER encoding.
func RenderDN(rawName []byte) (string, error) {
	var seq []asn1.RawValue
	rest, err := asn1.Unmarshal(rawName, &seq)
	if err != nil || len(rest) != 0 {
		return "", fmt.Errorf("%w: issuer name", ErrMalformedInput)
	}
	var rdns []string
	for _, set := range seq {
		var atvs []rawATV
		if _, err := asn1.UnmarshalWithParams(set.FullBytes, &atvs, "set"); err != nil {
			return "", fmt.Errorf("%w: issuer RDN", ErrMalformedInput)
		}
		parts := make([]string, 0, len(atvs))
		for _, atv := range atvs {
			parts = append(parts, renderATV(atv))
		}
		rdns = append(rdns, strings.Join(parts, "+"))
	}
	var b strings.Builder
	for i := len(rdns) - 1; i >= 0; i-- {
		b.WriteString(rdns[i])
		if i > 0 {
			b.WriteByte(',')
		}
	}
	return b.String(), nil
}

type rawATV struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

func renderATV(atv rawATV) string {
	name, known := attrNames[atv.Type.String()]
	if !known {
		return atv.Type.String() + "=#" + strings.ToUpper(hex.EncodeToString(atv.Value.FullBytes))
	}
	s, ok := stringValue(atv.Value)
	if !ok {
		return name + "=#" + strings.ToUpper(hex.EncodeToString(atv.Value.FullBytes))
	}
	return name + "=" + escapeRFC2253(s)
}

// stringValue decodes the directory string types; ok is false for anything
// else.
func stringValue(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagNumericString:
		if !utf8.Valid(v.Bytes) {
			return "", false
		}
		return string(v.Bytes), true
	case asn1.TagT61String:
		// Treated as ISO 8859-1, as OpenSSL does.
		r := make([]rune, len(v.Bytes))
		for i, c := range v.Bytes {
			r[i] = rune(c)
		}
		return string(r), true
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false
		}
		r := make([]rune, 0, len(v.Bytes)/2)
		for i := 0; i < len(v.Bytes); i += 2 {
			r = append(r, rune(v.Bytes[i])<<8|rune(v.Bytes[i+1]))
		}
		return string(r), true
	case 28: // UniversalString, UCS-4
		if len(v.Bytes)%4 != 0 {
			return "", false
		}
		r := make([]rune, 0, len(v.Bytes)/4)
		for i := 0; i < len(v.Bytes); i += 4 {
			r = append(r, rune(v.Bytes[i])<<24|rune(v.Bytes[i+1])<<16|rune(v.Bytes[i+2])<<8|rune(v.Bytes[i+3]))
		}
		return string(r), true
	}
	return "", false
}

// escapeRFC2253 escapes a value the way OpenSSL's esc_2253 and esc_ctrl
// flags do: a backslash before , + " \ < > ; and before a leading # or
// space or a trailing space; control characters as \XX.
func escapeRFC2253(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' || c == '>' || c == ';':
			b.WriteByte('\\')
			b.WriteByte(c)
		case (c == '#' || c == ' ') && i == 0, c == ' ' && i == len(s)-1:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
