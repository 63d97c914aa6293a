package emulator

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
	"github.com/tppkit/psd2/signing"
)

// maxClockSkew is the allowed deviation of the Date header
// (docs/interface.md section 5.3).
const maxClockSkew = 60 * time.Second

// verify runs the checks every signed request passes (docs/interface.md
// sections 5, 1.6, 7), in the order the answers are given:
//
//  1. X-Request-ID present (400 HTTP_HEADER_REQUIRED) and 1 to 200
//     printable ASCII characters (400 FORMAT_ERROR);
//  2. TPP-Signature-Certificate present (400 HTTP_HEADER_REQUIRED) and a
//     base64 DER certificate (400 FORMAT_ERROR); registered (401
//     CERTIFICATE_INVALID) and valid now (401 CERTIFICATE_EXPIRED);
//  3. Signature present (400 HTTP_HEADER_REQUIRED), ASCII (a value with
//     other characters must be an RFC 2047 encoded word, section 5.6),
//     parseable, algorithm rsa-sha256, keyId naming the certificate
//     (signing.MatchKeyID: the issuer is compared parsed, so the strict
//     RFC 2253 and the OpenSSL rendering both pass) (400 FORMAT_ERROR);
//  4. Date present, and Digest with a body where the operation needs one
//     (400 HTTP_HEADER_REQUIRED; see rules.BodyRule);
//  5. the signed headers are among date, digest, x-request-id, psu-id,
//     psu-corporate-id, tpp-redirect-uri, and list date, x-request-id,
//     digest (whenever one is sent) and psu-id, psu-corporate-id, tpp-redirect-uri
//     when sent (400 FORMAT_ERROR);
//  6. Date an RFC 7231 date in GMT (rules.ParseHTTPDate) within 60 s of
//     the emulator clock, a sent Digest matching the body (empty or not)
//     with SHA-256 or SHA-512 (400 FORMAT_ERROR);
//  7. the signature verifies with the certificate's key (400 FORMAT_ERROR);
//  8. a body is application/json, valid UTF-8 JSON, with no character
//     the bank cannot process: an emoji or pictograph, or anything
//     outside the Basic Multilingual Plane (400 FORMAT_ERROR, see
//     rules.CheckJSONBody);
//  9. the X-Request-ID was not used by this TPP for another call (400
//     FORMAT_ERROR); see requestIDLog.
//
// The checks that need neither the server's state nor package signing
// (the forms of X-Request-ID and Signature, the signed header list, the
// body) are rules of internal/rules (signature.go, body.go).
//
// rule says what the operation's body needs (rules.RequirementOf): a body
// needs a Digest unless rule.DigestRequired says otherwise, a Digest that
// is sent is checked whatever rule says, and rules.BodyIgnored skips the
// checks of the body's content.
func (s *Server) verify(w http.ResponseWriter, r *http.Request, rule rules.BodyRule) (*call, *apiError) {
	now, wire := s.now(), s.wireNow() // the bank's clock and the server's (clock.go)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return nil, errFormat("", "The body cannot be read or is larger than %d bytes.", maxBody)
	}

	reqID := r.Header.Get("X-Request-ID")
	if v := rules.CheckRequestID(reqID); v != nil {
		return nil, violation(v)
	}

	t, aerr := s.certificate(r, wire)
	if aerr != nil {
		return nil, aerr
	}

	sig := r.Header.Get("Signature")
	if v := rules.CheckSignatureValue(sig); v != nil {
		return nil, violation(v)
	}
	params, err := signing.ParseSignature(sig)
	if err != nil {
		return nil, errFormat("Signature", "The Signature header cannot be parsed: %s.", signingReason(err))
	}
	decoded, _ := signing.DecodeWord(sig) // ParseSignature read it
	if v := rules.CheckHeaderListCase(decoded); v != nil {
		return nil, violation(v)
	}
	if params.Algorithm != signing.Algorithm {
		// docs/interface.md section 5.4: the value has four parts,
		// algorithm among them.
		return nil, errFormat("Signature", "The signature algorithm must be given as rsa-sha256.")
	}
	if !s.keyIDAccepted(t, params.KeyID) { // the profile's keyId forms (profile.go)
		return nil, errFormat("Signature", "The keyId does not match the TPP-Signature-Certificate (expected SN=<serial>,CA=<issuer DN per RFC 2253>).")
	}
	date := r.Header.Get("Date")
	if date == "" {
		return nil, errHeaderRequired("Date")
	}
	// A Digest that is sent covers the exact bytes sent, the empty body
	// of a GET or of a POST without a body included: it is checked, and
	// must be signed, whenever it is present (sections 4.2, 5.5).
	// Digest is a list (RFC 3230): several Digest fields are one value,
	// their instance digests joined by commas (RFC 7230 section 3.2.2),
	// as the signing string joins them; each is checked.
	digest := strings.Join(r.Header.Values("Digest"), ", ")
	digested := strings.TrimSpace(digest) != ""
	if len(body) > 0 && !digested && rule.DigestRequired() {
		return nil, errHeaderRequired("Digest")
	}
	if v := rules.CheckSignedHeaders(r.Header, params.Headers, digested); v != nil {
		return nil, violation(v)
	}
	dt, ok := rules.ParseHTTPDate(date)
	if !ok {
		return nil, errFormat("Date", "The Date header must be an RFC 7231 date in GMT.")
	}
	// The Date header carries whole seconds, so the window is measured
	// against the bank's whole second: a TPP whose clock is at most 60 s
	// off is never refused for the fraction of a second its Date drops.
	if d := wire.Truncate(time.Second).Sub(dt); d > maxClockSkew || d < -maxClockSkew {
		return nil, errFormat("Date", "The Date header is more than 60 seconds off the server time.")
	}

	if digested {
		if err := signing.VerifyDigest(digest, body); err != nil {
			return nil, errFormat("Digest", "The Digest does not match the body (SHA-256 or SHA-512 of the exact bytes sent).")
		}
	}

	if err := params.Verify(r, t.cert.PublicKey); err != nil {
		return nil, errFormat("Signature", "The signature does not verify: %s.", signingReason(err))
	}

	if len(body) > 0 && rule != rules.BodyIgnored {
		if v := rules.CheckJSONBody(r.Header.Get("Content-Type"), body); v != nil {
			return nil, violation(v)
		}
	}
	if !s.requestIDs.record(t.id, reqID, r, body) {
		return nil, errFormat("X-Request-ID", "X-Request-ID was already used for another call; it must be unique per call (a retry of the same call may repeat it).")
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
	cert, apiErr := s.parseCertificate(v)
	if apiErr != nil {
		return nil, apiErr
	}
	s.mu.RLock()
	t := s.tpps[fingerprint(cert)]
	s.mu.RUnlock()
	if t == nil {
		return nil, newError(http.StatusUnauthorized, "CERTIFICATE_INVALID", "The TPP certificate is not registered with the ASPSP.").at("TPP-Signature-Certificate")
	}
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return nil, newError(http.StatusUnauthorized, "CERTIFICATE_EXPIRED", "The TPP certificate is not valid at this time.").at("TPP-Signature-Certificate")
	}
	return t, nil
}

// maxParsedCerts bounds the cache of parsed TPP-Signature-Certificate
// values: far more TPPs than a sandbox serves, and a few MB at most.
const maxParsedCerts = 1024

// parseCertificate decodes a TPP-Signature-Certificate value. Parsed
// certificates are cached by the header's exact value (a TPP sends the
// same one on every request), so that the emulator does not parse the
// DER again on each call; the cache stops growing at maxParsedCerts.
func (s *Server) parseCertificate(v string) (*x509.Certificate, *apiError) {
	if c, ok := s.certCache.Load(v); ok {
		return c.(*x509.Certificate), nil
	}
	pem := strings.TrimSuffix(strings.TrimPrefix(v, "-----BEGIN CERTIFICATE-----"), "-----END CERTIFICATE-----")
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(pem), ""))
	if err != nil {
		return nil, errFormat("TPP-Signature-Certificate", "TPP-Signature-Certificate must be the base64 DER of an X.509 certificate.")
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, errFormat("TPP-Signature-Certificate", "TPP-Signature-Certificate is not an X.509 certificate.")
	}
	if s.certCacheLen.Add(1) <= maxParsedCerts {
		s.certCache.Store(v, cert)
	}
	return cert, nil
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

// printableASCII reports whether s has only characters from space to "~"
// (rules.PrintableASCII).
func printableASCII(s string) bool { return rules.PrintableASCII(s) }

// maxRememberedRequestIDs bounds the X-Request-IDs the emulator remembers
// for its uniqueness check (about 5 MB when full). Past it, the oldest are
// forgotten and may be used again.
const maxRememberedRequestIDs = 1 << 16

// requestIDLog enforces "X-Request-ID unique per call" (docs/interface.md
// section 4) for the last maxRememberedRequestIDs verified calls. A call is
// its TPP, method, request URI and body: the same X-Request-ID on the same
// call again is a retry (the SDK keeps the id across attempts, and a
// network failure may hide that the first attempt arrived) and passes; on
// any other call it is refused. Keys and calls are kept as 128-bit hashes,
// so the memory stays bounded whatever the ids' length. It has its own
// lock: verify runs without s.mu.
type requestIDLog struct {
	mu    sync.Mutex
	calls map[[16]byte][16]byte // hash(TPP, id) -> hash(call)
	order [][16]byte            // keys in arrival order, a ring once full
	next  int                   // the oldest key, once order is full
}

// record notes that tppID sent id on the call (r, body). It reports false
// when id was already used for another call.
func (l *requestIDLog) record(tppID, id string, r *http.Request, body []byte) bool {
	key := hash128(tppID, id)
	bodySum := sha256.Sum256(body)
	call := hash128(r.Method, r.URL.RequestURI(), string(bodySum[:]))
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.calls[key]; ok {
		return prev == call
	}
	if l.calls == nil {
		l.calls = make(map[[16]byte][16]byte)
	}
	if len(l.order) < maxRememberedRequestIDs {
		l.order = append(l.order, key)
	} else {
		delete(l.calls, l.order[l.next])
		l.order[l.next] = key
		l.next = (l.next + 1) % maxRememberedRequestIDs
	}
	l.calls[key] = call
	return true
}

// hash128 hashes the parts, each length-prefixed, to 128 bits.
func hash128(parts ...string) [16]byte {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		for i := range n {
			n[i] = byte(len(p) >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}
