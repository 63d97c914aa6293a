package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// scaFlow is a pending authorisation.
type scaFlow struct {
	state        string
	tpp          string
	kind         scaKind
	redirectURI  string
	tppSessionID string
	context      string
	created      time.Time
	onDone       func(scaResult) error
	details      scaDetails // what the page shows (scapage.go)
}

// scaResult is the outcome of an authorisation, handed to the callback of
// startSCA with s.mu held.
type scaResult struct {
	OK           bool
	Code         string // failure: the code of the redirect (SCA_INVALID, ...)
	Message      string
	Customer     *customer // success: who authenticated
	PSUID        string
	CorporateID  string // agreement id in CORPORATE context
	Context      string // PRIVATE or CORPORATE
	TPPSessionID string
	Now          time.Time
}

// scaInput is what the PSU enters on the authorisation page.
type scaInput struct {
	customerNumber string
	agreementID    string
	context        string // PRIVATE, CORPORATE, or "" for the customer's own
	cancel         bool
}

// finishSCA completes the authorisation state with what the PSU entered.
// The page and Authorize/Reject both end here. It returns the callback
// URL, and ErrSCAFailed (wrapped) when the SCA failed for a reason other
// than the PSU cancelling.
func (bk *bank) finishSCA(state string, in scaInput) (*url.URL, error) {
	bk.mu.Lock()
	defer bk.mu.Unlock()
	f := bk.flows[state]
	if f == nil {
		return nil, ErrAuthorisationUnknown
	}
	bk.dropFlowLocked(state)
	now := bk.now()

	fail := func(status int, code, msg string) (*url.URL, error) {
		if f.onDone != nil {
			_ = f.onDone(scaResult{Code: code, Message: msg, TPPSessionID: f.tppSessionID, Now: now})
		}
		u, err := callbackURL(f.redirectURI, [][2]string{
			{"system", "sca-frontend"}, {"status", strconv.Itoa(status)}, {"code", code}, {"message", msg},
		})
		if err != nil {
			return nil, err
		}
		if in.cancel {
			return u, nil
		}
		return u, fmt.Errorf("%w: %s", ErrSCAFailed, code)
	}

	if in.cancel {
		return fail(http.StatusUnauthorized, "SCA_INVALID", "The authentication was cancelled by the user")
	}
	data := bk.storeOf(f.tpp) // the TPP's sandbox (views.go)
	cust := data.customerByNumber(strings.TrimSpace(in.customerNumber))
	if cust == nil {
		return fail(http.StatusUnauthorized, "PSU_CREDENTIALS_INVALID", "Unknown customer number")
	}
	res := scaResult{OK: true, Customer: cust, PSUID: bk.psuID(f.tpp, cust.number), Context: contextPrivate,
		TPPSessionID: f.tppSessionID, Now: now}
	switch {
	case in.context == contextPrivate && cust.corporate():
		return fail(http.StatusUnauthorized, "CORPORATE_ID_INVALID", "This customer has no private accounts")
	case cust.corporate() || in.context == contextCorporate:
		res.Context = contextCorporate
		ag := in.agreementID
		if a := data.mockAgreement(ag); a != nil {
			ag = a.id // the sandbox listing's id of the agreement
		}
		if ag == "" && len(cust.agreements) > 0 {
			ag = cust.agreements[0]
		}
		if ag == "" && len(cust.grants) > 0 {
			ag = cust.grants[0]
		}
		if data.agreementOf(cust, ag) == nil {
			return fail(http.StatusUnauthorized, "CORPORATE_ID_INVALID", "The agreement is not available to this customer")
		}
		res.CorporateID = ag
	}
	if f.onDone != nil {
		if err := f.onDone(res); err != nil {
			status, code, msg := http.StatusBadRequest, "SCA_INVALID", "The operation was refused"
			var ae *apiError
			if errors.As(err, &ae) {
				status, code, msg = ae.status, ae.msg.Code, ae.msg.Text
			}
			f.onDone = nil
			return fail(status, code, msg)
		}
	}

	// The SCA completed: this TPP-Session-ID becomes the PSU's session (the
	// old one is invalid now, docs/interface.md section 3), and an AIS SCA grants consent.
	k := sessionKey{f.tpp, res.PSUID}
	bk.psus[k] = cust.number
	st := bk.sessions[k]
	if st == nil {
		st = &psuState{customer: cust.number, consents: map[string]time.Time{}}
		bk.sessions[k] = st
	}
	st.tppSessionID, st.scaAt = f.tppSessionID, now
	bk.notedSCA(cust.number, now) // scenario.go
	if f.kind == scaConsent {
		st.consents[res.CorporateID] = now
		st.revoked = false
	}

	params := [][2]string{{"psu-id", res.PSUID}, {"tpp-session-id", f.tppSessionID}, {"context", res.Context}}
	if res.CorporateID != "" {
		params = append(params, [2]string{"psu-corporate-id", res.CorporateID})
	}
	return callbackURL(f.redirectURI, params)
}

// callbackURL appends params to the TPP's redirect URI, keeping its own
// query (e.g. state) first. Values are percent-encoded with %20 for spaces,
// as the platform does.
func callbackURL(redirectURI string, params [][2]string) (*url.URL, error) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return nil, fmt.Errorf("emulator: bad redirect URI: %w", err)
	}
	var b strings.Builder
	b.WriteString(u.RawQuery)
	for _, p := range params {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p[0]))
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(p[1]), "+", "%20"))
	}
	u.RawQuery = b.String()
	return u, nil
}
