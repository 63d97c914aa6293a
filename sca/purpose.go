package sca

import (
	"errors"
	"reflect"
	"strings"

	"github.com/tppkit/psd2/client"
)

// Purpose is what an SCA is for, as far as the PSU's session is concerned:
// whether completing it grants the AIS consent. The consent is granted by
// the SCA of the consent flow, the scaRedirect of an account call or of a
// bank-offered consent; the SCA of a payment, a signing basket or GET
// /v1/user identifies the PSU or authorises an operation and grants no
// consent (docs/interface.md sections 1, 5.8 and 5.10, and section 10
// "Session model": a consent lasts 90 days).
//
// A [Pending] records the purpose ([Pending.Purpose]) and
// [Manager.HandlerFor] applies it: a consent gives the PSU a fresh
// [ConsentValidity]; any other SCA keeps the consent end and the
// remembered accounts of the PSU's previous session ([Session.After]).
type Purpose string

const (
	// PurposeUnknown is an SCA started without saying what it is for
	// (Flow.Start without [WithPurpose], a raw link, a pending SCA stored
	// by an earlier version of this package). See [Purpose.GrantsConsent]
	// for what it grants.
	PurposeUnknown Purpose = ""
	// PurposeConsent is the AIS consent flow: the scaRedirect of an
	// account call (401) or of a bank-offered consent (POST
	// /v1/bank-offered-consents). Completing it grants a fresh 90-day
	// consent, and the accounts are to be listed again.
	PurposeConsent Purpose = "consent"
	// PurposePayment is the SCA of a payment, a payment cancellation or a
	// signing basket. It grants no consent.
	PurposePayment Purpose = "payment"
	// PurposeIdentify is the SCA that identifies the PSU for a PISP (GET
	// /v1/user) or asks for the corporate agreements (GET /v1/agreements).
	// It grants no consent.
	PurposeIdentify Purpose = "identify"
)

// GrantsConsent reports whether completing an SCA of purpose p grants the
// AIS consent: only [PurposeConsent] surely does.
//
// ASSUMPTION (the one place where it is decided): an SCA whose purpose is
// unknown ([PurposeUnknown], or a value this version does not know, from
// a store written by a later one) never extends a consent the SDK knows
// of: [Manager.HandlerFor] keeps the consent end and remembered accounts of
// the same PSU's previous session, as after a payment's SCA. Without such
// a session it is taken for the consent flow, the SCA an AIS starts with
// [Flow.Start] and [Flow.ParseCallback] (a fresh [ConsentValidity]), as
// the session always was before purposes existed: a PISP that completes
// an SCA this way gets a consent end it does not use, and an account call
// would be answered 401 by the bank. Pass [WithPurpose] to say.
func (p Purpose) GrantsConsent() bool { return p == PurposeConsent }

// valid reports whether p is one of the known purposes, unknown excluded.
func (p Purpose) valid() bool {
	switch p {
	case PurposeConsent, PurposePayment, PurposeIdentify:
		return true
	}
	return false
}

// WithPurpose records what the SCA is for in the [Pending]
// ([Pending.Purpose]). [Prepared.Redirect] works it out from the answer that
// carries the scaRedirect (an account call or a bank-offered consent is
// [PurposeConsent], a payment or a basket [PurposePayment], [User]
// [PurposeIdentify]), so a [Manager] needs it only for answers it cannot
// tell (raw JSON). With [Flow.Start] and [Flow.ParseCallback] alone, pass
// it for a payment's or GET /v1/user's SCA: an SCA of unknown purpose is
// taken for the consent flow there ([Purpose.GrantsConsent]). It wins
// over what Prepared.Redirect works out. A purpose other than
// [PurposeConsent], [PurposePayment] or [PurposeIdentify] is refused by
// [Flow.Start] with a [*client.ValidationError] of Field "purpose" that
// does not quote the value.
func WithPurpose(p Purpose) StartOption {
	return func(c *startConfig) error {
		if !p.valid() {
			// The value is not quoted: it came from the caller and may
			// hold anything.
			return &client.ValidationError{Field: "purpose", Reason: "not consent, payment or identify (sca.WithPurpose)"}
		}
		c.purpose = p
		return nil
	}
}

// modulePath prefixes the import paths of the SDK's packages whose answers
// [Prepared.Redirect] recognises.
const modulePath = "github.com/tppkit/psd2/"

// purposeOf works out what the SCA asked for by answer is for, from the
// SDK call that produced the scaRedirect: the operation of a
// *client.Error (in any error's chain) or the package of a typed answer.
// It returns [PurposeUnknown] when it cannot tell (raw JSON, links, an
// error without a *client.Error, another module's types).
func purposeOf(answer any) Purpose {
	switch x := answer.(type) {
	case nil:
		return PurposeUnknown
	case Redirect:
		return x.Purpose
	case *Redirect:
		if x == nil {
			return PurposeUnknown
		}
		return x.Purpose
	case error:
		var ce *client.Error
		if errors.As(x, &ce) && ce != nil {
			return purposeOfOperation(ce.Operation)
		}
		return PurposeUnknown
	}
	t := reflect.TypeOf(answer)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.PkgPath() {
	case modulePath + "accounts":
		if t.Name() == "Consent" {
			return PurposeConsent
		}
	case modulePath + "payments", modulePath + "basket":
		return PurposePayment
	}
	return PurposeUnknown
}

// purposeOfOperation maps the SDK operation that was answered with a
// scaRedirect (client.Error.Operation, "package.Method") to the purpose
// of that SCA: every account call's SCA is the consent flow
// (docs/interface.md sections 5.8 and 10), except the agreements
// listing, which is how a corporate PSU picks an agreement
// (docs/interface.md section 5.10).
func purposeOfOperation(op string) Purpose {
	pkg, name, ok := strings.Cut(op, ".")
	if !ok {
		return PurposeUnknown
	}
	switch {
	case op == "sca.User", op == "accounts.Agreements":
		return PurposeIdentify
	case pkg == "accounts" && name != "":
		return PurposeConsent
	case pkg == "payments", pkg == "basket":
		return PurposePayment
	}
	return PurposeUnknown
}
