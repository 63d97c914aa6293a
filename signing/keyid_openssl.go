package signing

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// IssuerDNOpenSSL renders the certificate's raw issuer with
// [RenderDNOpenSSL], the way `openssl x509 -noout -issuer -nameopt RFC2253`
// prints it, except that characters outside ASCII stay UTF-8 where OpenSSL
// escapes each of their bytes as \XX ("Tromsø", not "Troms\C3\B8"). When
// the raw issuer cannot be parsed it falls back to Go's rendering of the
// parsed issuer.
func IssuerDNOpenSSL(cert *x509.Certificate) string {
	if cert == nil {
		return ""
	}
	dn, err := RenderDNOpenSSL(cert.RawIssuer)
	if err != nil {
		return cert.Issuer.String()
	}
	return dn
}

// attrNames are the names OpenSSL 3 prints with -nameopt RFC2253 (its short
// names, or its long name where it has no short one) for the attribute types
// that appear in distinguished names. Types not listed are printed the way
// OpenSSL prints types it does not know: the dotted OID and the value's DER
// in hex.
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
	"2.5.4.14":                   "searchGuide",
	"2.5.4.15":                   "businessCategory",
	"2.5.4.16":                   "postalAddress",
	"2.5.4.17":                   "postalCode",
	"2.5.4.18":                   "postOfficeBox",
	"2.5.4.19":                   "physicalDeliveryOfficeName",
	"2.5.4.20":                   "telephoneNumber",
	"2.5.4.21":                   "telexNumber",
	"2.5.4.22":                   "teletexTerminalIdentifier",
	"2.5.4.23":                   "facsimileTelephoneNumber",
	"2.5.4.24":                   "x121Address",
	"2.5.4.25":                   "internationaliSDNNumber",
	"2.5.4.26":                   "registeredAddress",
	"2.5.4.27":                   "destinationIndicator",
	"2.5.4.28":                   "preferredDeliveryMethod",
	"2.5.4.29":                   "presentationAddress",
	"2.5.4.30":                   "supportedApplicationContext",
	"2.5.4.31":                   "member",
	"2.5.4.32":                   "owner",
	"2.5.4.33":                   "roleOccupant",
	"2.5.4.34":                   "seeAlso",
	"2.5.4.35":                   "userPassword",
	"2.5.4.36":                   "userCertificate",
	"2.5.4.37":                   "cACertificate",
	"2.5.4.38":                   "authorityRevocationList",
	"2.5.4.39":                   "certificateRevocationList",
	"2.5.4.40":                   "crossCertificatePair",
	"2.5.4.41":                   "name",
	"2.5.4.42":                   "GN",
	"2.5.4.43":                   "initials",
	"2.5.4.44":                   "generationQualifier",
	"2.5.4.45":                   "x500UniqueIdentifier",
	"2.5.4.46":                   "dnQualifier",
	"2.5.4.47":                   "enhancedSearchGuide",
	"2.5.4.48":                   "protocolInformation",
	"2.5.4.49":                   "distinguishedName",
	"2.5.4.50":                   "uniqueMember",
	"2.5.4.51":                   "houseIdentifier",
	"2.5.4.52":                   "supportedAlgorithms",
	"2.5.4.53":                   "deltaRevocationList",
	"2.5.4.54":                   "dmdName",
	"2.5.4.65":                   "pseudonym",
	"2.5.4.72":                   "role",
	"2.5.4.97":                   "organizationIdentifier",
	"2.5.4.98":                   "c3",
	"2.5.4.99":                   "n3",
	"2.5.4.100":                  "dnsName",
	"0.9.2342.19200300.100.1.1":  "UID",
	"0.9.2342.19200300.100.1.3":  "mail",
	"0.9.2342.19200300.100.1.25": "DC",
	"1.2.840.113549.1.9.1":       "emailAddress",
	"1.2.840.113549.1.9.2":       "unstructuredName",
	"1.2.840.113549.1.9.8":       "unstructuredAddress",
	"1.3.6.1.4.1.311.60.2.1.1":   "jurisdictionL",
	"1.3.6.1.4.1.311.60.2.1.2":   "jurisdictionST",
	"1.3.6.1.4.1.311.60.2.1.3":   "jurisdictionC",
	"1.2.643.3.131.1.1":          "INN",
	"1.2.643.100.1":              "OGRN",
}

// RenderDNOpenSSL renders a DER-encoded X.501 Name as OpenSSL's
// `-nameopt RFC2253` does (flags esc_2253, esc_ctrl, utf8, dump_unknown,
// dump_der, sep_comma_plus, dn_rev, sname), except that characters outside
// ASCII stay UTF-8 where OpenSSL escapes every byte with the high bit set as
// \XX. This is OpenSSL's display form, not strict RFC 2253 ([RenderDN]):
//
//   - attributes in reverse order, the last RDN first; the attributes of a
//     multi-valued RDN are reversed too and joined with "+";
//   - attribute types by OpenSSL's short name (CN, O, organizationIdentifier,
//     emailAddress, DC, ...); a type OpenSSL does not name is written as its
//     dotted OID with the value as "#" and the upper-case hex of its DER
//     encoding;
//   - a value that is not a character string is also written as "#" hex DER;
//   - a backslash before , + " \ < > ; and before a leading # or space or a
//     trailing space; control characters (below 0x20, and 0x7F) as \XX;
//   - UTF8String as is, BMPString and UniversalString decoded, and the
//     one-byte types (PrintableString, IA5String, TeletexString, ...) read
//     as ISO 8859-1, each byte one character.
//
// A name that is not valid DER gives an error wrapping [ErrMalformedInput].
func RenderDNOpenSSL(rawName []byte) (string, error) {
	attrs, err := parseName(rawName)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(rawName))
	for i := len(attrs) - 1; i >= 0; i-- {
		if i < len(attrs)-1 {
			if attrs[i].set == attrs[i+1].set {
				b.WriteByte('+')
			} else {
				b.WriteByte(',')
			}
		}
		writeATVOpenSSL(&b, attrs[i])
	}
	return b.String(), nil
}

func writeATVOpenSSL(b *strings.Builder, a nameAttr) {
	name, known := attrNames[a.oid]
	if !known {
		b.WriteString(a.oid)
		b.WriteString("=#")
		writeHex(b, a.value.FullBytes)
		return
	}
	b.WriteString(name)
	b.WriteByte('=')
	s, ok := stringValue(a.value)
	if !ok {
		b.WriteByte('#')
		writeHex(b, a.value.FullBytes)
		return
	}
	escapeOpenSSL(b, s)
}

func writeHex(b *strings.Builder, p []byte) {
	b.WriteString(strings.ToUpper(hex.EncodeToString(p)))
}

// stringValue decodes the character string types; ok is false for anything
// else (and for UTF-8, BMP or UCS-4 data that is not well formed).
func stringValue(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal || v.IsCompound {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String:
		if !utf8.Valid(v.Bytes) {
			return "", false
		}
		return string(v.Bytes), true
	case asn1.TagNumericString, asn1.TagPrintableString, asn1.TagT61String,
		asn1.TagIA5String, tagVisibleString:
		return latin1(v.Bytes), true
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false
		}
		u := make([]uint16, len(v.Bytes)/2)
		for i := range u {
			u[i] = uint16(v.Bytes[2*i])<<8 | uint16(v.Bytes[2*i+1])
		}
		return string(utf16.Decode(u)), true
	case tagUniversalString:
		if len(v.Bytes)%4 != 0 {
			return "", false
		}
		r := make([]rune, 0, len(v.Bytes)/4)
		for i := 0; i < len(v.Bytes); i += 4 {
			c := rune(v.Bytes[i])<<24 | rune(v.Bytes[i+1])<<16 | rune(v.Bytes[i+2])<<8 | rune(v.Bytes[i+3])
			if !utf8.ValidRune(c) {
				return "", false
			}
			r = append(r, c)
		}
		return string(r), true
	}
	return "", false
}

// latin1 reads p as ISO 8859-1: every byte is the code point of the same
// value.
func latin1(p []byte) string {
	for _, c := range p {
		if c >= utf8.RuneSelf {
			r := make([]rune, len(p))
			for i, c := range p {
				r[i] = rune(c)
			}
			return string(r)
		}
	}
	return string(p)
}

// escapeOpenSSL writes s escaped as OpenSSL's esc_2253 and esc_ctrl flags
// do: a backslash before , + " \ < > ; and before a leading # or space or a
// trailing space; control characters as \XX. Other characters, including
// non-ASCII ones, are written as they are.
func escapeOpenSSL(b *strings.Builder, s string) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' || c == '>' || c == ';',
			(c == '#' || c == ' ') && i == 0,
			c == ' ' && i == len(s)-1:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte('\\')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
}
