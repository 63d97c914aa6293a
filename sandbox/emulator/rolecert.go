package emulator

import (
	"crypto/x509"
	"fmt"
	"time"
)

// roleCertificate refuses, for the control set-roles, a certificate the
// bank would not register a TPP's PSD2 roles for, naming why:
//
//   - a CA certificate (basic constraints CA:TRUE): it issues TPP
//     certificates (an eIDAS QTSP's) and signs no request, so it names
//     no TPP;
//   - one not valid at the server's clock, which certificates follow
//     (clock.go): every request it signs answers 401
//     CERTIFICATE_EXPIRED (auth.go), so roles for it are roles of no
//     caller;
//   - one whose TPP identity (tppIdentity: the subject's
//     organizationIdentifier, else the subject, else the certificate
//     itself) is no registered TPP's: the roles would be kept for a TPP
//     the bank does not know, and the control would answer 200 and change
//     nothing a request sees. A renewal of a registered TPP's certificate
//     (its organizationIdentifier) is that TPP, and is taken.
//
// Without a tpp argument the control takes the one registered TPP's
// certificate, which passes the last check by construction.
func (s *Server) roleCertificate(cert *x509.Certificate) error {
	if cert.BasicConstraintsValid && cert.IsCA {
		return argError("tpp is a CA certificate (basic constraints CA:TRUE): it issues TPP certificates and signs no request; give the TPP's own certificate")
	}
	if now := s.wireNow(); now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return argError(fmt.Sprintf("tpp's certificate is not valid at the emulator's time %s (valid from %s to %s): the bank answers every request it signs 401 CERTIFICATE_EXPIRED",
			now.UTC().Format(time.RFC3339), cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339)))
	}
	id := tppIdentity(cert)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tpps {
		if t.id == id {
			return nil
		}
	}
	return fmt.Errorf("%w: tpp names no TPP of the bank (a TPP is known by its certificate's organizationIdentifier, else its subject): register its certificate first (-trust, or Server.Trust)", ErrUnknownTPP)
}
