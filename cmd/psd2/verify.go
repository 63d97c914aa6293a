package main

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/httpdate"
	"github.com/tppkit/psd2/signing"
)

// Finding codes of verify, one per rule of docs/interface.md section 5 (and
// the header tables of section 4 for Digest).
const (
	codeSignatureMissing = "SIGNATURE_MISSING"    // no Signature header (5.2)
	codeSignatureFormat  = "SIGNATURE_MALFORMED"  // the value does not parse, or lacks a part (5.4)
	codeWordMissing      = "ENCODED_WORD_MISSING" // non-ASCII characters, not wrapped (5.6)
	codeWordPartial      = "ENCODED_WORD_PARTIAL" // a part (the keyId) wrapped, not the whole value (5.6)
	codeWordCharset      = "ENCODED_WORD_CHARSET" // a charset other than utf-8 or iso-8859-1, or not the bytes' own (5.6)
	codeAlgorithm        = "ALGORITHM"            // not rsa-sha256 (5.4)
	codeKeyIDForm        = "KEYID_FORM"           // names the certificate, but the issuer in another form than RFC 2253's (5.4)
	codeKeyIDRDNOrder    = "KEYID_RDN_ORDER"      // the issuer's RDNs in another order than RFC 2253's, last first (5.4)
	codeKeyIDSerial      = "KEYID_SERIAL"         // serial not as 5.4 writes it (upper-case hex, no padding)
	codeKeyIDCert        = "KEYID_CERTIFICATE"    // names another certificate
	codeDateMissing      = "DATE_MISSING"         // 5.3
	codeDateFormat       = "DATE_FORMAT"          // not an IMF-fixdate in GMT (5.3)
	codeDateSkew         = "DATE_SKEW"            // Date more than the allowed skew off (5.3)
	codeDigestMissing    = "DIGEST_MISSING"       // the operation needs a Digest (4.2, 4.3; digestRule)
	codeDigestMismatch   = "DIGEST_MISMATCH"      // the body changed after signing
	codeDigestAlgorithm  = "DIGEST_ALGORITHM"     // no SHA-256 or SHA-512 value (4.2)
	codeHeaderMissing    = "HEADER_MISSING"       // listed but not in the request (5.5)
	codeHeaderUnsigned   = "HEADER_UNSIGNED"      // a candidate in the request but not listed (5.5)
	codeHeaderOrder      = "HEADER_ORDER"         // signed over the headers in another order than listed (5.4)
	codeHeaderCase       = "HEADER_CASE"          // names not lower-case (5.4)
	codeHeaderRepeated   = "HEADER_REPEATED"      // a name listed twice (5.5: one line per header)
	codeHeaderNotUsed    = "HEADER_NOT_USED"      // a header listed that 5.5's signing string has not ((request-target), host, content-type...)
	codeSignatureInvalid = "SIGNATURE_INVALID"    // does not verify with the certificate's key
	codeCertificate      = "CERTIFICATE"          // no or an unreadable certificate to check with
	codeCertMismatch     = "CERTIFICATE_MISMATCH" // TPP-Signature-Certificate is not the -cert given
)

// finding is one thing wrong with a captured request.
type finding struct {
	Code    string `json:"code"`
	Header  string `json:"header,omitempty"`
	Message string `json:"message"`
}

type verifyReport struct {
	OK       bool      `json:"ok"`
	KeyID    string    `json:"keyId,omitempty"`
	Headers  []string  `json:"signedHeaders,omitempty"`
	BodySize int64     `json:"bodySize"`
	Findings []finding `json:"findings"`
}

func runVerify(_ context.Context, e *env, args []string) error {
	fs := e.flags("verify", "[-cert cert.pem] [-now IMF-fixdate] [-skew 60s] request.http   (- reads standard input)")
	cf := credFlags{own: true}
	cf.register(fs, false)
	nowFlag := fs.String("now", "", "judge the Date against this time (an IMF-fixdate in GMT, as a Date header; default: now)")
	skew := fs.Duration("skew", 60*time.Second, "allowed difference between Date and -now (docs/interface.md section 5.3)")
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("give one captured request file (raw HTTP: request line, headers, blank line, body), or - for standard input")
	}
	now := time.Now()
	if *nowFlag != "" {
		t, ok := httpdate.Parse(*nowFlag)
		if !ok {
			return usagef("-now %q: not an IMF-fixdate in GMT, e.g. %q", clipText(*nowFlag), now.UTC().Format(http.TimeFormat))
		}
		now = t
	}
	var cert *x509.Certificate
	if cf.cert != "" || cf.p12 != "" {
		var err error
		if cert, err = cf.certificate(); err != nil {
			return err
		}
	}
	in := io.Reader(os.Stdin)
	if fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	req, body, err := readCapture(in)
	if err != nil {
		return err
	}
	rep := verifyRequest(req, body, cert, now, *skew)
	if err := e.emit(rep, func(w io.Writer) {
		if rep.OK {
			fmt.Fprintln(w, "OK: the request follows docs/interface.md section 5 and its signature verifies")
			return
		}
		for _, f := range rep.Findings {
			fmt.Fprintf(w, "%-20s %s\n", f.Code, f.Message)
		}
	}); err != nil {
		return err
	}
	if !rep.OK {
		return failedError{fmt.Sprintf("%d finding(s)", len(rep.Findings))}
	}
	return nil
}

func b64(der []byte) string { return base64.StdEncoding.EncodeToString(der) }

// verifyRequest checks req, whose body body summarises, against
// docs/interface.md section 5. cert is the signing certificate; nil takes
// the request's TPP-Signature-Certificate.
func verifyRequest(req *http.Request, body *bodyDigests, cert *x509.Certificate, now time.Time, skew time.Duration) (rep verifyReport) {
	add := func(code, header, format string, a ...any) {
		rep.Findings = append(rep.Findings, finding{code, header, fmt.Sprintf(format, a...)})
	}
	defer func() { rep.OK = len(rep.Findings) == 0 }()
	rep.BodySize = body.size

	checkDate(req, now, skew, add)
	checkDigest(req, body, add)

	// Signature (5.4 to 5.6).
	values := req.Header.Values("Signature")
	switch {
	case len(values) == 0 || strings.TrimSpace(values[0]) == "":
		add(codeSignatureMissing, "Signature", "no Signature header (section 5.2)")
		return rep
	case len(values) > 1:
		add(codeSignatureFormat, "Signature", "%d Signature headers; a request carries one", len(values))
		return rep
	}
	text, ok := unwrapSignature(strings.TrimSpace(values[0]), add)
	if !ok {
		return rep
	}
	p, err := signing.ParseSignature(text)
	if err != nil {
		add(codeSignatureFormat, "Signature", "%v", err)
		return rep
	}
	rawHeaders, listed := signatureParam(text, "headers")
	if _, ok := signatureParam(text, "algorithm"); !ok || !listed {
		add(codeSignatureFormat, "Signature", "the value lacks its %s part: section 5.4 has four, keyId, algorithm, headers and signature", map[bool]string{true: "algorithm", false: "headers"}[listed])
		return rep
	}
	if kid, ok := encodedWordInside(p.KeyID); ok {
		add(codeWordPartial, "Signature", "only the keyId is an RFC 2047 encoded word; section 5.6 wraps the whole Signature value as one (=?utf-8?B?<base64 of the value>?=), so a bank reads this keyId as the encoded text itself")
		p.KeyID = kid
	}
	rep.KeyID, rep.Headers = p.KeyID, p.Headers
	if p.Algorithm != signing.Algorithm {
		add(codeAlgorithm, "Signature", "algorithm is %q; the interface accepts only %q (section 5.4)", p.Algorithm, signing.Algorithm)
	}
	headersOK := checkHeaderList(req, rawHeaders, p.Headers, add)
	sent, sentErr := requestCertificate(req)
	switch {
	case cert == nil && sentErr != nil:
		add(codeCertificate, "TPP-Signature-Certificate", "%v; give -cert to check keyId and signature", sentErr)
		return rep
	case cert == nil:
		cert = sent
	case sentErr != nil:
		add(codeCertificate, "TPP-Signature-Certificate", "%v: the header is required on every call and carries the signing certificate (section 4)", sentErr)
	case !slices.Equal(sent.Raw, cert.Raw):
		names := "neither"
		if signing.MatchKeyID(p.KeyID, sent) {
			names = "the sent certificate"
		} else if signing.MatchKeyID(p.KeyID, cert) {
			names = "the -cert certificate"
		}
		add(codeCertMismatch, "TPP-Signature-Certificate", "TPP-Signature-Certificate (serial %s) is not the -cert certificate (serial %s); the keyId names %s, and the bank checks the signature with the certificate sent",
			strings.ToUpper(sent.SerialNumber.Text(16)), strings.ToUpper(cert.SerialNumber.Text(16)), names)
		return rep
	}
	checkKeyID(p.KeyID, cert, add)
	checkSignature(req, p, rawHeaders, cert, headersOK, add)
	return rep
}

// checkDate applies section 5.3: the Date is read strictly, as an
// IMF-fixdate in GMT (httpdate.Parse), not in the obsolete forms
// http.ParseTime also reads.
func checkDate(req *http.Request, now time.Time, skew time.Duration, add func(code, header, format string, a ...any)) {
	d := req.Header.Get("Date")
	if d == "" {
		add(codeDateMissing, "Date", "no Date header; it is required and signed (section 5.3)")
		return
	}
	t, ok := httpdate.Parse(d)
	if !ok {
		add(codeDateFormat, "Date", "Date %q is not an IMF-fixdate in GMT (RFC 7231), e.g. %q", clipText(d), now.UTC().Format(http.TimeFormat))
		return
	}
	if off := t.Sub(now); off > skew || off < -skew {
		add(codeDateSkew, "Date", "Date is %s %s the reference time; the bank allows %s (section 5.3)", absDur(off), aheadBehind(off), skew)
	}
}

// digestRule says whether the operation of method and path (the request
// target, any base path before /v1/ ignored) must carry a Digest, and why.
// It follows the header tables of docs/interface.md section 4: a payment
// (4.2, 4.3) requires one, a signing basket (4.1) lists none. For the
// operations that have no table the interface is silent; a request with a
// body needs one there, the safe side: the SDK sends a Digest with every
// body (docs/design.md section 3) and the emulator requires one for every
// body but a basket's. A Digest that is sent must match the body whatever
// the rule.
func digestRule(method, target string, hasBody bool) (required bool, why string) {
	path, _, _ := strings.Cut(target, "?")
	if i := strings.Index(path, "/v1/"); i >= 0 {
		path = path[i:]
	}
	seg := strings.Split(strings.TrimPrefix(path, "/v1/"), "/")
	switch {
	case method == http.MethodPost && len(seg) == 2 && seg[1] != "" &&
		(seg[0] == "payments" || seg[0] == "periodic-payments" || seg[0] == "bulk-payments"):
		return true, "creating a payment requires a Digest (docs/interface.md sections 4.2, 4.3)"
	case method == http.MethodPost && path == "/v1/signing-baskets":
		return false, "a signing basket lists no Digest (section 4.1)"
	case hasBody:
		return true, "the request has a body; the interface gives no header table for this operation, and the SDK and the emulator send a Digest with every body"
	}
	return false, "no body"
}

// checkDigest applies digestRule and checks a Digest that is sent against
// the body.
func checkDigest(req *http.Request, body *bodyDigests, add func(code, header, format string, a ...any)) {
	dg := req.Header.Get("Digest")
	if dg == "" {
		if need, why := digestRule(req.Method, req.RequestURI, body.size > 0); need {
			add(codeDigestMissing, "Digest", "no Digest header: %s", why)
		}
		return
	}
	switch err := body.verify(dg); {
	case errors.Is(err, signing.ErrUnsupportedDigest):
		add(codeDigestAlgorithm, "Digest", "Digest %q has no SHA-256 or SHA-512 value (RFC 3230, RFC 5843; section 4.2)", clipText(dg))
	case err != nil:
		add(codeDigestMismatch, "Digest", "Digest does not match the body: the body changed after signing (got %s, the %d-byte body gives %s)", clipText(dg), body.size, body.sha256Digest())
	}
}

// unwrapSignature undoes the RFC 2047 wrapping of section 5.6 and names
// what is wrong with it: a value with non-ASCII characters that is not
// wrapped, or a charset other than the two of 5.6 or other than that of
// its bytes. It returns the value's text, read as its bytes really are so
// that the later checks see what was meant; ok is false when the value
// cannot be read at all.
func unwrapSignature(v string, add func(code, header, format string, a ...any)) (text string, ok bool) {
	if !strings.HasPrefix(v, "=?") {
		for i := 0; i < len(v); i++ {
			if v[i] >= 0x80 {
				add(codeWordMissing, "Signature", "the value has non-ASCII characters (byte %d) as they are; section 5.6 sends such a value whole as one RFC 2047 encoded word, =?utf-8?B?<base64 of the value>?=", i)
				break
			}
		}
		return v, true
	}
	w, err := parseEncodedWord(v)
	if err != nil {
		add(codeSignatureFormat, "Signature", "the value starts as an RFC 2047 encoded word but is not one: %v", err)
		return "", false
	}
	asUTF8, asLatin1 := utf8.Valid(w.bytes) && !isASCII(w.bytes), !isASCII(w.bytes)
	switch w.charset {
	case "utf-8", "utf8":
		if !utf8.Valid(w.bytes) {
			add(codeWordCharset, "Signature", "the encoded word says %s, but its bytes are not UTF-8 (they read as ISO-8859-1): write =?iso-8859-1?...?= or encode the UTF-8 bytes", w.charset)
			return latin1String(w.bytes), true
		}
		return string(w.bytes), true
	case "iso-8859-1", "latin1":
		if asUTF8 {
			add(codeWordCharset, "Signature", "the encoded word says %s, but its bytes are UTF-8: a bank reads each non-ASCII letter as two (%q); write =?utf-8?B?...?=", w.charset, clipText(latin1String(w.bytes[firstNonASCII(w.bytes):min(len(w.bytes), firstNonASCII(w.bytes)+2)])))
			return string(w.bytes), true
		}
		return latin1String(w.bytes), true
	case "us-ascii":
		if asLatin1 {
			add(codeWordCharset, "Signature", "the encoded word says us-ascii, but has non-ASCII bytes; section 5.6 names utf-8 and iso-8859-1")
		}
	default:
		add(codeWordCharset, "Signature", "the encoded word's charset is %q; section 5.6 names utf-8 and iso-8859-1", clipText(w.charset))
	}
	if utf8.Valid(w.bytes) {
		return string(w.bytes), true
	}
	return latin1String(w.bytes), true
}

// encodedWord is a parsed RFC 2047 encoded word: its charset (lower case,
// an RFC 2231 language tag dropped) and its decoded bytes.
type encodedWord struct {
	charset string
	bytes   []byte
}

// parseEncodedWord reads v as exactly one encoded word,
// =?charset?B|Q?text?=, and decodes its text whatever the charset (the
// standard library's decoder converts the charsets it knows, which would
// hide a wrong one).
func parseEncodedWord(v string) (encodedWord, error) {
	inner, ok := strings.CutPrefix(v, "=?")
	if ok {
		inner, ok = strings.CutSuffix(inner, "?=")
	}
	parts := strings.Split(inner, "?")
	if !ok || len(parts) != 3 || parts[0] == "" {
		return encodedWord{}, errors.New("want =?charset?B?text?= around the whole value")
	}
	cs, _, _ := strings.Cut(strings.ToLower(parts[0]), "*")
	w := encodedWord{charset: cs}
	var err error
	switch strings.ToUpper(parts[1]) {
	case "B":
		if w.bytes, err = base64.StdEncoding.DecodeString(parts[2]); err != nil {
			return encodedWord{}, errors.New("its B text is not base64")
		}
	case "Q":
		if w.bytes, err = decodeQ(parts[2]); err != nil {
			return encodedWord{}, err
		}
	default:
		return encodedWord{}, fmt.Errorf("encoding %q is neither B nor Q", clipText(parts[1]))
	}
	return w, nil
}

// decodeQ decodes RFC 2047's Q encoding: _ is a space, =XX a byte.
func decodeQ(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '_':
			out = append(out, ' ')
		case '=':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return nil, errors.New("its Q text has a bad =XX escape")
			}
			out = append(out, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isASCII(b []byte) bool { return firstNonASCII(b) == len(b) }

func firstNonASCII(b []byte) int {
	for i, c := range b {
		if c >= 0x80 {
			return i
		}
	}
	return len(b)
}

// latin1String reads b as ISO-8859-1.
func latin1String(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// encodedWordInside reports whether a parameter value is itself an RFC
// 2047 encoded word, and returns its text.
func encodedWordInside(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?") || !strings.HasSuffix(v, "?=") {
		return "", false
	}
	w, err := parseEncodedWord(v)
	if err != nil {
		return "", false
	}
	if w.charset == "iso-8859-1" || w.charset == "latin1" || !utf8.Valid(w.bytes) {
		return latin1String(w.bytes), true
	}
	return string(w.bytes), true
}

// signatureParam returns the characters between the quotes of the
// parameter key of a Signature value signing.ParseSignature accepted, as
// they are (ParseSignature lower-cases the headers list).
func signatureParam(v, key string) (string, bool) {
	for v != "" {
		v = strings.TrimLeft(v, " \t,")
		k, rest, ok := strings.Cut(v, "=")
		if !ok {
			return "", false
		}
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" || rest[0] != '"' {
			return "", false
		}
		i := 1
		for i < len(rest) && rest[i] != '"' {
			if rest[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(rest) {
			return "", false
		}
		if strings.TrimSpace(k) == key {
			return rest[1:i], true
		}
		v = rest[i+1:]
	}
	return "", false
}

// checkHeaderList checks the headers part against sections 5.4 and 5.5:
// lower-case names, each once, each a candidate of 5.5 present in the
// request, and every candidate present listed. Any order is right as long
// as the signing string follows it (checkSignature). raw is the part as
// written, list its names lower-cased.
func checkHeaderList(req *http.Request, raw string, list []string, add func(code, header, format string, a ...any)) bool {
	ok := true
	var upper []string
	for _, n := range strings.Fields(raw) {
		if n != strings.ToLower(n) {
			upper = append(upper, n)
		}
	}
	if len(upper) > 0 {
		add(codeHeaderCase, "Signature", "the headers part lists %s; section 5.4 writes the names in lower case", strings.Join(upper, ", "))
	}
	seen := map[string]bool{}
	for _, n := range list {
		if seen[n] {
			add(codeHeaderRepeated, n, "header %q is listed twice; the signing string has one line per header (section 5.5)", n)
			ok = false
			continue
		}
		seen[n] = true
		if !slices.Contains(signing.DefaultHeaders(), n) {
			add(codeHeaderNotUsed, n, "%q is listed, but the interface's signing string (section 5.5) has only the candidate headers: %s", n, strings.Join(signing.DefaultHeaders(), ", "))
			ok = false
			continue
		}
		if len(req.Header.Values(n)) == 0 {
			add(codeHeaderMissing, n, "header %q is listed in the signature but not in the request", n)
			ok = false
		}
	}
	for _, n := range signing.DefaultHeaders() {
		if len(req.Header.Values(n)) > 0 && !seen[n] {
			add(codeHeaderUnsigned, n, "header %q is in the request but not signed: section 5.5 lists it when present", n)
			ok = false
		}
	}
	return ok
}

// maxOrderSearch is the longest headers list whose other orders
// checkSignature tries when the signature does not verify in the listed
// one (6! = 720 RSA checks at most; section 5.5 has six candidates).
const maxOrderSearch = 6

// checkSignature verifies the signature with cert's key. When it does not
// verify in the listed order but does in another, the list is out of the
// signing string's order (HEADER_ORDER), not a bad signature; when it does
// with the names as written (not lower-cased), HEADER_CASE has said so. A
// failure an earlier finding explains is not reported again.
func checkSignature(req *http.Request, p *signing.SignatureParams, raw string, cert *x509.Certificate, headersOK bool, add func(code, header, format string, a ...any)) {
	err := p.Verify(req, cert.PublicKey)
	switch {
	case err == nil:
		return
	case errors.Is(err, signing.ErrKeyNotRSA):
		add(codeCertificate, "TPP-Signature-Certificate", "the certificate's key is not RSA; the interface signs with rsa-sha256 (section 5.4)")
		return
	case errors.Is(err, signing.ErrMissingHeader) && !headersOK,
		errors.Is(err, signing.ErrMalformed) && !headersOK, // a name listed twice: HEADER_REPEATED
		errors.Is(err, signing.ErrBadAlgorithm) && p.Algorithm != signing.Algorithm:
		return // named above
	}
	if !errors.Is(err, signing.ErrBadSignature) {
		add(codeSignatureInvalid, "Signature", "the signing string cannot be built: %v", oneLine(err.Error()))
		return
	}
	if asWritten := strings.Fields(raw); !slices.Equal(asWritten, p.Headers) {
		q := *p
		q.Headers = asWritten
		if q.Verify(req, cert.PublicKey) == nil {
			return // HEADER_CASE named it: signed with the names as written
		}
	}
	if order := signedOrder(req, p, cert); order != nil {
		add(codeHeaderOrder, "Signature", "the signature verifies over the headers in the order %q, but the headers part lists %q: section 5.4 has the list follow the signing string",
			strings.Join(order, " "), strings.Join(p.Headers, " "))
		return
	}
	add(codeSignatureInvalid, "Signature", "the signature does not verify with the certificate's key: a signed header's value changed after signing, or another key signed")
}

// signedOrder returns another order of p's headers in which the signature
// verifies, or nil.
func signedOrder(req *http.Request, p *signing.SignatureParams, cert *x509.Certificate) []string {
	if len(p.Headers) < 2 || len(p.Headers) > maxOrderSearch {
		return nil
	}
	var found []string
	permute(slices.Clone(p.Headers), 0, func(order []string) bool {
		if slices.Equal(order, p.Headers) {
			return false
		}
		q := *p
		q.Headers = order
		if q.Verify(req, cert.PublicKey) == nil {
			found = slices.Clone(order)
			return true
		}
		return false
	})
	return found
}

// permute calls try with every order of s[k:] (s[:k] fixed) until it
// returns true.
func permute(s []string, k int, try func([]string) bool) bool {
	if k == len(s) {
		return try(s)
	}
	for i := k; i < len(s); i++ {
		s[k], s[i] = s[i], s[k]
		if permute(s, k+1, try) {
			return true
		}
		s[k], s[i] = s[i], s[k]
	}
	return false
}

// checkKeyID checks the keyId against cert and section 5.4's form: the
// serial, then the issuer, each fault with its own code.
func checkKeyID(keyID string, cert *x509.Certificate, add func(code, header, format string, a ...any)) {
	want := signing.KeyID(cert)
	if keyID == want {
		return
	}
	if signing.MatchKeyID(keyID, cert) {
		add(codeKeyIDForm, "Signature", "keyId names the certificate, but its issuer is written in %s; section 5.4 asks for RFC 2253 as Java writes it: %s", renderingName(keyID, cert), want)
		return
	}
	rest, ok := strings.CutPrefix(keyID, "SN=")
	sn, dn, ok2 := strings.Cut(rest, ",CA=")
	if !ok || !ok2 {
		add(codeKeyIDForm, "Signature", "keyId %q is not SN=<serial>,CA=<issuer> (section 5.4); the certificate's is %s", clipText(keyID), want)
		return
	}
	wantSN := strings.ToUpper(cert.SerialNumber.Text(16))
	if sn == "" || !strings.EqualFold(strings.TrimLeft(sn, "0"), strings.TrimLeft(wantSN, "0")) {
		add(codeKeyIDCert, "Signature", "keyId serial %q is not the certificate's (%s): the keyId names another certificate", clipText(sn), wantSN)
		return
	}
	fixed := "SN=" + wantSN + ",CA=" + dn
	switch {
	case fixed == want:
	case signing.MatchKeyID(fixed, cert):
		add(codeKeyIDForm, "Signature", "keyId names the certificate's issuer in %s; section 5.4 asks for RFC 2253 as Java writes it: %s", renderingName(fixed, cert), want)
	default:
		if rdns, reversed, ok := issuerReordered(dn, wantSN, cert); ok {
			how := "in another order"
			if reversed {
				how = "most significant first (X.500 order)"
			}
			add(codeKeyIDRDNOrder, "Signature", "keyId writes the issuer's %d RDNs %s; RFC 2253 writes the last RDN first: %s", rdns, how, want)
		} else {
			add(codeKeyIDCert, "Signature", "keyId issuer %q is not the certificate's issuer %q", clipText(dn), signing.IssuerDN(cert))
			return
		}
	}
	if sn != wantSN {
		add(codeKeyIDSerial, "Signature", "keyId serial is written %q; section 5.4 writes it %q (upper-case hex, no leading zeros)", sn, wantSN)
	}
}

// renderingName names the psd2 keyid rendering keyID is, if any.
func renderingName(keyID string, cert *x509.Certificate) string {
	for _, r := range renderings(cert) {
		if r.KeyID == keyID {
			return "the " + r.Name + " rendering (" + r.About + ")"
		}
	}
	return "another rendering"
}

// maxRDNSearch bounds the issuer RDNs whose every order issuerReordered
// tries (6! = 720); longer names are tried reversed only.
const maxRDNSearch = 6

// issuerReordered reports whether dn, its RDNs put in another order, is
// the certificate's issuer, and whether that order is dn's reverse.
func issuerReordered(dn, sn string, cert *x509.Certificate) (rdns int, reversed, ok bool) {
	parts := splitRDNs(dn)
	if len(parts) < 2 {
		return len(parts), false, false
	}
	matches := func(order []string) bool { return signing.MatchKeyID("SN="+sn+",CA="+strings.Join(order, ","), cert) }
	rev := slices.Clone(parts)
	slices.Reverse(rev)
	if matches(rev) {
		return len(parts), true, true
	}
	if len(parts) > maxRDNSearch {
		return len(parts), false, false
	}
	found := permute(slices.Clone(parts), 0, func(order []string) bool { return !slices.Equal(order, parts) && matches(order) })
	return len(parts), false, found
}

// splitRDNs splits an RFC 2253 string at the commas that separate RDNs
// (not those escaped with a backslash or inside double quotes).
func splitRDNs(dn string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(dn); i++ {
		switch dn[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, dn[start:i])
				start = i + 1
			}
		}
	}
	return append(out, dn[start:])
}

// requestCertificate reads TPP-Signature-Certificate.
func requestCertificate(req *http.Request) (*x509.Certificate, error) {
	v := req.Header.Get("TPP-Signature-Certificate")
	if v == "" {
		return nil, errors.New("no TPP-Signature-Certificate header")
	}
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return nil, errors.New("TPP-Signature-Certificate is not base64")
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, errors.New("TPP-Signature-Certificate is not a certificate")
	}
	return c, nil
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func aheadBehind(d time.Duration) string {
	if d < 0 {
		return "behind"
	}
	return "ahead of"
}
