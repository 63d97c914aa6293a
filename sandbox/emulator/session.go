package emulator

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Session rules (docs/interface.md sections 3 and 8;
// the platform's session model).
const (
	scaValidity     = time.Hour           // SCA within one TPP-Session-ID
	consentValidity = 90 * 24 * time.Hour // a consent, then 401 + scaRedirect
	historyLimit    = 90 * 24 * time.Hour // history without a fresh SCA or without the PSU
	budgetWindow    = 24 * time.Hour      // rolling window of the access budget
	budgetCalls     = 4                   // calls per account and endpoint without the PSU
)

// psuNamespace makes PSU-IDs: a name-based UUID of the TPP's identity
// ([tppIdentity]) and the customer number, so it is stable per TPP and
// customer (docs/interface.md section 5.9: "unique per TPP and ASPSP pair
// and unchanging"), also when the TPP renews its certificate.
var psuNamespace = uuid.MustParse("6f0d2b5e-8a52-4c39-9a53-3f1f4b1b7c10")

// tppIdentity is who a TPP is to the bank, whatever certificate it signs
// with: everything the emulator keeps per TPP (PSU-IDs, sessions and
// consents, pending authorisations, payments and baskets, access budgets)
// is keyed by it, so a TPP that renews or rotates its certificate keeps
// its PSUs' sessions. It is, in order:
//
//   - "org:" and the subject's organizationIdentifier (OID 2.5.4.97, e.g.
//     PSDNO-FSA-987654321), which an eIDAS PSD2 certificate carries and a
//     renewal keeps;
//   - without one, "subject:" and the whole subject name (RFC 2253
//     string): a renewal with the same subject is the same TPP;
//   - with an empty subject, "cert:" and the certificate's SHA-256
//     fingerprint: each such certificate is a TPP of its own.
func tppIdentity(c *x509.Certificate) string {
	for _, n := range c.Subject.Names {
		if n.Type.Equal(oidOrganizationIdentifier) {
			if v, ok := n.Value.(string); ok && strings.TrimSpace(v) != "" {
				return "org:" + strings.TrimSpace(v)
			}
		}
	}
	if dn := c.Subject.String(); dn != "" {
		return "subject:" + dn
	}
	return "cert:" + fingerprint(c)
}

// psuKey identifies a PSU to one TPP.
type psuKey struct{ tpp, psuID string }

// sessionKey identifies the session state of a PSU at one TPP.
type sessionKey = psuKey

// budgetKey counts calls without the PSU per TPP, resource and operation.
type budgetKey struct{ tpp, resource, op string }

// psuState is what the bank keeps for a PSU at one TPP.
type psuState struct {
	customer     string               // customer number
	tppSessionID string               // the session id of the last completed SCA
	scaAt        time.Time            // when that SCA completed
	consents     map[string]time.Time // AIS consent per corporate id ("" private)
	revoked      bool
}

// session is a verified PSU session handed to handlers.
type session struct {
	customer    *customer
	psuID       string
	corporateID string // agreement id in CORPORATE context
	scaAt       time.Time
	// fresh: the SCA of this session is less than an hour old.
	fresh bool
}

// psuID returns the PSU-ID the SCA redirect gives tppID for a customer.
func (bk *bank) psuID(tppID, customerNumber string) string {
	return uuid.NewSHA1(psuNamespace, []byte(tppID+"/"+customerNumber)).String()
}

// customerForPSU returns the customer behind psuID for tppID, or nil when
// no SCA of this TPP produced that PSU-ID. Needs s.mu held.
func (bk *bank) customerForPSU(tppID, psuID string) *customer {
	if id, ok := rules.CanonicalUUID(psuID); ok {
		psuID = id
	}
	n, ok := bk.psus[psuKey{tppID, psuID}]
	if !ok {
		return nil
	}
	return bk.storeOf(tppID).customerByNumber(n)
}

// checkPSU checks the PSU a payment or signing basket is created for
// (docs/interface.md sections 4.1 to 4.3, 5.9, 5.10) and returns its
// customer. A PISP learns the PSU-ID from the redirect after the SCA that
// GET /v1/user starts (or a consent's), so:
//
//   - PSU-ID must be a UUID (400 FORMAT_ERROR) that an SCA of this TPP
//     issued; a PSU-ID the emulator never gave this TPP is 401
//     PSU_CREDENTIALS_INVALID ("the PSU-ID cannot be matched by the
//     ASPSP", the Berlin Group meaning of the code; no scaRedirect: the
//     TPP gets a PSU-ID through GET /v1/user);
//   - a corporate PSU needs PSU-Corporate-ID (400 HTTP_HEADER_REQUIRED)
//     naming one of its agreements, and a private PSU sends none (401
//     CORPORATE_ID_INVALID), as on AIS calls;
//   - with withContext (payments), a PSU-Context that is sent must be
//     PRIVATE or CORPORATE (400 FORMAT_ERROR) and the PSU's own context
//     (400 FORMAT_ERROR): the redirect's context parameter says which.
//     Without one the payment is created, as the platform was recorded
//     doing for a production TPP agent;
//   - PSU-ID compares as a UUID: any case of an issued PSU-ID is that
//     PSU-ID.
//
// The headers' presence is checked before (rules.RequirementOf). Needs s.mu held.
func (c *call) checkPSU(withContext bool) (*customer, error) {
	psuID, v := rules.CheckPSUID(c.header("PSU-ID"))
	if v != nil {
		return nil, violation(v)
	}
	cust := c.s.customerForPSU(c.tpp.id, psuID)
	if cust == nil {
		return nil, newError(http.StatusUnauthorized, "PSU_CREDENTIALS_INVALID",
			"The PSU-ID was not issued to this TPP. Get the PSU's PSU-ID from the redirect after the SCA that GET /v1/user starts.").at("PSU-ID")
	}
	corp := c.header("PSU-Corporate-ID")
	switch {
	case cust.corporate() && corp == "":
		return nil, newError(http.StatusBadRequest, "HTTP_HEADER_REQUIRED", "A corporate user must send PSU-Corporate-ID.").at("PSU-Corporate-ID")
	case corp != "" && c.data().agreementOf(cust, corp) == nil:
		return nil, newError(http.StatusUnauthorized, "CORPORATE_ID_INVALID", "PSU-Corporate-ID is not an agreement of this PSU.").at("PSU-Corporate-ID")
	}
	if !withContext {
		return cust, nil
	}
	if v := rules.CheckPSUContext(c.header("PSU-Context"), corp); v != nil {
		return nil, violation(v)
	}
	return cust, nil
}

// sessionMode says what a call needs from the PSU session.
type sessionMode int

const (
	needConsent      sessionMode = iota // an AIS consent; PSU-Corporate-ID for corporate users
	needFreshConsent                    // as needConsent, and SCA within the hour (listing accounts)
	needPSU                             // a consent, any corporate id (GET /v1/agreements)
	needFreshSCA                        // SCA within the hour, no consent (GET /v1/user)
)

// aisSession checks the PSU session of an AIS call; fresh asks for an SCA
// less than one hour old (listing accounts and card accounts).
func (c *call) aisSession(fresh bool) (*session, error) {
	if fresh {
		return c.session(needFreshConsent)
	}
	return c.session(needConsent)
}

// session checks the headers that identify the PSU session (PSU-ID,
// PSU-Corporate-ID, TPP-Session-ID) against the bank's state. Answers:
// 400 HTTP_HEADER_REQUIRED without TPP-Redirect-URI or TPP-Session-ID (SCA
// may start), 400 FORMAT_ERROR for a PSU-ID that is not a UUID, 400
// HTTP_HEADER_REQUIRED for a corporate user without PSU-Corporate-ID, 401
// CORPORATE_ID_INVALID for an agreement that is not the user's, 403
// CONSENT_UNKNOWN after revocation, and 401 with a scaRedirect when a
// (new) SCA is needed: no PSU-ID, unknown PSU-ID, no consent, consent
// older than 90 days, a TPP-Session-ID other than that of the last SCA, an
// SCA older than one hour where freshness is needed.
func (c *call) session(mode sessionMode) (*session, error) {
	if err := c.require("TPP-Redirect-URI", "TPP-Session-ID"); err != nil {
		return nil, err
	}
	kind := scaConsent
	if mode == needFreshSCA {
		kind = scaUser
	}
	redirect := func(code, text string) error {
		href, err := c.startSCA(kind, nil)
		if err != nil {
			return err
		}
		return errSCARequired(code, text, href)
	}
	if c.header("PSU-ID") == "" {
		return nil, redirect("CONSENT_INVALID", "No valid session for this PSU. Send the PSU to the scaRedirect link.")
	}
	psuID, v := rules.CheckPSUID(c.header("PSU-ID"))
	if v != nil {
		return nil, violation(v)
	}
	cust := c.s.customerForPSU(c.tpp.id, psuID)
	if cust == nil {
		return nil, redirect("CONSENT_INVALID", "No valid session for this PSU. Send the PSU to the scaRedirect link.")
	}
	corp := c.header("PSU-Corporate-ID")
	if mode != needPSU {
		switch {
		case cust.corporate() && corp == "":
			return nil, newError(http.StatusBadRequest, "HTTP_HEADER_REQUIRED", "A corporate user must send PSU-Corporate-ID.").at("PSU-Corporate-ID")
		case corp != "" && c.data().agreementOf(cust, corp) == nil:
			return nil, newError(http.StatusUnauthorized, "CORPORATE_ID_INVALID", "PSU-Corporate-ID is not an agreement of this PSU.").at("PSU-Corporate-ID")
		}
	}
	st := c.s.sessions[sessionKey{c.tpp.id, psuID}]
	if st == nil {
		return nil, redirect("CONSENT_INVALID", "No valid session for this PSU. Send the PSU to the scaRedirect link.")
	}
	if st.revoked && mode != needFreshSCA {
		return nil, newError(http.StatusForbidden, "CONSENT_UNKNOWN", "The consent for this PSU and TPP does not exist or has been revoked.")
	}
	sess := &session{customer: cust, psuID: psuID, corporateID: corp, scaAt: st.scaAt,
		fresh: c.now.Sub(st.scaAt) <= scaValidity}
	switch mode {
	case needConsent, needFreshConsent:
		at, ok := st.consents[corp]
		if !ok {
			return nil, redirect("CONSENT_INVALID", "No consent for this PSU. Send the PSU to the scaRedirect link.")
		}
		if v := c.s.profile.consentValidity(); c.now.Sub(at) > v {
			return nil, redirect("CONSENT_EXPIRED", fmt.Sprintf("The consent has expired (%d days). Send the PSU to the scaRedirect link.", int(v/(24*time.Hour))))
		}
	case needPSU:
		if len(st.consents) == 0 {
			return nil, redirect("CONSENT_INVALID", "No consent for this PSU. Send the PSU to the scaRedirect link.")
		}
	}
	if st.tppSessionID != c.header("TPP-Session-ID") {
		return nil, redirect("CONSENT_INVALID", "TPP-Session-ID is not the session of the last SCA. Send the PSU to the scaRedirect link.")
	}
	if (mode == needFreshConsent || mode == needFreshSCA) && !sess.fresh {
		return nil, redirect("SCA_EXPIRED", "The SCA of this session is older than one hour. Send the PSU to the scaRedirect link.")
	}
	return sess, nil
}

// budget counts a balances or transactions call without the PSU present:
// at most 4 per account, operation and TPP in a rolling 24 hours
// (docs/interface.md section 8), else 429 ACCESS_EXCEEDED. Calls with the PSU are free.
func (c *call) budget(resource, op string) error {
	if c.psuPresent() {
		return nil
	}
	if !c.s.budgets.take(c.tpp.id, resource, op, c.now) { // sharded locks (limits.go)
		return newError(http.StatusTooManyRequests, "ACCESS_EXCEEDED",
			"The access limit of 4 calls per 24 hours without the PSU present is exceeded for this account.")
	}
	return nil
}

// RevokeConsent revokes every consent the customer gave (as a PSU does
// directly with the bank, docs/interface.md section 1.8): later AIS calls of any TPP for
// that customer get 403 CONSENT_UNKNOWN until the PSU goes through SCA
// again. An unknown customer number is ignored.
func (c *Controls) RevokeConsent(customerNumber string) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.sessions {
		if st.customer == customerNumber {
			st.revoked = true
			st.consents = map[string]time.Time{}
		}
	}
}
