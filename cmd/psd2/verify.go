package main

import (
	"bufio"
	"bytes"
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

	"github.com/tppkit/psd2/signing"
)

// Finding codes of verify, one per rule of docs/interface.md section 5.
const (
	codeSignatureMissing = "SIGNATURE_MISSING"    // no Signature header (5.2)
	codeSignatureFormat  = "SIGNATURE_MALFORMED"  // the value does not parse (5.4, 5.6)
	codeAlgorithm        = "ALGORITHM"            // not rsa-sha256 (5.4)
	codeKeyIDForm        = "KEYID_FORM"           // names the certificate, not in the SDK's form (5.4)
	codeKeyIDSerial      = "KEYID_SERIAL"         // serial not as 5.4 writes it
	codeKeyIDCert        = "KEYID_CERTIFICATE"    // names another certificate
	codeDateMissing      = "DATE_MISSING"         // 5.3
	codeDateSkew         = "DATE_SKEW"            // Date more than the allowed skew off (5.3)
	codeDigestMissing    = "DIGEST_MISSING"       // a body without Digest
	codeDigestMismatch   = "DIGEST_MISMATCH"      // the body changed after signing
	codeHeaderMissing    = "HEADER_MISSING"       // listed but not in the request (5.5)
	codeHeaderUnsigned   = "HEADER_UNSIGNED"      // a candidate in the request but not listed (5.5)
	codeHeaderOrder      = "HEADER_ORDER"         // the list is not in 5.5's order
	codeHeaderCase       = "HEADER_CASE"          // names not lower-case (5.4)
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
	Findings []finding `json:"findings"`
}

func runVerify(_ context.Context, e *env, args []string) error {
	fs := e.flags("verify", "[-cert cert.pem] [-now RFC1123-time] [-skew 60s] request.http   (- reads standard input)")
	var cf credFlags
	cf.register(fs, false)
	nowFlag := fs.String("now", "", "judge the Date against this time (RFC 1123, as a Date header; default: now)")
	skew := fs.Duration("skew", 60*time.Second, "allowed difference between Date and -now (docs/interface.md section 5.3)")
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("give one captured request file (raw HTTP: request line, headers, blank line, body), or - for standard input")
	}
	now := time.Now()
	if *nowFlag != "" {
		t, err := http.ParseTime(*nowFlag)
		if err != nil {
			return usagef("-now %q: %v", *nowFlag, err)
		}
		now = t
	}
	var raw []byte
	var err error
	if fs.Arg(0) == "-" {
		raw, err = io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	} else {
		raw, err = os.ReadFile(fs.Arg(0))
	}
	if err != nil {
		return err
	}
	req, body, err := readCaptured(raw)
	if err != nil {
		return err
	}
	var cert *x509.Certificate
	if cf.cert != "" || cf.p12 != "" {
		if cert, err = cf.certificate(); err != nil {
			return err
		}
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

// readCaptured parses a raw HTTP request; a body is what follows the
// blank line (Content-Length, when given, must match it).
func readCaptured(raw []byte) (*http.Request, []byte, error) {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	head, body, _ := bytes.Cut(raw, []byte("\n\n"))
	head = bytes.ReplaceAll(append(head, '\n', '\n'), []byte("\n"), []byte("\r\n"))
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return nil, nil, fmt.Errorf("not a raw HTTP request: %w", err)
	}
	body = bytes.TrimRight(body, "\n")
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return req, body, nil
}

func b64(der []byte) string { return base64.StdEncoding.EncodeToString(der) }

// verifyRequest checks req against docs/interface.md section 5. cert is
// the signing certificate; nil takes the request's TPP-Signature-Certificate.
func verifyRequest(req *http.Request, body []byte, cert *x509.Certificate, now time.Time, skew time.Duration) (rep verifyReport) {
	add := func(code, header, format string, a ...any) {
		rep.Findings = append(rep.Findings, finding{code, header, fmt.Sprintf(format, a...)})
	}
	defer func() { rep.OK = len(rep.Findings) == 0 }()

	// Date (5.3).
	if d := req.Header.Get("Date"); d == "" {
		add(codeDateMissing, "Date", "no Date header; it is required and signed (section 5.3)")
	} else if t, err := http.ParseTime(d); err != nil {
		add(codeDateMissing, "Date", "Date %q is not an HTTP date (RFC 1123, GMT)", d)
	} else if off := t.Sub(now); off > skew || off < -skew {
		add(codeDateSkew, "Date", "Date is %s %s the reference time; the bank allows %s (section 5.3)", absDur(off), aheadBehind(off), skew)
	}
	// Digest.
	if dg := req.Header.Get("Digest"); dg == "" {
		if len(body) > 0 {
			add(codeDigestMissing, "Digest", "the request has a body but no Digest header")
		}
	} else if err := signing.VerifyDigest(dg, body); err != nil {
		if errors.Is(err, signing.ErrUnsupportedDigest) {
			add(codeDigestMismatch, "Digest", "Digest %q has no SHA-256 or SHA-512 value", dg)
		} else {
			add(codeDigestMismatch, "Digest", "Digest does not match the body: the body changed after signing (got %s, body gives %s)", dg, signing.Digest(body))
		}
	}
	// Signature (5.4).
	value := req.Header.Get("Signature")
	if value == "" {
		add(codeSignatureMissing, "Signature", "no Signature header (section 5.2)")
		return rep
	}
	p, err := signing.ParseSignature(value)
	if err != nil {
		add(codeSignatureFormat, "Signature", "%v", err)
		return rep
	}
	rep.KeyID, rep.Headers = p.KeyID, p.Headers
	if p.Algorithm != signing.Algorithm {
		add(codeAlgorithm, "Signature", "algorithm is %q; the interface accepts only %q (section 5.4)", p.Algorithm, signing.Algorithm)
	}
	headersOK := checkHeaderList(req, p.Headers, add)
	sent, sentErr := requestCertificate(req)
	switch {
	case cert == nil && sentErr != nil:
		add(codeCertificate, "TPP-Signature-Certificate", "%v; give -cert to check keyId and signature", sentErr)
		return rep
	case cert == nil:
		cert = sent
	case sentErr != nil:
		add(codeCertificate, "TPP-Signature-Certificate", "%v: the header is required on every call and carries the signing certificate (section 4)", sentErr)
	case !bytes.Equal(sent.Raw, cert.Raw):
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
	if err := p.Verify(req, cert.PublicKey); err != nil {
		switch {
		case errors.Is(err, signing.ErrMissingHeader) && !headersOK:
			// Named above.
		case errors.Is(err, signing.ErrBadAlgorithm) && p.Algorithm != signing.Algorithm:
			// Named above.
		default:
			add(codeSignatureInvalid, "Signature", "the signature does not verify with the certificate's key: a signed header's value changed after signing, or another key signed (%v)", oneLine(err.Error()))
		}
	}
	return rep
}

// checkHeaderList checks the headers list against section 5.5: lower-case
// names, each present, every candidate present listed, in 5.5's order.
func checkHeaderList(req *http.Request, list []string, add func(code, header, format string, a ...any)) bool {
	ok := true
	for _, n := range list {
		if n != strings.ToLower(n) {
			add(codeHeaderCase, n, "header %q in the list is not lower-case (section 5.4)", n)
			ok = false
		}
	}
	lower := make([]string, len(list))
	for i, n := range list {
		lower[i] = strings.ToLower(n)
	}
	for _, n := range lower {
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
	var want []string
	for _, n := range signing.DefaultHeaders() {
		if len(req.Header.Values(n)) == 0 {
			continue
		}
		want = append(want, n)
		if !slices.Contains(lower, n) {
			add(codeHeaderUnsigned, n, "header %q is in the request but not signed: section 5.5 lists it when present", n)
			ok = false
		}
	}
	var got []string
	for _, n := range lower {
		if slices.Contains(want, n) {
			got = append(got, n)
		}
	}
	wantListed := slices.DeleteFunc(slices.Clone(want), func(n string) bool { return !slices.Contains(got, n) })
	if !slices.Equal(got, wantListed) {
		add(codeHeaderOrder, "Signature", "headers are listed as %q; section 5.5's order is %q", strings.Join(got, " "), strings.Join(wantListed, " "))
		ok = false
	}
	return ok
}

// checkKeyID checks the keyId against cert and the SDK's form.
func checkKeyID(keyID string, cert *x509.Certificate, add func(code, header, format string, a ...any)) {
	want := signing.KeyID(cert)
	if keyID == want {
		return
	}
	if signing.MatchKeyID(keyID, cert) {
		form := "another rendering of the issuer"
		for _, r := range renderings(cert) {
			if r.KeyID == keyID {
				form = "the " + r.Name + " rendering (" + r.About + ")"
			}
		}
		add(codeKeyIDForm, "Signature", "keyId names the certificate but in %s; section 5.4 asks for %s", form, want)
		return
	}
	sn, dn, _ := strings.Cut(strings.TrimPrefix(keyID, "SN="), ",CA=")
	wantSN := strings.ToUpper(cert.SerialNumber.Text(16))
	if !strings.EqualFold(strings.TrimLeft(sn, "0"), strings.TrimLeft(wantSN, "0")) {
		add(codeKeyIDCert, "Signature", "keyId serial %q is not the certificate's (%s): the keyId names another certificate", sn, wantSN)
		return
	}
	if signing.MatchKeyID("SN="+wantSN+",CA="+dn, cert) {
		add(codeKeyIDSerial, "Signature", "keyId serial is written %q; section 5.4 writes it %q (upper-case hex, no leading zeros)", sn, wantSN)
		return
	}
	add(codeKeyIDCert, "Signature", "keyId issuer %q is not the certificate's issuer %q", dn, signing.IssuerDN(cert))
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
