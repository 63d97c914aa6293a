package client

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/tppkit/psd2/signing"
)

// VerifyMode says what the client does with the bank's response signatures
// (docs/interface.md section 5.7).
type VerifyMode int

const (
	// VerifyIfPresent is the default. It checks what a response carries:
	//   - a Digest header, whenever present, must match the body (signed
	//     or not, with or without bank certificates), save for an error
	//     body the client cut at its 64 KiB limit, whose Digest is not
	//     checked;
	//   - a Signature header, when bank certificates are configured
	//     ([WithBankCertificates]), must verify with one of them, cover the
	//     Digest when there is a body, and cover the request's own
	//     X-Request-ID if it covers one; one on several field lines is
	//     malformed (signing.ErrMalformed), whatever its first line says;
	//   - a Signature header without configured bank certificates cannot be
	//     checked: the response is accepted and a warning is logged once.
	// An unsigned response is accepted. It is lenient on purpose, for
	// banks that sign few headers: a signature need not cover
	// X-Request-ID nor Date, and a signed Date's age is not checked, so a
	// signed answer to another request, or an old one, that covers
	// neither is accepted. Use VerifyRequired to refuse them.
	VerifyIfPresent VerifyMode = iota
	// VerifyRequired checks as VerifyIfPresent does and also rejects:
	//   - a response without a Signature header;
	//   - an error body over the client's 64 KiB limit, whose Digest
	//     the client cannot check on what it read;
	//   - a signature that does not cover x-request-id, or an
	//     X-Request-ID that is not the request's (an answer to another
	//     request replayed);
	//   - a signature that does not cover date, or a Date more than
	//     15 minutes (the client's cap on the bank's clock offset) from the
	//     local clock (an old answer replayed).
	// It needs [WithBankCertificates].
	VerifyRequired
	// VerifyOff checks nothing: neither Digest nor Signature.
	VerifyOff
)

// String returns the mode's name.
func (m VerifyMode) String() string {
	switch m {
	case VerifyIfPresent:
		return "VerifyIfPresent"
	case VerifyRequired:
		return "VerifyRequired"
	case VerifyOff:
		return "VerifyOff"
	}
	return fmt.Sprintf("VerifyMode(%d)", int(m))
}

// bankCert is one certificate the bank may sign responses with.
type bankCert struct {
	keyID string
	cert  *x509.Certificate
	pub   *rsa.PublicKey
}

// WithResponseVerification sets how response signatures are checked
// (default [VerifyIfPresent]).
func WithResponseVerification(mode VerifyMode) Option {
	return func(c *config) error {
		if mode < VerifyIfPresent || mode > VerifyOff {
			return fmt.Errorf("client: invalid %v", mode)
		}
		c.verifyMode = mode
		return nil
	}
}

// WithBankCertificates sets the certificates the bank signs responses with.
// Give several while the bank rotates its certificate: the keyId of a
// response's Signature selects the certificate, and when none matches each
// is tried. The certificates must hold RSA keys.
func WithBankCertificates(certs ...*x509.Certificate) Option {
	return func(c *config) error {
		if len(certs) == 0 {
			return errors.New("client: WithBankCertificates needs at least one certificate")
		}
		for _, cert := range certs {
			if cert == nil {
				return errors.New("client: WithBankCertificates(nil)")
			}
			pub, ok := cert.PublicKey.(*rsa.PublicKey)
			if !ok {
				return errors.New("client: bank certificate key is not RSA")
			}
			c.bankCerts = append(c.bankCerts, bankCert{keyID: signing.KeyID(cert), cert: cert, pub: pub})
		}
		return nil
	}
}

// ResponseSignatureError is returned when the bank's response signature or
// Digest does not verify, or when [VerifyRequired] meets an unsigned
// response. The body was not decoded. It matches [ErrResponseSignature];
// Err is the cause (for example signing.ErrDigestMismatch or
// signing.ErrBadSignature).
type ResponseSignatureError struct {
	Operation  string
	StatusCode int
	RequestID  string
	Err        error
}

func (e *ResponseSignatureError) Error() string {
	return fmt.Sprintf("%s: response signature invalid (status %d, X-Request-ID %s): %v", e.Operation, e.StatusCode, e.RequestID, e.Err)
}

// Unwrap returns the cause.
func (e *ResponseSignatureError) Unwrap() error { return e.Err }

// Is matches ErrResponseSignature.
func (e *ResponseSignatureError) Is(target error) bool { return target == ErrResponseSignature }

var (
	errDigestNotSigned  = errors.New("the response has a body but its Signature does not cover the Digest")
	errRequestIDChanged = errors.New("the signed X-Request-ID is not the request's")
	errNoBankCertMatch  = errors.New("no bank certificate verifies the signature")
	// Refused by VerifyRequired only.
	errRequestIDNotSigned = errors.New("the response's Signature does not cover X-Request-ID")
	errDateNotSigned      = errors.New("the response's Signature does not cover Date")
	errCutBody            = fmt.Errorf("the error answer is longer than %d bytes, the most the client reads, so its Digest cannot be checked", maxErrorBody)
	errStaleDate          = fmt.Errorf("the response's signed Date is missing or more than %v from the local clock", maxClockOffset)
)

// checksSignatures reports whether the client verifies the bank's
// signatures: bank certificates are configured and verification is not
// off.
func (c *Client) checksSignatures() bool {
	return c.cfg.verifyMode != VerifyOff && len(c.cfg.bankCerts) > 0
}

// checkReply undoes r's Content-Encoding and verifies r per the client's
// [VerifyMode], once: later calls return the first verdict. It is the one
// way an answer is verified, whether by the retry loop (the clock-skew
// retry, the clock under VerifyRequired) or by Client.exchange.
func (c *Client) checkReply(r *reply, requestID string) error {
	if !r.checked {
		r.checked = true
		r.decoded, r.decodedCut, r.decodeErr = decodeContent(r.header, r.body, r.status)
		r.verifyErr = c.verifyResponse(r.header, r.body, r.decoded, r.cut || r.decodedCut, requestID)
	}
	return r.verifyErr
}

// verifyResponse checks a response's Signature and Digest per the
// client's [VerifyMode]. It reuses signing's parser and verifier: the
// signature covers the headers it lists; a body must be covered by a
// signed Digest that matches it; a signed X-Request-ID must be the
// request's, so that a signed answer to another request is refused.
//
// decoded is the body with its Content-Encoding undone, nil when it had
// none: the Digest of an encoded answer is taken over the bytes as sent
// (RFC 3230's instance), and over the decoded ones by a bank that reads
// it otherwise; either matches.
//
// cut says the client cut the (error) body at maxErrorBody: a Digest
// that matches neither body may then be the client's doing, so the
// Digest check is skipped under VerifyIfPresent and the answer refused
// under VerifyRequired (errCutBody), see maxErrorBody.
func (c *Client) verifyResponse(h http.Header, body, decoded []byte, cut bool, requestID string) error {
	mode := c.cfg.verifyMode
	if mode == VerifyOff {
		return nil
	}
	// Signature is one value whose parts are joined by commas: it cannot
	// be split over field lines, so several are malformed (checked below,
	// where the bank's certificates can check one), whatever the first
	// says; the first alone read made an empty line before the bank's
	// signature an unsigned answer, and another line after it unread.
	sigs := h.Values("Signature")
	value := ""
	if len(sigs) > 0 {
		value = sigs[0]
	}
	if len(sigs) > 1 && len(c.cfg.bankCerts) > 0 {
		return fmt.Errorf("%w: Signature on %d field lines", signing.ErrMalformed, len(sigs))
	}
	// Digest is a list (RFC 3230): several fields are one value, their
	// instance digests joined by commas (RFC 7230 section 3.2.2), as a
	// signature covering it joins them; each is checked.
	digest := strings.Join(h.Values("Digest"), ", ")
	verifyDigest := func() error {
		err := signing.VerifyDigest(digest, body)
		if err != nil && decoded != nil && signing.VerifyDigest(digest, decoded) == nil {
			return nil
		}
		if err != nil && cut && digest != "" && errors.Is(err, signing.ErrDigestMismatch) {
			if mode == VerifyRequired {
				return errCutBody
			}
			return nil
		}
		return err
	}
	checkDigest := func() error {
		if digest == "" {
			return nil
		}
		return verifyDigest()
	}
	if value == "" {
		if mode == VerifyRequired {
			return signing.ErrNoSignature
		}
		return checkDigest()
	}
	if len(c.cfg.bankCerts) == 0 {
		if l := c.cfg.logger; l != nil && c.warnedNoBankCert.CompareAndSwap(false, true) {
			l.LogAttrs(context.Background(), slog.LevelWarn,
				"psd2: the bank signs its responses but no bank certificate is configured (WithBankCertificates); signatures are not checked")
		}
		return checkDigest()
	}
	p, err := signing.ParseSignature(value)
	if err != nil {
		return err
	}
	if len(body) > 0 || digest != "" {
		if !slices.Contains(p.Headers, "digest") {
			return errDigestNotSigned
		}
		if err := verifyDigest(); err != nil {
			return err
		}
	}
	// The signature covers every X-Request-ID field line, joined (the
	// signing string): the signed value is the request's only when it is
	// the one line there. The first line alone being the request's is
	// not enough: "ours" then "another" is the bank signing another id.
	if vs := h.Values("X-Request-Id"); slices.Contains(p.Headers, "x-request-id") && (len(vs) != 1 || vs[0] != requestID) {
		return errRequestIDChanged
	}
	if mode == VerifyRequired {
		if err := c.checkFresh(h, p.Headers); err != nil {
			return err
		}
	}
	req := &http.Request{Header: h}
	err = errNoBankCertMatch
	for _, selected := range []bool{true, false} {
		for _, bc := range c.cfg.bankCerts {
			if (bc.keyID == p.KeyID || signing.MatchKeyID(p.KeyID, bc.cert)) != selected {
				continue
			}
			if err = p.Verify(req, bc.pub); err == nil {
				return nil
			}
		}
	}
	return err
}

// checkFresh is what VerifyRequired adds to a signature's checks (see
// [VerifyRequired]): the signature, whose headers are signed, covers
// X-Request-ID (checked against the request's by verifyResponse) and a
// Date within maxClockOffset of the local clock.
func (c *Client) checkFresh(h http.Header, signed []string) error {
	if !slices.Contains(signed, "x-request-id") {
		return errRequestIDNotSigned
	}
	if !slices.Contains(signed, "date") {
		return errDateNotSigned
	}
	date, ok := answerDate(h)
	if !ok {
		return errStaleDate
	}
	// Sub saturates: no abs, which would overflow at the minimum.
	if d := date.Sub(c.cfg.clock()); d > maxClockOffset || d < -maxClockOffset {
		return errStaleDate
	}
	return nil
}
