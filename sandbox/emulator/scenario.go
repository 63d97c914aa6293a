package emulator

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Scenario controls: in-process methods that make the emulator behave as
// the bank does in situations a TPP must handle but cannot bring about
// over the interface. Their state lives in scenarioState (Server.scn),
// guarded by s.mu. The payment batch on demand is [Controls.RunBatch].

// scenarioState is what the scenario controls set.
type scenarioState struct {
	roles      map[string]Role      // tppIdentity -> registered roles; absent: both
	noPayments map[string]bool      // BBANs whose payment permission the bank removed
	onlineSCA  map[string]time.Time // customer number -> the PSU's last SCA at the bank
}

// Role is a PSD2 role a TPP is registered for (docs/interface.md section
// 1.2). A TPP is registered for both unless [Controls.SetRoles] says
// otherwise.
type Role uint8

// The roles of [Controls.SetRoles].
const (
	// RoleAISP: account information (accounts, card accounts, balances,
	// transactions, consents).
	RoleAISP Role = 1 << iota
	// RolePISP: payment initiation (payments of every service, signing
	// baskets, GET /v1/user).
	RolePISP
)

// SetRoles registers the TPP of cert (its identity: a renewed
// certificate keeps the roles) for roles only, as the bank's register
// would: a call of the other role answers 401 CERTIFICATE_INVALID, the
// code of a certificate whose PSD2 attributes do not allow the service,
// with path TPP-Signature-Certificate (docs/interface.md section 1.2).
// GET /v1/agreements serves both roles; the mock-data and TPP contact
// operations serve any TPP. SetRoles(cert, RoleAISP|RolePISP) restores
// the default.
func (c *Controls) SetRoles(cert *x509.Certificate, roles Role) {
	s := c.s
	if cert == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scn.roles == nil {
		s.scn.roles = map[string]Role{}
	}
	s.scn.roles[tppIdentity(cert)] = roles
}

// roleOf returns the role a call of path needs, 0 for none.
func roleOf(path string) Role {
	switch {
	case strings.HasPrefix(path, "/v1/accounts"), strings.HasPrefix(path, "/v1/card-accounts"),
		path == "/v1/bank-offered-consents", path == "/v1/consents":
		return RoleAISP
	case path == "/v1/user", strings.HasPrefix(path, "/v1/signing-baskets"):
		return RolePISP
	}
	for _, svc := range rules.PaymentServices {
		if strings.HasPrefix(path, "/v1/"+svc+"/") {
			return RolePISP
		}
	}
	return 0
}

// checkRole refuses a call of a role the TPP is not registered for.
func (c *call) checkRole(pattern string) error {
	_, path, _ := strings.Cut(pattern, " ")
	need := roleOf(path)
	if need == 0 {
		return nil
	}
	c.s.mu.RLock()
	roles, set := c.s.scn.roles[c.tpp.id]
	c.s.mu.RUnlock()
	if !set || roles&need != 0 {
		return nil
	}
	what := "an AISP"
	if need == RolePISP {
		what = "a PISP"
	}
	return newError(http.StatusUnauthorized, "CERTIFICATE_INVALID",
		"The TPP is not registered as %s; its certificate does not allow this service.", what).at("TPP-Signature-Certificate")
}

// RemovePaymentPermission removes the PSU's permission to pay from the
// account with this BBAN, as the bank may do while the account stays
// listed in account information (docs/interface.md section 1.8). The
// account is still listed and read for every TPP, but a payment from it
// fails: its SCA redirect reports 400 PAYMENT_FAILED and the payment is
// RJCT, and one approved before is RJCT when the batch reaches it.
// [Controls.RestorePaymentPermission] undoes it.
func (c *Controls) RemovePaymentPermission(bban string) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scn.noPayments == nil {
		s.scn.noPayments = map[string]bool{}
	}
	s.scn.noPayments[bban] = true
}

// RestorePaymentPermission gives back what
// [Controls.RemovePaymentPermission] removed.
func (c *Controls) RestorePaymentPermission(bban string) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.scn.noPayments, bban)
}

// paymentBlocked reports whether the bank removed payment permission on
// the debtor account of ref (s.mu held).
func (bk *bank) paymentBlocked(st *store, ref *paymentrules.Account) bool {
	if len(bk.scn.noPayments) == 0 || st == nil {
		return false
	}
	a := st.debtorAccount(ref)
	return a != nil && bk.scn.noPayments[a.bban]
}

// onlineSCAWindow is how recently the PSU must have authenticated at the
// bank for its transactions to be read without it (docs/interface.md
// section 8: "accounts the PSU accessed online with SCA in the last 180
// days").
const onlineSCAWindow = 180 * 24 * time.Hour

// SetLastOnlineSCA tells the emulator when the PSU with customerNumber
// last authenticated with SCA at the bank (online banking, the app). When
// that is more than 180 days before the emulator clock, transactions of
// the PSU's accounts and card accounts (list and details) can no longer
// be read without the PSU present: 401 SCA_EXPIRED with a scaRedirect,
// for every TPP (docs/interface.md section 8). Balances still answer. An
// SCA through the TPP afterwards counts as a new one. A zero time forgets
// the setting: by default the emulator takes every PSU as recently
// authenticated.
func (c *Controls) SetLastOnlineSCA(customerNumber string, at time.Time) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if at.IsZero() {
		delete(s.scn.onlineSCA, customerNumber)
		return
	}
	if s.scn.onlineSCA == nil {
		s.scn.onlineSCA = map[string]time.Time{}
	}
	s.scn.onlineSCA[customerNumber] = at
}

// notedSCA records an SCA the PSU completed through a TPP at now, where
// SetLastOnlineSCA set a time (s.mu held).
func (bk *bank) notedSCA(customerNumber string, now time.Time) {
	if at, ok := bk.scn.onlineSCA[customerNumber]; ok && now.After(at) {
		bk.scn.onlineSCA[customerNumber] = now
	}
}

// onlineSCARule answers the 401 of the 180-day rule for a transactions
// call without the PSU present (s.mu held).
func (c *call) onlineSCARule(sess *session) error {
	if c.psuPresent() {
		return nil
	}
	at, ok := c.s.scn.onlineSCA[sess.customer.number]
	if !ok {
		return nil
	}
	if c.now.Sub(at) <= onlineSCAWindow {
		return nil
	}
	href, err := c.startSCA(scaConsent, nil)
	if err != nil {
		return err
	}
	return errSCARequired("SCA_EXPIRED",
		"The PSU has not authenticated at the bank for 180 days; transactions cannot be read without the PSU. Send the PSU to the scaRedirect link.", href)
}

// The errors of GrantAgreement for an unknown customer or agreement (the
// control API names the argument of each).
var (
	errGrantNoCustomer  = errors.New("emulator: GrantAgreement: unknown customer number")
	errGrantNoAgreement = errors.New("emulator: GrantAgreement: unknown agreement")
)

// GrantAgreement gives the customer with customerNumber access to the
// corporate agreement agreementID (its PSU-Corporate-ID or the mock-data
// id of the sandbox customer listing) in the sandbox of the TPP of cert, as a
// company gives an employee access: the PSU may then choose the CORPORATE
// context with that agreement during SCA ([Controls.AuthorizeInContext], or
// "For a company" on the page), and in that context sees and pays from
// the agreement's accounts only; in PRIVATE context it keeps its own
// accounts (docs/interface.md section 1.9). It reports
// [ErrUnknownTPP] for an unregistered certificate and an error for an
// unknown customer or agreement.
func (c *Controls) GrantAgreement(cert *x509.Certificate, agreementID, customerNumber string) error {
	s := c.s
	if cert == nil {
		return ErrUnknownTPP
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tpps[fingerprint(cert)] == nil {
		return ErrUnknownTPP
	}
	st := s.ensureStoreLocked(tppIdentity(cert), s.now())
	cu := st.customerByNumber(customerNumber)
	ag := st.agreementByEitherID(agreementID)
	switch {
	case cu == nil:
		return errGrantNoCustomer
	case ag == nil:
		return errGrantNoAgreement
	case st.agreementOf(cu, ag.id) == nil:
		cu.grants = append(cu.grants, ag.id)
	}
	return nil
}

// AuthorizeInContext is [Controls.Authorize] with the PSU choosing its
// context on the authorisation page: contextName PRIVATE (its own
// accounts; a corporate customer, who has none, fails the SCA with
// CORPORATE_ID_INVALID) or CORPORATE with agreementID, one of its own
// agreements or one it was granted ([Controls.GrantAgreement]); empty takes
// its first). The callback carries context and, in CORPORATE context,
// psu-corporate-id.
func (c *Controls) AuthorizeInContext(ctx context.Context, scaRedirect, customerNumber, contextName, agreementID string) (*url.URL, error) {
	s := c.s
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if contextName != contextPrivate && contextName != contextCorporate {
		return nil, errors.New("emulator: AuthorizeInContext: the context is PRIVATE or CORPORATE")
	}
	st, err := stateOf(scaRedirect)
	if err != nil {
		return nil, err
	}
	return s.finishSCA(st, scaInput{customerNumber: customerNumber, agreementID: agreementID, context: contextName})
}

// Consent is an AIS consent the bank holds for a PSU at a TPP, as
// [Controls.Consents] reports it.
type Consent struct {
	// CorporateID is the agreement the consent is for (PSU-Corporate-ID),
	// "" for a private PSU's own accounts.
	CorporateID string `json:"corporateId"`
	// Given is when the SCA that granted it completed, on the bank's clock.
	Given time.Time `json:"given"`
	// Expires is when it ends: Given plus the bank's consent validity.
	// From then on AIS calls get 401 CONSENT_EXPIRED with a scaRedirect.
	Expires time.Time `json:"expires"`
}

// Consents returns the AIS consents the customer with customerNumber gave
// the TPP of cert, ordered by CorporateID: none before the first consent
// SCA, after [Controls.RevokeConsent], or for an unknown TPP or customer.
// A test reads from it how many days a consent has left on the bank's
// clock ([Controls.Now]), which the bank's answers do not say.
func (c *Controls) Consents(cert *x509.Certificate, customerNumber string) []Consent {
	if cert == nil {
		return nil
	}
	s := c.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	id := tppIdentity(cert)
	st := s.sessions[sessionKey{id, s.psuID(id, customerNumber)}]
	if st == nil || st.revoked {
		return nil
	}
	out := make([]Consent, 0, len(st.consents))
	for corp, at := range st.consents {
		out = append(out, Consent{CorporateID: corp, Given: at, Expires: at.Add(s.profile.consentValidity())})
	}
	slices.SortFunc(out, func(a, b Consent) int { return strings.Compare(a.CorporateID, b.CorporateID) })
	return out
}

// Authorisation is an SCA waiting for the PSU, as
// [Controls.Authorisations] lists it.
type Authorisation struct {
	// SCARedirect is the authorisation page's link, relative to the
	// bank's host (/tap-sandbox/9999/?...&state=...): what
	// [Controls.Authorize] and [Controls.Reject] take.
	SCARedirect string `json:"scaRedirect"`
	// Kind is what the SCA is for: consent, user (GET /v1/user), payment
	// or basket.
	Kind string `json:"kind"`
	// Context is the context the page starts in, PRIVATE or CORPORATE.
	Context string `json:"context"`
	// Started is when the bank started it, on the bank's clock.
	Started time.Time `json:"started"`
}

// Authorisations lists the SCAs waiting for the PSU at the TPP of cert
// (every TPP's with a nil cert), oldest first: for a test that drives
// the bank from outside and has not kept the scaRedirect of an answer.
func (c *Controls) Authorisations(cert *x509.Certificate) []Authorisation {
	s := c.s
	id := ""
	if cert != nil {
		id = tppIdentity(cert)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Authorisation
	for _, f := range s.flows {
		if id != "" && f.tpp != id {
			continue
		}
		out = append(out, Authorisation{SCARedirect: scaPagePath + "?route_secesb_id=1&flow=psd2&state=" + f.state + "&context=" + f.context,
			Kind: string(f.kind), Context: f.context, Started: f.created})
	}
	slices.SortFunc(out, func(a, b Authorisation) int { return a.Started.Compare(b.Started) })
	return out
}
