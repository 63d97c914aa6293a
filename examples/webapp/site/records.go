package site

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// The site's own records, kept in the sessions' store next to the SDK's
// state (keys under "webapp/"). Personal data stays there: pages show it
// to its PSU only, and nothing of it is logged.

// recordTTL is how long the site keeps a payment or basket record.
const recordTTL = 7 * 24 * time.Hour

// Kinds of SCA the site starts (purpose.Kind).
const (
	kindConsent = "consent" // account information: back to Next
	kindUser    = "user"    // GET /v1/user before paying: back to /pay
	kindPayment = "payment" // one payment: its status page
	kindBasket  = "basket"  // a signing basket: its status page
)

// purpose is what an SCA was started for, stored under its
// TPP-Session-ID (the callback's tpp-session-id finds it, and the failed
// callback's CallbackError.TPPSessionID too).
type purpose struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref,omitempty"`  // payment or basket record
	Next string `json:"next,omitempty"` // a path of the site
}

func purposeKey(tppSessionID string) string { return "webapp/after-sca/" + tppSessionID }

func (s *Site) savePurpose(ctx context.Context, tppSessionID string, p purpose) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, purposeKey(tppSessionID), b, 2*time.Hour)
}

// takePurpose returns the purpose of an SCA once; the zero purpose when
// there is none (it expired).
func (s *Site) takePurpose(ctx context.Context, tppSessionID string) purpose {
	var p purpose
	if tppSessionID == "" {
		return p
	}
	b, err := s.st.Take(ctx, purposeKey(tppSessionID))
	if err == nil {
		_ = json.Unmarshal(b, &p)
	}
	return p
}

// paymentRecord is what the site keeps about one payment.
type paymentRecord struct {
	Ref             string                     `json:"ref"`
	Product         payments.Product           `json:"product"`
	PaymentID       string                     `json:"paymentId"`
	Amount          string                     `json:"amount"`
	Creditor        string                     `json:"creditor"`
	CreditorAccount string                     `json:"creditorAccount"`
	DebtorAccount   string                     `json:"debtorAccount"`
	Message         string                     `json:"message,omitempty"`
	KID             string                     `json:"kid,omitempty"`
	Created         time.Time                  `json:"created"`
	Approved        bool                       `json:"approved,omitempty"` // SCA completed
	Declined        string                     `json:"declined,omitempty"` // the failed SCA's code
	Status          payments.TransactionStatus `json:"status,omitempty"`   // last status read
	FundsMissing    bool                       `json:"fundsMissing,omitempty"`
	BasketRef       string                     `json:"basketRef,omitempty"`
}

// payment is the reference of the record's payment, a single payment,
// for the calls of payments.Service.
func (r *paymentRecord) payment() payments.Ref {
	return payments.Ref{Service: payments.ServiceSingle, Product: r.Product, ID: r.PaymentID}
}

func paymentKey(user, ref string) string { return "webapp/payment/" + user + "/" + ref }

func (s *Site) savePayment(ctx context.Context, user string, p *paymentRecord) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, paymentKey(user, p.Ref), b, recordTTL)
}

// loadPayment returns the PSU's payment ref, or an error matching
// store.ErrNotStored.
func (s *Site) loadPayment(ctx context.Context, user, ref string) (*paymentRecord, error) {
	if !validRef(ref) {
		return nil, store.ErrNotStored
	}
	b, err := s.st.Get(ctx, paymentKey(user, ref))
	if err != nil {
		return nil, err
	}
	var p paymentRecord
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// listPayments returns the PSU's payments, newest first.
func (s *Site) listPayments(ctx context.Context, user string) ([]*paymentRecord, error) {
	var out []*paymentRecord
	for key, err := range s.st.Keys(ctx, paymentKey(user, "")) {
		if err != nil {
			return nil, err
		}
		b, err := s.st.Get(ctx, key)
		if errors.Is(err, store.ErrNotStored) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var p paymentRecord
		if json.Unmarshal(b, &p) == nil {
			out = append(out, &p)
		}
	}
	for i := 1; i < len(out); i++ { // insertion sort: a PSU has few
		for j := i; j > 0 && out[j].Created.After(out[j-1].Created); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// draftBasket lists the payments the PSU added to the basket and has not
// approved yet.
type draftBasket struct {
	Refs []string `json:"refs"`
}

func draftKey(user string) string { return "webapp/basket/" + user }

func (s *Site) loadDraft(ctx context.Context, user string) (*draftBasket, error) {
	var d draftBasket
	b, err := s.st.Get(ctx, draftKey(user))
	if errors.Is(err, store.ErrNotStored) {
		return &d, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// errBasketFull: a signing basket holds at most basket.MaxPayments.
var errBasketFull = errors.New("the basket is full")

// addToDraft appends ref to the PSU's basket, at most max payments.
func (s *Site) addToDraft(ctx context.Context, user, ref string, limit int) error {
	return s.st.Update(ctx, draftKey(user), func(old []byte, found bool) ([]byte, time.Duration, error) {
		var d draftBasket
		if found {
			if err := json.Unmarshal(old, &d); err != nil {
				return nil, 0, err
			}
		}
		if len(d.Refs) >= limit {
			return nil, 0, errBasketFull
		}
		d.Refs = append(d.Refs, ref)
		b, err := json.Marshal(d)
		return b, recordTTL, err
	})
}

// signedBasket is a basket sent to the bank.
type signedBasket struct {
	Ref      string    `json:"ref"`
	BasketID string    `json:"basketId"`
	Refs     []string  `json:"refs"` // payment records
	Created  time.Time `json:"created"`
	Approved bool      `json:"approved,omitempty"`
	Declined string    `json:"declined,omitempty"`
}

func signedKey(user, ref string) string { return "webapp/signed/" + user + "/" + ref }

func (s *Site) saveSigned(ctx context.Context, user string, b *signedBasket) error {
	v, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, signedKey(user, b.Ref), v, recordTTL)
}

func (s *Site) loadSigned(ctx context.Context, user, ref string) (*signedBasket, error) {
	if !validRef(ref) {
		return nil, store.ErrNotStored
	}
	v, err := s.st.Get(ctx, signedKey(user, ref))
	if err != nil {
		return nil, err
	}
	var b signedBasket
	if err := json.Unmarshal(v, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// newRef returns a new record reference: 16 random bytes in hex.
func newRef() string { return randomHex(16) }

// validRef reports whether ref has the form newRef makes (and so makes a
// safe store key).
func validRef(ref string) bool {
	if len(ref) != 32 {
		return false
	}
	for _, c := range ref {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Form tokens: every form carries a single-use token, taken (store.Take)
// when the form is posted. It ties the post to the PSU's cookie, and a
// second post of the same form (a double click, the back button and
// submit again) finds no token and creates nothing twice.

const formTokenTTL = time.Hour

func formKey(user, token string) string { return "webapp/form/" + user + "/" + token }

// newToken returns a form token for the PSU's form named form.
func (s *Site) newToken(ctx context.Context, user, form string) (string, error) {
	t := randomHex(16)
	return t, s.st.Put(ctx, formKey(user, t), []byte(form), formTokenTTL)
}

// takeToken reports whether token is a live token of the PSU's form
// named form, using it up.
func (s *Site) takeToken(ctx context.Context, user, token, form string) (bool, error) {
	if !validRef(token) {
		return false, nil
	}
	b, err := s.st.Take(ctx, formKey(user, token))
	if errors.Is(err, store.ErrNotStored) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return string(b) == form, nil
}

// ownAccount is one of the PSU's accounts as last listed, offered as the
// debtor account on the payment form.
type ownAccount struct {
	Name   string `json:"name"`
	Number string `json:"number"`
}

func ownKey(user string) string { return "webapp/own/" + user }

func (s *Site) saveOwn(ctx context.Context, user string, own []ownAccount) error {
	b, err := json.Marshal(own)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, ownKey(user), b, recordTTL)
}

// loadOwn returns the PSU's accounts as last listed, none when unknown.
func (s *Site) loadOwn(ctx context.Context, user string) []ownAccount {
	var own []ownAccount
	if b, err := s.st.Get(ctx, ownKey(user)); err == nil {
		_ = json.Unmarshal(b, &own)
	}
	return own
}
