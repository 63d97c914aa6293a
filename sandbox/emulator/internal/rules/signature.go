package rules

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// The rules of the headers every signed request carries
// (docs/interface.md sections 4, 5.4 to 5.6): the form of X-Request-ID
// and of the Signature value, and which headers the signature covers. The
// emulator checks the rest of a signature (its parameters, the keyId,
// Date and Digest against its clock and the body, the RSA signature
// itself) with package signing.

// MaxRequestIDLen is the longest X-Request-ID the emulator accepts. The
// interface says only "string" (docs/interface.md section 4); the SDK's
// client.MaxRequestIDLen is the same 200 printable ASCII characters.
const MaxRequestIDLen = 200

// CheckRequestID returns the violation of an X-Request-ID value id:
// missing or blank ([CodeHeaderRequired]), or not 1 to [MaxRequestIDLen]
// printable ASCII characters ([CodeFormat]); nil for a good one. The
// HTTP layer has already dropped leading and trailing spaces.
func CheckRequestID(id string) *Violation {
	if strings.TrimSpace(id) == "" {
		return HeaderRequired("X-Request-ID")
	}
	if len(id) > MaxRequestIDLen || !PrintableASCII(id) {
		return Format("X-Request-ID", "X-Request-ID must be 1 to %d printable ASCII characters.", MaxRequestIDLen)
	}
	return nil
}

// PrintableASCII reports whether s has only characters from space to "~".
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// CheckSignatureValue returns the violation of a Signature header value
// before it is parsed: missing or blank ([CodeHeaderRequired]), or holding
// a character outside printable ASCII, which must be sent as one RFC 2047
// encoded word (section 5.6, [CodeFormat]); nil otherwise.
func CheckSignatureValue(sig string) *Violation {
	if strings.TrimSpace(sig) == "" {
		return HeaderRequired("Signature")
	}
	if !PrintableASCII(sig) {
		return Format("Signature", "A Signature value with non-ASCII characters must be sent as one RFC 2047 encoded word (=?utf-8?B?...?=).")
	}
	return nil
}

// CheckHeaderListCase returns a [CodeFormat] violation when the headers
// part of a Signature value that signing.ParseSignature accepted is not
// in lower case (section 5.4; the parser reads any case); nil otherwise.
// sig is the value as the parser reads it: an RFC 2047 encoded word is
// given decoded (signing.DecodeWord), so that every charset spelling the
// parser takes is checked alike.
func CheckHeaderListCase(sig string) *Violation {
	if !headerListLowerCase(sig) {
		return Format("Signature", "The headers part of the Signature must list lower-case header names.")
	}
	return nil
}

// headerListLowerCase reports whether the headers part of a decoded
// Signature value that signing.ParseSignature accepted is in lower case.
// The value is read as ParseSignature reads it: comma-separated
// key="value" parameters whose values may hold backslash pairs.
func headerListLowerCase(sig string) bool {
	v := strings.TrimSpace(sig)
	for v != "" {
		v = strings.TrimLeft(v, " \t,")
		eq := strings.IndexByte(v, '=')
		if eq < 0 || eq+1 >= len(v) || v[eq+1] != '"' {
			return true
		}
		key := strings.TrimSpace(v[:eq])
		i := eq + 2
		for i < len(v) && v[i] != '"' {
			if v[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(v) {
			return true
		}
		if key == "headers" && v[eq+2:i] != strings.ToLower(v[eq+2:i]) {
			return false
		}
		v = v[i+1:]
	}
	return true
}

// signableHeaders are the only headers a Signature may list
// (docs/interface.md section 5.5).
var signableHeaders = []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// CheckSignedHeaders checks the headers part of the Signature, signed
// (docs/interface.md sections 5.4, 5.5), of a request with headers h:
// only eligible headers, and among them date and x-request-id always,
// digest when the body comes with one (digested), and psu-id,
// psu-corporate-id and tpp-redirect-uri when h carries them. It returns
// the first problem as a [CodeFormat] violation at Signature.
func CheckSignedHeaders(h http.Header, signed []string, digested bool) *Violation {
	for _, n := range signed {
		if !slices.Contains(signableHeaders, n) {
			return Format("Signature", "The header %s cannot be signed; the headers list may only name %s.", n, strings.Join(signableHeaders, ", "))
		}
	}
	need := []string{"date", "x-request-id"}
	if digested {
		need = append(need, "digest")
	}
	for _, n := range []string{"psu-id", "psu-corporate-id", "tpp-redirect-uri"} {
		if h.Get(n) != "" {
			need = append(need, n)
		}
	}
	for _, n := range need {
		if !slices.Contains(signed, n) {
			return Format("Signature", "The signature must cover the header %s.", n)
		}
	}
	return nil
}

// httpDateLayouts are the three forms of an HTTP date (RFC 7231 section
// 7.1.1.1), each in GMT: IMF-fixdate, which senders write, and the
// obsolete RFC 850 and asctime forms, which recipients must read. asctime
// names no zone and is read as GMT.
var httpDateLayouts = [...]string{
	http.TimeFormat,                  // Sun, 06 Nov 1994 08:49:37 GMT
	"Monday, 02-Jan-06 15:04:05 GMT", // Sunday, 06-Nov-94 08:49:37 GMT
	time.ANSIC,                       // Sun Nov  6 08:49:37 1994
}

// ParseHTTPDate reads a Date header value (docs/interface.md section 5.3)
// as an HTTP date in one of its three forms, in GMT; ok is false for
// anything else. Unlike http.ParseTime it refuses an RFC 850 date in
// another zone ("CET", "PST", "UTC"), which http.ParseTime reads as if it
// were GMT, hours away from the time it names.
func ParseHTTPDate(v string) (t time.Time, ok bool) {
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
