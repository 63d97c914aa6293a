package emulator

import (
	"net/http"
	"strings"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// TPP dialogue: the TPP's contact e-mail address at the bank (PUT and GET
// /v1/tpps/{tppId}/contact-information, body {"email": "..."}).
//
// Decisions where the platform's documentation is silent:
//   - GET before any PUT is 404 RESOURCE_UNKNOWN (not an empty address).
//   - A PUT replaces the TPP's address: one address per TPP, kept per
//     TPP identity (tppIdentity), so a renewed certificate keeps it. The
//     sandbox initialisation does not remove it: it is the TPP's
//     registration, not mock data.
//   - The path's tppId must name the calling TPP (see ownTPPID); another
//     TPP's id, or any id that is not the caller's, is 403 FORBIDDEN for
//     GET and PUT alike.
//   - The address must be a plain local-part@domain address of at most
//     254 characters (rules.CheckContactEmail), else 400 FORMAT_ERROR.

// contactState holds the contact address of each TPP, by tppIdentity.
// Guarded by s.mu; the zero value is ready.
type contactState struct {
	emails map[string]string
}

// contactJSON is the body of the contact information resource.
type contactJSON struct {
	Email string `json:"email"`
}

// registerTPPRoutes registers the TPP dialogue.
func (s *Server) registerTPPRoutes(mux *http.ServeMux) {
	s.handle(mux, "GET /v1/tpps/{tppId}/contact-information", s.getContact)
	s.handle(mux, "PUT /v1/tpps/{tppId}/contact-information", s.putContact)
}

// ownTPPID checks that the path's tppId is the calling TPP's: the
// organizationIdentifier of its certificate's subject (PSDNO-FSA-987654321),
// or the same without its "PSD" prefix (NO-FSA-987654321), the form one of
// the platform's pages shows. ASSUMPTION: the bank accepts both; this is
// the one place that decides it. A certificate without
// organizationIdentifier names no tppId.
func ownTPPID(c *call) error {
	id := c.pathValue("tppId")
	if org, ok := strings.CutPrefix(c.tpp.id, "org:"); ok && id != "" {
		if id == org || strings.HasPrefix(org, "PSD") && id == org[len("PSD"):] {
			return nil
		}
	}
	return newError(http.StatusForbidden, "FORBIDDEN", "A TPP can only read and register its own contact information.").at("tppId")
}

func (s *Server) getContact(c *call) error {
	if err := ownTPPID(c); err != nil {
		return err
	}
	email, ok := s.contacts.emails[c.tpp.id]
	if !ok {
		return errNotFound("No contact information is registered for this TPP.").at("tppId")
	}
	return c.reply(http.StatusOK, contactJSON{email})
}

func (s *Server) putContact(c *call) error {
	if err := ownTPPID(c); err != nil {
		return err
	}
	var body struct {
		Email *string `json:"email"`
	}
	if err := c.decode(&body); err != nil {
		return err
	}
	if v := rules.CheckContactEmail(body.Email); v != nil {
		return violation(v)
	}
	if s.contacts.emails == nil {
		s.contacts.emails = map[string]string{}
	}
	s.contacts.emails[c.tpp.id] = *body.Email
	return c.reply(http.StatusOK, contactJSON{*body.Email})
}
