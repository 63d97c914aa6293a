//go:build ignore

// gen.go writes the extra test certificates of ../issuers (the Java-specific
// cases) and prints the raw names of names-java.tsv, as "label<TAB>hex DER"
// lines. It was run once:
//
//	cd signing/testdata && go run java/gen.go > /tmp/names.txt
//
// Certificates that already exist are left alone. Keys are throwaway.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"time"
	"unicode/utf16"
)

type atv struct {
	oid   []byte // DER body of the OBJECT IDENTIFIER
	value []byte // full DER of the value
}

func oid(arcs ...int) []byte {
	b, err := asn1.Marshal(asn1.ObjectIdentifier(arcs))
	if err != nil {
		panic(err)
	}
	return b[2:]
}

// tlv encodes tag (one byte), a DER length and body.
func tlv(tag byte, body []byte) []byte {
	out := []byte{tag}
	n := len(body)
	switch {
	case n < 0x80:
		out = append(out, byte(n))
	case n < 0x100:
		out = append(out, 0x81, byte(n))
	default:
		out = append(out, 0x82, byte(n>>8), byte(n))
	}
	return append(out, body...)
}

func s(tag byte, v string) []byte { return tlv(tag, []byte(v)) }

// bmp encodes v as a BMPString (UTF-16 big-endian, so a character outside
// the BMP becomes a surrogate pair, as some encoders write it).
func bmp(v string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(v)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return tlv(0x1e, b)
}

func rdn(atvs ...atv) []byte {
	var body []byte
	for _, a := range atvs {
		body = append(body, tlv(0x30, append(tlv(0x06, a.oid), a.value...))...)
	}
	return tlv(0x31, body)
}

func name(rdns ...[]byte) []byte {
	var body []byte
	for _, r := range rdns {
		body = append(body, r...)
	}
	return tlv(0x30, body)
}

var (
	cn     = oid(2, 5, 4, 3)
	sn     = oid(2, 5, 4, 4)
	serial = oid(2, 5, 4, 5)
	c      = oid(2, 5, 4, 6)
	l      = oid(2, 5, 4, 7)
	st     = oid(2, 5, 4, 8)
	street = oid(2, 5, 4, 9)
	o      = oid(2, 5, 4, 10)
	ou     = oid(2, 5, 4, 11)
	title  = oid(2, 5, 4, 12)
	gn     = oid(2, 5, 4, 42)
	dnq    = oid(2, 5, 4, 46)
	pseudo = oid(2, 5, 4, 65)
	orgID  = oid(2, 5, 4, 97)
	uid    = oid(0, 9, 2342, 19200300, 100, 1, 1)
	dc     = oid(0, 9, 2342, 19200300, 100, 1, 25)
	email  = oid(1, 2, 840, 113549, 1, 9, 1)
	jurC   = oid(1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 3)
)

const (
	utf8T  = 0x0c
	printT = 0x13
	t61T   = 0x14
	ia5T   = 0x16
	numT   = 0x12
)

func writeCert(file string, serialNo *big.Int, issuer []byte) {
	path := "issuers/" + file
	if _, err := os.Stat(path); err == nil {
		return
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	parent := &x509.Certificate{RawSubject: issuer}
	tmpl := &x509.Certificate{
		SerialNumber: serialNo,
		Subject:      pkix.Name{CommonName: "TPP " + file[:len(file)-4]},
		NotBefore:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	if _, err := x509.ParseCertificate(der); err != nil {
		panic(fmt.Sprint(file, ": ", err))
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		panic(err)
	}
}

func big16(h string) *big.Int {
	n, ok := new(big.Int).SetString(h, 16)
	if !ok {
		panic(h)
	}
	return n
}

func main() {
	// Certificates Go can parse: their issuers go through KeyID.
	writeCert("java-escapes.pem", big16("1F"), name(
		rdn(atv{c, s(printT, "NO")}),
		rdn(atv{o, s(utf8T, "a=b#c @_&*!$%[]{}|~^`")}),
		rdn(atv{ou, s(utf8T, "nul\x00inside")}),
		rdn(atv{l, s(utf8T, "\r lead and trail \r")}),
		rdn(atv{st, s(utf8T, "  two spaces")}),
		rdn(atv{street, s(utf8T, "   ")}),
		rdn(atv{uid, s(utf8T, "del\x7f emoji \U0001F600 euro € tab\tend")}),
		rdn(atv{cn, s(utf8T, "#=+,;<>\"\\ all")}),
	))
	writeCert("string-types.pem", big16("ABCDEF0123456789ABCDEF"), name(
		rdn(atv{c, s(printT, "NO")}),
		rdn(atv{l, s(t61T, "Troms\xf8")}),
		rdn(atv{st, s(t61T, "Troms\xc3\xb8")}),
		rdn(atv{dc, s(ia5T, "no")}),
		rdn(atv{ou, s(numT, "0123 456")}),
		rdn(atv{o, bmp("ASCII only")}),
		rdn(atv{cn, bmp("euro € hangul \uC3B8 ø")}),
	))
	writeCert("keywords.pem", big16("7F"), name(
		rdn(atv{c, s(printT, "NO")}),
		rdn(atv{st, s(utf8T, "Viken")}),
		rdn(atv{l, s(utf8T, "Oslo")}),
		rdn(atv{street, s(utf8T, "Gate 1")}),
		rdn(atv{dc, s(ia5T, "example")}),
		rdn(atv{uid, s(utf8T, "user-1")}),
		rdn(atv{o, s(utf8T, "Org")}, atv{ou, s(utf8T, "Unit")}, atv{orgID, s(utf8T, "PSDNO-FSA-1")}),
		rdn(atv{jurC, s(printT, "NO")}),
		rdn(atv{sn, s(utf8T, "Nordmann")}, atv{gn, s(utf8T, "Ola")}),
		rdn(atv{title, s(utf8T, "CA")}),
		rdn(atv{dnq, s(printT, "q1")}),
		rdn(atv{pseudo, s(utf8T, "ps")}),
		rdn(atv{serial, s(printT, "NTRNO-1")}),
		rdn(atv{email, s(ia5T, "ca@example.no")}),
		rdn(atv{cn, s(utf8T, "Keyword CA")}),
	))

	// Raw names: cases Go's certificate parser refuses, or bytes that only
	// exercise Java's UTF-8 reading.
	invalid := []struct{ label, bytes string }{
		{"lone continuation", "a\x80b"},
		{"overlong two bytes", "a\xc0\xafb"},
		{"C1 lead", "\xc1\xbf"},
		{"two-byte lead at end", "a\xc3"},
		{"two-byte lead then ASCII", "\xc3A"},
		{"three-byte lead at end", "a\xe2"},
		{"three-byte truncated at end", "a\xe2\x82"},
		{"three-byte truncated then ASCII", "\xe2\x82A"},
		{"three-byte bad second", "\xe2AB"},
		{"three-byte overlong", "\xe0\x80\x80"},
		{"three-byte overlong truncated", "\xe0\x80"},
		{"surrogate", "\xed\xa0\x80x"},
		{"surrogate truncated", "\xed\xa0"},
		{"four-byte valid", "\xf0\x9f\x98\x80"},
		{"four-byte truncated at end", "a\xf0\x9f\x98"},
		{"four-byte truncated then ASCII", "\xf0\x9f\x98A"},
		{"four-byte two then ASCII", "\xf0\x9fAB"},
		{"four-byte two at end", "\xf0\x9f"},
		{"four-byte lead at end", "\xf0"},
		{"four-byte overlong", "\xf0\x80\x80\x80"},
		{"four-byte overlong short", "\xf0\x80\x80"},
		{"four-byte too big", "\xf4\x90\x80\x80"},
		{"four-byte too big short", "\xf4\x90\x80"},
		{"F5 lead", "\xf5\x80\x80\x80"},
		{"F5 lead short", "\xf5\x80"},
		{"F8 and FF", "\xf8\xff"},
		{"latin-1 word", "Tromsø"[:5] + "\xf8"},
		{"mixed", "\xc3\xb8\xe2\x82\xac\xe2\x82\xf0\x9f\x98\x80\x80"},
	}
	for _, v := range invalid {
		fmt.Printf("UTF8String %s\t%s\n", v.label, hex.EncodeToString(name(rdn(atv{cn, s(utf8T, v.bytes)}))))
	}
	raw := []struct {
		label string
		der   []byte
	}{
		{"empty name", name()},
		{"empty value", name(rdn(atv{cn, s(utf8T, "")}))},
		{"PrintableString high byte", name(rdn(atv{o, s(printT, "B\xe6r")}))},
		{"IA5String high byte", name(rdn(atv{o, s(ia5T, "B\xe6r")}))},
		{"GeneralString", name(rdn(atv{o, s(0x1b, "general")}))},
		{"VisibleString", name(rdn(atv{o, s(0x1a, "visible")}))},
		{"UniversalString", name(rdn(atv{o, tlv(0x1c, []byte{0, 0, 0, 'a', 0, 0, 0, 0xe5})}))},
		{"NumericString", name(rdn(atv{o, s(numT, "12")}))},
		{"INTEGER", name(rdn(atv{cn, tlv(0x02, []byte{5})}))},
		{"OCTET STRING", name(rdn(atv{cn, tlv(0x04, []byte("x"))}))},
		{"constructed UTF8String", name(rdn(atv{cn, tlv(0x2c, s(utf8T, "x"))}))},
		{"context tag", name(rdn(atv{cn, tlv(0x80, []byte("x"))}))},
		{"BMPString odd length", name(rdn(atv{cn, tlv(0x1e, []byte{0, 'a', 0})}))},
		{"BMPString surrogate pair", name(rdn(atv{cn, bmp("\U0001F600")}))},
		{"BMPString latin letters", name(rdn(atv{cn, bmp("æøå ÆØÅ")}))},
		{"T61String latin-1", name(rdn(atv{cn, s(t61T, "\xe6\xf8\xe5")}))},
		{"big OID arc", name(rdn(atv{[]byte{0x69, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, s(utf8T, "x")}))},
		{"UUID OID", name(rdn(atv{append([]byte{0x69}, base128(big16("f81d4fae7dec11d0a76500a0c91e6bf6"))...), s(utf8T, "x")}))},
		{"first arc large", name(rdn(atv{[]byte{0x81, 0x80, 0x01}, s(utf8T, "x")}))},
		{"three values", name(rdn(atv{cn, s(utf8T, "c")}, atv{o, s(utf8T, "o")}, atv{orgID, s(utf8T, "i")}))},
		{"reversed order", name(rdn(atv{cn, s(utf8T, "first")}), rdn(atv{o, s(utf8T, "second")}), rdn(atv{c, s(printT, "NO")}))},
		{"CR only", name(rdn(atv{cn, s(utf8T, "\r")}))},
		{"spaces inside", name(rdn(atv{cn, s(utf8T, "a  b\r\rc")}))},
		{"backslash at end", name(rdn(atv{cn, s(utf8T, "a\\")}))},
		{"quote", name(rdn(atv{cn, s(utf8T, "\"")}))},
	}
	for _, v := range raw {
		fmt.Printf("%s\t%s\n", v.label, hex.EncodeToString(v.der))
	}
}

func base128(n *big.Int) []byte {
	var out []byte
	n = new(big.Int).Set(n)
	first := true
	for n.Sign() > 0 || first {
		b := byte(new(big.Int).And(n, big.NewInt(0x7f)).Int64())
		if !first {
			b |= 0x80
		}
		out = append([]byte{b}, out...)
		n.Rsh(n, 7)
		first = false
	}
	return out
}
