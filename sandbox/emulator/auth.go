package emulator

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/signing"
)

// maxClockSkew is the allowed deviation of the Date header (SERVICE.md 5.3).
const maxClockSkew = 60 * time.Second

// verify runs the checks every signed request passes (SERVICE.md 5, 1.6,
// 7), in the order the answers are given:
//
//  1. X-Request-ID present and a UUID (400 HTTP_HEADER_REQUIRED / FORMAT_ERROR);
//  2. TPP-Signature-Certificate present (400 HTTP_HEADER_REQUIRED) and a
//     base64 DER certificate (400 FORMAT_ERROR); registered (401
//     CERTIFICATE_INVALID) and valid now (401 CERTIFICATE_EXPIRED);
//  3. Signature present (400 HTTP_HEADER_REQUIRED), parseable, plain or
//     RFC 2047 encoded, algorithm rsa-sha256, keyId equal to the
//     certificate's (400 FORMAT_ERROR);
//  4. Date present, and Digest with a body (400 HTTP_HEADER_REQUIRED);
//  5. the signed headers list date, x-request-id, digest (with a body) and
//     psu-id, psu-corporate-id, tpp-redirect-uri when sent (400
//     FORMAT_ERROR);
//  6. Date within 60 s of the emulator clock, Digest matching the body
//     with SHA-256 or SHA-512 (400 FORMAT_ERROR);
//  7. the signature verifies with the certificate's key (400 FORMAT_ERROR);
//  8. a body is application/json, valid UTF-8 JSON, with no character
//     outside the Basic Multilingual Plane (400 FORMAT_ERROR).
func (s *Server) verify(w http.ResponseWriter, r *http.Request) (*call, *apiError) {
	now := s.now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return nil, errFormat("", "The body cannot be read or is larger than %d bytes.", maxBody)
	}

	reqID := r.Header.Get("X-Request-ID")
	if strings.TrimSpace(reqID) == "" {
		return nil, errHeaderRequired("X-Request-ID")
	}
	if _, err := uuid.Parse(reqID); err != nil || len(reqID) != 36 {
		return nil, errFormat("X-Request-ID", "X-Request-ID must be a UUID.")
	}

	t, aerr := s.certificate(r, now)
	if aerr != nil {
		return nil, aerr
	}

	sig := r.Header.Get("Signature")
	if strings.TrimSpace(sig) == "" {
		return nil, errHeaderRequired("Signature")
	}
	params, err := signing.ParseSignature(sig)
	if err != nil {
		return nil, errFormat("Signature", "The Signature header cannot be parsed: %s.", signingReason(err))
	}
	if params.Algorithm != signing.Algorithm {
		// SERVICE.md 5.4: the value has four parts, algorithm among them.
		return nil, errFormat("Signature", "The signature algorithm must be given as rsa-sha256.")
	}
	if params.KeyID != signing.KeyID(t.cert) {
		return nil, errFormat("Signature", "The keyId does not match the TPP-Signature-Certificate (expected SN=<serial>,CA=<issuer DN per RFC 2253>).")
	}
	date := r.Header.Get("Date")
	if date == "" {
		return nil, errHeaderRequired("Date")
	}
	if len(body) > 0 && strings.TrimSpace(r.Header.Get("Digest")) == "" {
		return nil, errHeaderRequired("Digest")
	}
	if aerr := checkSignedHeaders(r, params.Headers, len(body) > 0); aerr != nil {
		return nil, aerr
	}
	dt, err := http.ParseTime(date)
	if err != nil {
		return nil, errFormat("Date", "The Date header must be an RFC 7231 date.")
	}
	if d := now.Sub(dt); d > maxClockSkew || d < -maxClockSkew {
		return nil, errFormat("Date", "The Date header is more than 60 seconds off the server time.")
	}

	if len(body) > 0 {
		if err := signing.VerifyDigest(r.Header.Get("Digest"), body); err != nil {
			return nil, errFormat("Digest", "The Digest does not match the body (SHA-256 or SHA-512 of the exact bytes sent).")
		}
	}

	if err := params.Verify(r, t.cert.PublicKey); err != nil {
		return nil, errFormat("Signature", "The signature does not verify: %s.", signingReason(err))
	}

	if len(body) > 0 {
		if aerr := checkBody(r, body); aerr != nil {
			return nil, aerr
		}
	}
	return &call{s: s, r: r, body: body, tpp: t, now: now, requestID: reqID}, nil
}

// certificate finds the registered TPP of the request's
// TPP-Signature-Certificate.
func (s *Server) certificate(r *http.Request, now time.Time) (*tpp, *apiError) {
	v := strings.TrimSpace(r.Header.Get("TPP-Signature-Certificate"))
	if v == "" {
		return nil, errHeaderRequired("TPP-Signature-Certificate")
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "-----BEGIN CERTIFICATE-----"), "-----END CERTIFICATE-----")
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), ""))
	if err != nil {
		return nil, errFormat("TPP-Signature-Certificate", "TPP-Signature-Certificate must be the base64 DER of an X.509 certificate.")
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, errFormat("TPP-Signature-Certificate", "TPP-Signature-Certificate is not an X.509 certificate.")
	}
	s.mu.Lock()
	t := s.tpps[fingerprint(cert)]
	s.mu.Unlock()
	if t == nil {
		return nil, newError(http.StatusUnauthorized, "CERTIFICATE_INVALID", "The TPP certificate is not registered with the ASPSP.").at("TPP-Signature-Certificate")
	}
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return nil, newError(http.StatusUnauthorized, "CERTIFICATE_EXPIRED", "The TPP certificate is not valid at this time.").at("TPP-Signature-Certificate")
	}
	return t, nil
}

// checkSignedHeaders checks the headers part of the Signature (SERVICE.md
// 5.4, 5.5): date and x-request-id always, digest with a body, and the PSU
// and redirect headers when the request carries them.
func checkSignedHeaders(r *http.Request, signed []string, hasBody bool) *apiError {
	need := []string{"date", "x-request-id"}
	if hasBody {
		need = append(need, "digest")
	}
	for _, h := range []string{"psu-id", "psu-corporate-id", "tpp-redirect-uri"} {
		if r.Header.Get(h) != "" {
			need = append(need, h)
		}
	}
	for _, n := range need {
		if !slices.Contains(signed, n) {
			return errFormat("Signature", "The signature must cover the header %s.", n)
		}
	}
	return nil
}

// checkBody accepts JSON only (SERVICE.md 1.6): Content-Type
// application/json, valid UTF-8, valid JSON, and no character the
// downstream systems cannot take (outside the Basic Multilingual Plane,
// e.g. an emoji, raw or as a \u surrogate escape).
func checkBody(r *http.Request, body []byte) *apiError {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		if strings.Contains(strings.ToLower(r.Header.Get("Content-Type")), "xml") {
			return errFormat("Content-Type", "XML is not supported; send application/json.")
		}
		return errFormat("Content-Type", "The body must be application/json.")
	}
	if !utf8.Valid(body) {
		return errFormat("", "The body is not valid UTF-8.")
	}
	if !json.Valid(body) {
		return errFormat("", "The body is not valid JSON.")
	}
	if path, ok := unsupportedChar(body); !ok {
		return newError(http.StatusBadRequest, "FORMAT_ERROR", "The body contains a character that cannot be processed (outside the Basic Multilingual Plane, e.g. an emoji).").at(path)
	}
	return nil
}

// unsupportedChar reports whether body has only characters the downstream
// systems take; when not, it names the JSON string's position as well as it can.
func unsupportedChar(body []byte) (string, bool) {
	for i, rn := range string(body) {
		if rn > 0xFFFF {
			return fieldBefore(body, i), false
		}
	}
	lower := strings.ToLower(string(body))
	for i := 0; ; {
		j := strings.Index(lower[i:], `\ud`)
		if j < 0 {
			break
		}
		k := i + j + 3
		if k < len(lower) && strings.IndexByte("89ab", lower[k]) >= 0 && !escapedBackslash(lower, i+j) {
			return fieldBefore(body, i+j), false
		}
		i = i + j + 3
	}
	return "", true
}

// escapedBackslash reports whether the backslash at i is itself escaped.
func escapedBackslash(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// fieldBefore returns the last JSON key before offset i (a best-effort path
// for the tppMessage).
func fieldBefore(body []byte, i int) string {
	s := string(body[:i])
	end := strings.LastIndex(s, `":`)
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(s[:end], `"`)
	if start < 0 {
		return ""
	}
	return trimForText(s[start+1 : end])
}

// signingReason is a short, secret-free reason for a signing error.
func signingReason(err error) string {
	for _, e := range []error{signing.ErrNoSignature, signing.ErrMalformed, signing.ErrBadAlgorithm,
		signing.ErrBadSignature, signing.ErrMissingHeader, signing.ErrKeyNotRSA} {
		if errors.Is(err, e) {
			return strings.TrimPrefix(e.Error(), "signing: ")
		}
	}
	return "malformed"
}
