package sca

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact"
)

// SCAValidity is how long an SCA holds within one TPP-Session-ID
// (docs/interface.md sections 3 and 8). After it, the bank asks for SCA again.
const SCAValidity = time.Hour

// ConsentValidity is how long a consent granted at SCA lasts when the
// bank's own figure is not given: 90 days, the platform's session model as
// a production TPP agent used it (docs/interface.md section 8). It is a
// per-bank fact: give a bank's figure with [WithConsentValidity] (package
// banks holds it per bank). After the end an AIS call answers 401 with a
// scaRedirect.
const ConsentValidity = 90 * 24 * time.Hour

// The PSU contexts of the callback's context parameter are client's
// [client.PSUContext] values: [client.Private], the PSU's own accounts,
// and [client.Corporate], accounts of an agreement the PSU was granted
// access to (calls then need PSU-Corporate-ID, docs/interface.md section
// 5.10).

// Session is a PSU's session after a completed SCA: the ids the bank's
// redirect returned (docs/interface.md sections 5.9, 6) and the time of the SCA. It is
// plain data; keep it in a [store.Store] with [SaveSession] and send it on later
// calls with [Session.RequestOptions].
//
// PSU-ID, PSU-Corporate-ID, TPP-Session-ID and the account ids are
// personal data or let a reader act in the PSU's session. Every printed
// form of a Session (String, GoString, LogValue, MarshalJSON) shows the
// ids as [redacted] and the account ids only as a count. The form that
// keeps them is [Session.MarshalBinary], which the stores use; keep a
// Session elsewhere (a web session, a database) with it too, not with
// json.Marshal.
type Session struct {
	// Key is the TPP-chosen key the session is stored under (for example
	// the TPP's own user id); empty when the session was never stored.
	Key string `json:"key,omitempty"`
	// PSUID is the psu-id of the redirect, a UUID unique per TPP and bank.
	PSUID string `json:"psuId"`
	// PSUCorporateID is the psu-corporate-id (the chosen agreement) in
	// CORPORATE context, else empty.
	PSUCorporateID string `json:"psuCorporateId,omitempty"`
	// TPPSessionID is the TPP-Session-ID the SCA completed in.
	TPPSessionID string `json:"tppSessionId"`
	// Context is PRIVATE or CORPORATE.
	Context client.PSUContext `json:"context"`
	// SCAAt is when the SCA completed (when the callback was accepted).
	SCAAt time.Time `json:"scaAt"`
	// AccountIDs and CardAccountIDs are the resource ids of the accounts
	// and card accounts the PSU consented to, as listed right after the
	// SCA, while listing is still allowed ([SCAValidity]). They let a TPP
	// refresh the accounts later without the PSU (package refresh,
	// refresh.Remember). Empty when never listed. Set them with
	// [Session.WithAccounts].
	AccountIDs     []string `json:"accountIds,omitempty"`
	CardAccountIDs []string `json:"cardAccountIds,omitempty"`
	// ConsentUntil is the end of the consent when the bank told it (a
	// validUntil), or the end carried over from the PSU's previous session
	// by an SCA that granted no consent ([Session.After]); zero means SCAAt
	// plus [ConsentValidity]. See [Session.ConsentExpiresAt].
	ConsentUntil time.Time `json:"consentUntil,omitzero"`
	// NoConsent is set when the SDK knows of no AIS consent in this
	// session: its SCA granted none (a payment, GET /v1/user; see
	// [Purpose]) and no previous session of the same PSU had one to carry
	// over. ConsentExpiresAt is then zero. It is
	// false in sessions stored before the field existed, which keep their
	// old meaning (a consent of SCAAt plus [ConsentValidity]).
	NoConsent bool `json:"noConsent,omitempty"`
}

// MaxAccounts bounds the account ids, and separately the card account
// ids, a Session keeps (far above any PSU's accounts at one bank), so
// that a stored session stays small.
const MaxAccounts = 1000

// ErrInvalidSession is returned when a Session lacks a valid PSU-ID or
// TPP-Session-ID, or a corporate id is not a UUID.
var ErrInvalidSession = errors.New("sca: invalid session")

// Validate checks the fields a call needs: PSU-ID a UUID, a TPP-Session-ID,
// a known context, and PSU-Corporate-ID a UUID when set.
func (s *Session) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: nil", ErrInvalidSession)
	case !isUUID(s.PSUID):
		return fmt.Errorf("%w: PSU-ID is not a UUID", ErrInvalidSession)
	case s.TPPSessionID == "" || !headerSafe(s.TPPSessionID) || len(s.TPPSessionID) > maxParamLen:
		return fmt.Errorf("%w: TPP-Session-ID missing or invalid", ErrInvalidSession)
	case !s.Context.Valid():
		return fmt.Errorf("%w: context is not PRIVATE or CORPORATE", ErrInvalidSession)
	case s.PSUCorporateID != "" && !isUUID(s.PSUCorporateID):
		return fmt.Errorf("%w: PSU-Corporate-ID is not a UUID", ErrInvalidSession)
	case s.Context == client.Private && s.PSUCorporateID != "":
		return fmt.Errorf("%w: PSU-Corporate-ID in PRIVATE context", ErrInvalidSession)
	}
	if err := checkAccountIDs(s.AccountIDs); err != nil {
		return err
	}
	return checkAccountIDs(s.CardAccountIDs)
}

// checkAccountIDs refuses more than [MaxAccounts] ids, an empty id and
// one that cannot be a path segment of a call (too long, control
// characters).
func checkAccountIDs(ids []string) error {
	if len(ids) > MaxAccounts {
		return fmt.Errorf("%w: more than %d account ids", ErrInvalidSession, MaxAccounts)
	}
	for _, id := range ids {
		if id == "" || len(id) > maxParamLen || !headerSafe(id) {
			return fmt.Errorf("%w: an account id is empty or invalid", ErrInvalidSession)
		}
	}
	return nil
}

// WithAccounts returns a copy of s that remembers the accounts and card
// accounts the PSU consented to (their resource ids, as listed by the
// accounts package right after the SCA; duplicates are dropped). Store
// the copy ([SaveSession]) so that background refreshes can use the ids
// after the hour in which listing is allowed. The ids are personal data:
// no printed form of a Session shows them.
func (s *Session) WithAccounts(accountIDs, cardAccountIDs []string) (*Session, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil", ErrInvalidSession)
	}
	c := *s
	var err error
	if c.AccountIDs, err = uniqueIDs(accountIDs); err != nil {
		return nil, err
	}
	if c.CardAccountIDs, err = uniqueIDs(cardAccountIDs); err != nil {
		return nil, err
	}
	for _, ids := range [2][]string{c.AccountIDs, c.CardAccountIDs} {
		if err := checkAccountIDs(ids); err != nil {
			return nil, err
		}
		if err := checkListedIDs(ids); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// checkListedIDs refuses, as [Session.WithAccounts] takes the ids of a
// bank's listing to store, one that no later call could put in a path
// (client.CheckID: spaces around it, bytes that are not UTF-8, a dot
// segment, a C1 control character): every refresh of it would be
// refused before sending. The error names no id. A stored session is
// not held to it ([Session.Validate] keeps its older rule), so that one
// stored before is still read.
func checkListedIDs(ids []string) error {
	for _, id := range ids {
		if client.CheckID("accountId", id) != nil {
			return fmt.Errorf("%w: an account id is not one a call can name", ErrInvalidSession)
		}
	}
	return nil
}

// uniqueIDs returns a copy of ids without repeats, in their first order;
// nil for none. The ids come from the bank's listings (as many accounts
// as an answer holds within the client's limits: up to 20,000 JSON
// objects) or from the caller, of any count: each is looked up in a
// set, once, and the copy stops, refused as checkAccountIDs refuses it,
// as soon as it would hold more than [MaxAccounts] ids. Comparing each
// id with those kept before it, as it once did, took time growing with
// the square of the count: half a second of CPU for 20,000 ids of one
// length, seconds for 40,000, minutes for 300,000, before the bound
// refused them.
func uniqueIDs(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out := make([]string, 0, min(len(ids), MaxAccounts))
	seen := make(map[string]struct{}, min(len(ids), MaxAccounts))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			continue
		}
		if len(out) == MaxAccounts {
			return nil, fmt.Errorf("%w: more than %d account ids", ErrInvalidSession, MaxAccounts)
		}
		seen[id] = struct{}{}
		out = append(out, id)
	}
	return out, nil
}

// ConsentExpiresAt is when the session's consent ends: ConsentUntil when
// the bank told it or an SCA that granted no consent carried it over,
// else [ConsentValidity] (90 days) after the SCA. After it every account
// call answers 401 and the PSU must give consent again. It is zero for a
// session without an SCA time or without a consent ([Session.NoConsent]).
func (s *Session) ConsentExpiresAt() time.Time {
	switch {
	case s == nil, s.NoConsent:
		return time.Time{}
	case !s.ConsentUntil.IsZero():
		return s.ConsentUntil
	case s.SCAAt.IsZero():
		return time.Time{}
	}
	return s.SCAAt.Add(ConsentValidity)
}

// After returns the PSU's session once s's SCA completed, when prev was
// the PSU's session before it ([Manager.HandlerFor] calls it with the
// stored session; call it after [Flow.ParseCallback] when keeping
// sessions yourself).
//
// The AIS consent is granted by the consent flow's SCA only; the SCA of a
// payment or of GET /v1/user grants none
// (docs/interface.md sections 5.10 and 10, [Purpose]). So when s's SCA
// granted no consent ([Session.NoConsent]) and prev is the same PSU
// (PSU-ID and PSU-Corporate-ID), After returns a copy of s with prev's
// consent end ([Session.ConsentExpiresAt], kept, never extended) and
// prev's remembered account and card account ids. Otherwise (a consent
// SCA: a fresh 90 days, the accounts to be listed again; another PSU or
// agreement; no prev) it returns s unchanged.
func (s *Session) After(prev *Session) *Session {
	if s == nil || !s.NoConsent || prev == nil ||
		prev.PSUID != s.PSUID || prev.PSUCorporateID != s.PSUCorporateID {
		return s
	}
	c := *s
	c.AccountIDs, c.CardAccountIDs = slices.Clone(prev.AccountIDs), slices.Clone(prev.CardAccountIDs)
	if end := prev.ConsentExpiresAt(); !end.IsZero() {
		c.NoConsent, c.ConsentUntil = false, end
	}
	return &c
}

// afterUnknown is [Session.After] for [Manager.HandlerFor], which also
// knows when the SCA's purpose is unknown: such an SCA keeps the consent
// end and accounts of the same PSU's previous session, as one that
// granted no consent does, so that a consent is never extended on a
// guess; without such a session s stands as it is (see
// [Purpose.GrantsConsent]).
func (s *Session) afterUnknown(prev *Session) *Session {
	if s == nil || s.NoConsent || prev == nil ||
		prev.PSUID != s.PSUID || prev.PSUCorporateID != s.PSUCorporateID {
		return s.After(prev)
	}
	c := *s
	c.NoConsent = true
	return c.After(prev)
}

// ConsentValid reports whether the session's consent still holds at now.
// A session without an SCA time or with [Session.NoConsent] has none.
func (s *Session) ConsentValid(now time.Time) bool {
	end := s.ConsentExpiresAt()
	return !end.IsZero() && now.Before(end)
}

// ConsentRenewalDue reports whether the consent ends within window of now
// (or has ended, or is unknown): the time to ask the PSU, next time they
// are present, to renew it with a new SCA before background refreshes
// start failing. The window is the caller's choice, for example 7 days.
func (s *Session) ConsentRenewalDue(now time.Time, window time.Duration) bool {
	end := s.ConsentExpiresAt()
	return end.IsZero() || !now.Before(end.Add(-window))
}

// SCAValid reports whether the session's SCA is less than [SCAValidity]
// old at now, so calls needing SCA (listing accounts, full transaction
// history) go through without sending the PSU to the bank again
// (docs/interface.md section 3). A session without an SCA time is not valid.
func (s *Session) SCAValid(now time.Time) bool {
	if s == nil || s.SCAAt.IsZero() {
		return false
	}
	return now.Before(s.SCAExpiresAt())
}

// SCAExpiresAt is when the session's SCA stops holding.
// A nil Session's is the zero time.
func (s *Session) SCAExpiresAt() time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.SCAAt.Add(SCAValidity)
}

// NeedsCorporateID reports whether the session is CORPORATE but has no
// PSU-Corporate-ID yet: list the agreements (accounts.Service.Agreements) and choose one
// with [Session.WithCorporate] before calling (a corporate user without
// PSU-Corporate-ID gets 400, docs/interface.md section 5.10).
func (s *Session) NeedsCorporateID() bool {
	return s != nil && s.Context == client.Corporate && s.PSUCorporateID == ""
}

// WithCorporate returns a copy of s in CORPORATE context with
// PSU-Corporate-ID set to agreementID (an id listed by accounts.Service.Agreements). The
// bank may then answer with a scaRedirect: a new consent for that agreement
// (docs/interface.md section 5.10).
func (s *Session) WithCorporate(agreementID string) (*Session, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil", ErrInvalidSession)
	}
	if !isUUID(agreementID) {
		return nil, fmt.Errorf("%w: PSU-Corporate-ID is not a UUID", ErrInvalidSession)
	}
	c := *s
	if c.PSUCorporateID != agreementID {
		// Another agreement is another consent: its accounts are not
		// those remembered.
		c.AccountIDs, c.CardAccountIDs = nil, nil
	}
	c.Context = client.Corporate
	c.PSUCorporateID = agreementID
	return &c, nil
}

// RequestOptions returns the request option that ties a call to this
// session, with everything the session knows: PSU-ID, PSU-Corporate-ID
// (when set), PSU-Context and TPP-Session-ID (docs/interface.md sections
// 4.2, 5.9, 5.10). TPP-Redirect-URI is the client's to send: set it once
// with client.WithDefaults.
//
// When the PSU is actively present, pass the PSU's request data (at least
// IPAddress; docs/interface.md section 5.14) in present: its fields are sent too, with ID
// and CorporateID always taken from the session. Pass nil when the TPP acts
// without the PSU; balances and transactions then count against the
// 4-calls-per-24-hours budget (docs/interface.md section 8).
//
// The option fails the call (nothing is sent) when the session is invalid.
func (s *Session) RequestOptions(present *client.PSU) client.RequestOption {
	if err := s.Validate(); err != nil {
		return client.FailCall(err)
	}
	var p client.PSU
	if present != nil {
		p = *present
	}
	p.ID = s.PSUID
	p.CorporateID = s.PSUCorporateID
	return client.Combine(client.WithPSU(p), client.WithPSUContext(s.Context), client.WithTPPSessionID(s.TPPSessionID))
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// ErrRedactedForm is returned when decoding a Session or a Pending from its
// redacted JSON form (what json.Marshal writes): the ids and the state are
// gone. Store them with MarshalBinary and read them with UnmarshalBinary.
var ErrRedactedForm = errors.New("sca: value is the redacted JSON form, not the storage form (use MarshalBinary)")

// sessionData is the storage form of a Session: the type without its
// methods, so encoding/json writes every field in clear, the document the
// stores have always held.
type sessionData Session

// UnmarshalJSON reads the storage form (what [Session.MarshalBinary]
// writes, and what stores held before MarshalJSON redacted) and refuses
// the redacted form with [ErrRedactedForm].
func (s *Session) UnmarshalJSON(b []byte) error {
	var d sessionData
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	if d.PSUID == redact.Redacted || d.PSUCorporateID == redact.Redacted || d.TPPSessionID == redact.Redacted {
		return ErrRedactedForm
	}
	*s = Session(d)
	return nil
}

// MarshalBinary returns the storage form of the session: a JSON document
// with every field in clear, PSU-ID and TPP-Session-ID included. [SaveSession]
// stores it; keep it as carefully as the store does (it is personal data).
func (s Session) MarshalBinary() ([]byte, error) { return json.Marshal(sessionData(s)) }

// UnmarshalBinary reads what [Session.MarshalBinary] wrote, including
// sessions stored by earlier versions of this package. It does not
// validate; see [Session.Validate].
func (s *Session) UnmarshalBinary(b []byte) error {
	var d Session
	if err := d.UnmarshalJSON(b); err != nil {
		return err
	}
	*s = d
	return nil
}
