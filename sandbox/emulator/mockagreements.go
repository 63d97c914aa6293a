package emulator

import (
	"bytes"
	"net/http"
	"slices"
)

// The links of a mock agreement (its _links in the sandbox customer
// listing, docs/interface.md section 2.8): self (GET, DELETE) and
// engagements (GET, POST). Every link the emulator advertises answers.
//
//	GET    /v1/sandbox/agreements/{id}              200 the agreement (as in the customer listing)
//	DELETE /v1/sandbox/agreements/{id}              204
//	GET    /v1/sandbox/agreements/{id}/engagements  200 {"engagements": [account ids]}
//	POST   /v1/sandbox/agreements/{id}/engagements  201 the agreement; body: one engagement or an array of them
//
// ASSUMPTION: the interface shows none of these shapes. An engagement is
// the object POST /v1/sandbox/agreements takes in its list
// ({"customer", "account": {"iban"}, "roles"}); the answers reuse the
// agreement's shape of the customer listing. An agreement of another
// TPP's sandbox is unknown (404), as every mock object is.
func (s *Server) registerAgreementRoutes(mux *http.ServeMux) {
	s.handleRead(mux, "GET /v1/sandbox/agreements/{id}", s.getAgreement)
	s.handle(mux, "DELETE /v1/sandbox/agreements/{id}", s.deleteAgreement)
	s.handleRead(mux, "GET /v1/sandbox/agreements/{id}/engagements", s.listEngagements)
	s.handle(mux, "POST /v1/sandbox/agreements/{id}/engagements", s.addEngagements)
}

// pathAgreement finds the agreement of the path in the caller's sandbox.
func (c *call) pathAgreement() (*agreement, error) {
	if ag := c.data().mockAgreement(c.pathValue("id")); ag != nil {
		return ag, nil
	}
	return nil, errNotFound("The agreement is unknown.").at("agreementId")
}

func (s *Server) getAgreement(c *call) error {
	ag, err := c.pathAgreement()
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, ag.json())
}

// deleteAgreement removes the agreement from its owner: later calls with
// its id as PSU-Corporate-ID get 401 CORPORATE_ID_INVALID.
func (s *Server) deleteAgreement(c *call) error {
	ag, err := c.pathAgreement()
	if err != nil {
		return err
	}
	c.data().removeAgreement(ag)
	return c.replyEmpty(http.StatusNoContent)
}

func (s *Server) listEngagements(c *call) error {
	ag, err := c.pathAgreement()
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		Engagements []string `json:"engagements"`
	}{append([]string{}, ag.accounts...)})
}

func (s *Server) addEngagements(c *call) error {
	ag, err := c.pathAgreement()
	if err != nil {
		return err
	}
	var es []engagement
	if bytes.HasPrefix(bytes.TrimSpace(c.body), []byte("{")) {
		var one engagement
		if err := c.decodeMock(&one); err != nil {
			return err
		}
		es = []engagement{one}
	} else if err := c.decodeMock(&es); err != nil {
		return err
	}
	if len(es) == 0 {
		return errFormat("", "The body must hold at least one engagement.")
	}
	if err := c.data().engageAll(ag, es, "engagements"); err != nil {
		return err
	}
	return c.reply(http.StatusCreated, ag.json())
}

// removeAgreement removes ag from its owner and the store.
func (st *store) removeAgreement(ag *agreement) {
	if cu := st.byID[ag.owner]; cu != nil {
		cu.agreements = slices.DeleteFunc(cu.agreements, func(id string) bool { return id == ag.id })
	}
	delete(st.agreements, ag.id)
	delete(st.mockAgreements, ag.mockID)
}
