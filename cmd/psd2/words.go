package main

import (
	"crypto/x509"
	"errors"
	"regexp"
	"strings"

	"github.com/tppkit/psd2/client"
)

// codeWords says what the bank's codes an operator meets most mean.
var codeWords = map[string]string{
	client.CodeCertificateInvalid: "the bank does not accept this TPP's certificate: check -cert and -key, and that the bank knows the TPP",
	client.CodeCertificateExpired: "the TPP's certificate has expired",
	client.CodeConsentUnknown:     "the bank knows no such consent for this PSU and TPP",
	client.CodeConsentInvalid:     "the consent is not valid: the PSU must consent again",
	client.CodeConsentExpired:     "the consent has expired: the PSU must consent again",
	client.CodeAccessExceeded:     "the account's calls without the PSU for the last 24 hours are spent",
	client.CodeFormatError:        "the bank refused the request's form",
	client.CodeResourceUnknown:    "the bank knows no such resource",
	client.CodeSystemError:        "the bank failed",
	"SIGNATURE_INVALID":           "the bank could not verify the request's signature: check -cert and -key",
	"SIGNATURE_MISSING":           "the bank found no signature on the request",
}

// pkgSegment matches what an SDK package puts before its errors: its
// name ("journal"), or an operation ("journal.Resolve"). An operator
// reads them as stutter ("journal: journal: store: store: ...").
var pkgSegment = regexp.MustCompile(`^(journal|store|client|pgstore|payments|accounts|banks|basket|budget|sandbox|sca|signing|tpp|events|txsync|refresh|emulator)(\.[A-Z][A-Za-z]*)?$`)

// words is err's message as an operator reads it: on one line, without
// the package names and operations the SDK's layers prefix, and without
// a part said twice in a row.
func words(err error) string {
	var out []string
	for _, part := range strings.Split(err.Error(), ": ") {
		switch {
		case pkgSegment.MatchString(strings.TrimSpace(part)):
			continue
		case len(out) > 0 && out[len(out)-1] == part:
			continue
		}
		// A part that starts with a package's name ("store: no value")
		// inside a longer one is left as it is: only whole parts go.
		out = append(out, part)
	}
	msg := err.Error()
	if len(out) > 0 {
		msg = lines(strings.Join(out, ": "))
	}
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ce *client.Error
	switch {
	case errors.As(err, &ce):
		// The bank's code in words: the error's line carries the code
		// only, never the bank's text (which may echo the request).
		for _, m := range ce.Messages {
			if w, ok := codeWords[m.Code]; ok {
				msg += " (" + w + ")"
				break
			}
		}
	case errors.As(err, &ua):
		msg += " (the bank's TLS certificate is signed by an authority this machine does not trust: for a bank with its own CA, such as the emulator, give -ca with its ca.pem)"
	case errors.As(err, &he):
		msg += " (the bank's TLS certificate is for another host: check -url or -bank)"
	}
	return msg
}
