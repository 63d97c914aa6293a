package signing

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// KeyID returns the keyId the interface expects for cert (docs/interface.md
// section 5.4): "SN=<serial>,CA=<issuer DN per RFC 2253>".
//
// The serial is the certificate's serial number in upper-case hexadecimal
// with no leading zeros and no separators, as Java's
// BigInteger.toString(16).toUpperCase() writes it: serial 10 is "A", serial
// 256 is "100". This is the form of the Berlin Group examples
// ("SN=9FA1,CA=...") and of the TPP implementations known to work against
// the platform. It differs from `openssl x509 -serial`, which pads to whole
// bytes ("0A", "0100"). A zero serial is "0"; a negative one (invalid in
// X.509, but possible in a hand-built certificate) is written with a
// leading "-".
//
// The issuer is [IssuerDN]: strict RFC 2253, byte for byte what Java's
// X500Principal.getName("RFC2253") writes, as the production TPP agents for
// the platform send it. [KeyIDOpenSSL] is the same with OpenSSL's display
// form of the issuer, for a bank that wants that. KeyID returns "" for a nil
// certificate.
func KeyID(cert *x509.Certificate) string {
	if cert == nil {
		return ""
	}
	return "SN=" + serialHex(cert) + ",CA=" + IssuerDN(cert)
}

// KeyIDOpenSSL is [KeyID] with the issuer rendered by [IssuerDNOpenSSL]
// (`organizationIdentifier=NTRNO-...` where KeyID writes
// `2.5.4.97=#0c0f...`). Pass it to the client's WithKeyID option for a bank
// that expects OpenSSL's form.
func KeyIDOpenSSL(cert *x509.Certificate) string {
	if cert == nil {
		return ""
	}
	return "SN=" + serialHex(cert) + ",CA=" + IssuerDNOpenSSL(cert)
}

// serialHex is the serial number as KeyID writes it.
func serialHex(cert *x509.Certificate) string {
	if cert.SerialNumber == nil {
		return "0"
	}
	return strings.ToUpper(cert.SerialNumber.Text(16))
}

// IssuerDN renders the certificate's raw issuer with [RenderDN] (strict RFC
// 2253, as Java writes it). When the raw issuer cannot be parsed it falls
// back to Go's rendering of the parsed issuer.
func IssuerDN(cert *x509.Certificate) string {
	if cert == nil {
		return ""
	}
	dn, err := RenderDN(cert.RawIssuer)
	if err != nil {
		return cert.Issuer.String()
	}
	return dn
}

// maxDNLen bounds the names [RenderDN] and [RenderDNOpenSSL] read; real
// issuer names are a few hundred bytes.
const maxDNLen = 64 << 10

// rfc2253Keywords are the only attribute types RFC 2253 (section 2.3) writes
// by keyword. Every other type is written as its dotted OID.
var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.6":                    "C",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

// RenderDN renders a DER-encoded X.501 Name as a strict RFC 2253 string,
// byte for byte as Java's X500Principal.getName("RFC2253") does (recorded
// from OpenJDK 17 in testdata/issuers-java.tsv and testdata/names-java.tsv):
//
//   - RDNs in reverse order, the last one first, joined by ","; the
//     attributes of a multi-valued RDN in their encoded order, joined by
//     "+";
//   - the types of RFC 2253's table by keyword (CN, L, ST, O, OU, C, STREET,
//     DC, UID); every other type (organizationIdentifier, serialNumber,
//     emailAddress, ...) as its dotted OID, with the value as "#" and the
//     lower-case hex of its DER encoding (RFC 2253 section 2.4);
//   - a value that is not a PrintableString, TeletexString, IA5String,
//     GeneralString, BMPString or UTF8String is "#" hex too;
//   - the bytes of a string value are read as UTF-8, whatever its type, as
//     Java does: a BMPString "CA" is "\00C\00A" and an ISO 8859-1 "ø" in a
//     TeletexString is U+FFFD (see javaUTF8);
//   - a backslash before , = + < > # ; " and \ wherever they occur, NUL as
//     \00, and a backslash before each leading and trailing space or
//     carriage return; every other character, control characters and
//     non-ASCII ones included, as it is.
//
// A name that is not valid DER gives an error wrapping [ErrMalformedInput].
func RenderDN(rawName []byte) (string, error) {
	attrs, err := parseName(rawName)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(2 * len(rawName))
	for end := len(attrs); end > 0; {
		start := end - 1
		for start > 0 && attrs[start-1].set == attrs[end-1].set {
			start--
		}
		if end < len(attrs) {
			b.WriteByte(',')
		}
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte('+')
			}
			writeATVJava(&b, attrs[i])
		}
		end = start
	}
	return b.String(), nil
}

func writeATVJava(b *strings.Builder, a nameAttr) {
	kw, known := rfc2253Keywords[a.oid]
	if known && javaStringTag(a.value) {
		b.WriteString(kw)
		b.WriteByte('=')
		escapeJava(b, javaUTF8(a.value.Bytes))
		return
	}
	if known {
		b.WriteString(kw)
	} else {
		b.WriteString(a.oid)
	}
	b.WriteString("=#")
	b.WriteString(hex.EncodeToString(a.value.FullBytes))
}

// javaStringTag reports whether Java renders v as a string: the universal,
// primitive PrintableString, TeletexString, IA5String, GeneralString,
// BMPString and UTF8String.
func javaStringTag(v asn1.RawValue) bool {
	if v.Class != asn1.ClassUniversal || v.IsCompound {
		return false
	}
	switch v.Tag {
	case asn1.TagPrintableString, asn1.TagT61String, asn1.TagIA5String,
		tagGeneralString, asn1.TagBMPString, asn1.TagUTF8String:
		return true
	}
	return false
}

// escapeJava writes s escaped as Java's AVA.toRFC2253String does.
func escapeJava(b *strings.Builder, s string) {
	const escapees = `,=+<>#;"\`
	buf := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(escapees, c) >= 0:
			buf = append(buf, '\\', c)
		case c == 0:
			buf = append(buf, `\00`...)
		default:
			buf = append(buf, c)
		}
	}
	white := func(c byte) bool { return c == ' ' || c == '\r' }
	lead := 0
	for lead < len(buf) && white(buf[lead]) {
		lead++
	}
	trail := len(buf) - 1
	for trail >= 0 && white(buf[trail]) {
		trail--
	}
	for i, c := range buf {
		if i < lead || i > trail {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
}

// javaUTF8 reads p as Java's new String(p, UTF_8) does (OpenJDK 17 to 25):
// valid UTF-8 as is, and each malformed sequence as one U+FFFD, where a
// sequence is what Java's decoder takes as one: a lone byte, a truncated
// lead with its continuation bytes, an encoded surrogate (three bytes, one
// U+FFFD). A truncated sequence at the very end also takes its
// continuation bytes. The result is always valid UTF-8.
func javaUTF8(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	const repl = '\uFFFD'
	cont := func(c byte) bool { return c&0xc0 == 0x80 }
	var b strings.Builder
	b.Grow(len(p) + 8)
	sp, sl := 0, len(p)
loop:
	for sp < sl {
		b1 := p[sp]
		sp++
		switch {
		case b1 < 0x80:
			b.WriteByte(b1)
		case b1 >= 0xc2 && b1 <= 0xdf:
			if sp < sl {
				b2 := p[sp]
				sp++
				if !cont(b2) {
					b.WriteRune(repl)
					sp--
				} else {
					b.WriteRune(rune(b1&0x1f)<<6 | rune(b2&0x3f))
				}
				continue
			}
			b.WriteRune(repl)
			break loop
		case b1 >= 0xe0 && b1 <= 0xef:
			malformed2 := func(b2 byte) bool { return (b1 == 0xe0 && b2&0xe0 == 0x80) || !cont(b2) }
			if sp+1 < sl {
				b2, b3 := p[sp], p[sp+1]
				sp += 2
				if malformed2(b2) || !cont(b3) {
					b.WriteRune(repl)
					sp -= 2
					if !malformed2(b2) {
						sp++
					}
					continue
				}
				r := rune(b1&0x0f)<<12 | rune(b2&0x3f)<<6 | rune(b3&0x3f)
				if r >= 0xd800 && r <= 0xdfff {
					r = repl
				}
				b.WriteRune(r)
				continue
			}
			if sp < sl && malformed2(p[sp]) {
				b.WriteRune(repl)
				continue
			}
			b.WriteRune(repl)
			break loop
		case b1 >= 0xf0 && b1 <= 0xf7:
			malformed2 := func(b2 byte) bool {
				return b1 > 0xf4 || (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) ||
					(b1 == 0xf4 && b2&0xf0 != 0x80) || !cont(b2)
			}
			if sp+2 < sl {
				b2, b3, b4 := p[sp], p[sp+1], p[sp+2]
				r := rune(b1&0x07)<<18 | rune(b2&0x3f)<<12 | rune(b3&0x3f)<<6 | rune(b4&0x3f)
				if !cont(b2) || !cont(b3) || !cont(b4) || r < 0x10000 || r > 0x10ffff {
					b.WriteRune(repl)
					switch {
					case malformed2(b2):
					case !cont(b3):
						sp++
					default:
						sp += 2
					}
					continue
				}
				sp += 3
				b.WriteRune(r)
				continue
			}
			if b1 > 0xf4 || sp < sl && malformed2(p[sp]) {
				b.WriteRune(repl)
				continue
			}
			sp++
			b.WriteRune(repl)
			if sp < sl && !cont(p[sp]) {
				continue
			}
			break loop
		default:
			b.WriteRune(repl)
		}
	}
	return b.String()
}

// nameAttr is one attribute of a parsed Name: set is the index of its RDN
// in encoded order, oid the dotted type, value the raw value.
type nameAttr struct {
	set   int
	oid   string
	value asn1.RawValue
}

// Universal string tags encoding/asn1 does not name.
const (
	tagVisibleString   = 26
	tagGeneralString   = 27
	tagUniversalString = 28
)

// parseName splits a DER Name into its attributes, in encoded order.
func parseName(rawName []byte) ([]nameAttr, error) {
	if len(rawName) > maxDNLen {
		return nil, fmt.Errorf("%w: name too long", ErrMalformedInput)
	}
	var rdns []asn1.RawValue
	rest, err := asn1.Unmarshal(rawName, &rdns)
	if err != nil || len(rest) != 0 {
		return nil, fmt.Errorf("%w: not a DER name", ErrMalformedInput)
	}
	var attrs []nameAttr
	for i, set := range rdns {
		if set.Class != asn1.ClassUniversal || set.Tag != asn1.TagSet || !set.IsCompound {
			return nil, fmt.Errorf("%w: RDN is not a SET", ErrMalformedInput)
		}
		body := set.Bytes
		if len(body) == 0 {
			return nil, fmt.Errorf("%w: empty RDN", ErrMalformedInput)
		}
		for len(body) > 0 {
			var atv struct {
				Type  asn1.RawValue
				Value asn1.RawValue
			}
			body, err = asn1.Unmarshal(body, &atv)
			if err != nil || atv.Type.Class != asn1.ClassUniversal || atv.Type.Tag != asn1.TagOID || atv.Type.IsCompound {
				return nil, fmt.Errorf("%w: bad attribute in RDN", ErrMalformedInput)
			}
			oid, ok := oidText(atv.Type.Bytes)
			if !ok {
				return nil, fmt.Errorf("%w: bad attribute type", ErrMalformedInput)
			}
			attrs = append(attrs, nameAttr{set: i, oid: oid, value: atv.Value})
		}
	}
	return attrs, nil
}

// oidText writes the DER body of an OBJECT IDENTIFIER in dotted form, with
// arcs of any size. ok is false for an empty or unterminated encoding and
// for a subidentifier with a useless leading 0x80 octet (which Java refuses
// too).
func oidText(p []byte) (string, bool) {
	if len(p) == 0 || p[len(p)-1]&0x80 != 0 {
		return "", false
	}
	var b strings.Builder
	first := true
	for len(p) > 0 {
		if p[0] == 0x80 {
			return "", false
		}
		n := 0
		for p[n]&0x80 != 0 {
			n++
		}
		sub := p[:n+1]
		p = p[n+1:]
		if len(sub) <= 8 {
			var v uint64
			for _, c := range sub {
				v = v<<7 | uint64(c&0x7f)
			}
			if first {
				switch {
				case v < 40:
					b.WriteString("0.")
				case v < 80:
					b.WriteString("1.")
					v -= 40
				default:
					b.WriteString("2.")
					v -= 80
				}
			} else {
				b.WriteByte('.')
			}
			b.WriteString(strconv.FormatUint(v, 10))
		} else {
			v := new(big.Int)
			for _, c := range sub {
				v.Lsh(v, 7)
				v.Or(v, big.NewInt(int64(c&0x7f)))
			}
			if first {
				b.WriteString("2.") // a first subidentifier this large is in arc 2
				v.Sub(v, big.NewInt(80))
			} else {
				b.WriteByte('.')
			}
			b.WriteString(v.String())
		}
		first = false
	}
	return b.String(), true
}
