package site

import (
	"cmp"
	"net/http"

	"github.com/tppkit/psd2/client"
)

type companyPage struct {
	Token      string
	Agreements []agreementView
}

type agreementView struct {
	Index    int
	ID, Name string
	Current  bool
}

// company lets a corporate PSU choose the agreement (PSU-Corporate-ID) to
// act under (docs/interface.md section 5.10), from GET /v1/agreements.
func (s *Site) company(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	sess, err := s.session(r, key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if sess == nil || sess.Context != client.Corporate {
		s.message(w, r, http.StatusOK, messagePage{Heading: "No company", Text: "You act as a private person at your bank; there is no company agreement to choose."})
		return
	}
	ags, err := s.ais.Agreements(r.Context(), sess.RequestOptions(present(r)))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := companyPage{}
	for i, ag := range ags {
		p.Agreements = append(p.Agreements, agreementView{Index: i + 1, ID: ag.ID, Name: cmp.Or(ag.Name, ag.ID), Current: ag.ID == sess.PSUCorporateID})
	}
	if p.Token, err = s.newToken(r.Context(), key, "company"); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "company", frame{Title: "Company", Nav: "company"}, p)
}

// useAgreement sets the chosen agreement on the PSU's session
// (sca.Manager.UseAgreement) and shows its accounts; the bank asks for SCA
// when the PSU has not consented for that agreement yet.
func (s *Site) useAgreement(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil || !s.checkToken(w, r, key, "company") {
		if err != nil {
			s.message(w, r, http.StatusBadRequest, messagePage{Heading: "Form not readable", Problem: true, Text: "The form could not be read."})
		}
		return
	}
	sess, err := s.session(r, key)
	if err != nil || sess == nil {
		http.Redirect(w, r, "/company", http.StatusSeeOther)
		return
	}
	ags, err := s.ais.Agreements(r.Context(), sess.RequestOptions(present(r)))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	chosen := r.PostForm.Get("agreement")
	for _, ag := range ags {
		if ag.ID == chosen {
			if _, err := s.sessions.UseAgreement(r.Context(), key, ag.ID); err != nil {
				s.fail(w, r, err)
				return
			}
			http.Redirect(w, r, "/accounts", http.StatusSeeOther)
			return
		}
	}
	s.message(w, r, http.StatusBadRequest, messagePage{Heading: "Choose an agreement", Problem: true,
		Text: "Choose one of your company agreements."})
}
