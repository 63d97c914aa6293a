package site

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sca"
)

// identify starts the PISP's SCA of GET /v1/user (docs/interface.md section
// 5.10) in a new SCA session: its callback brings the PSU-ID a payment
// needs. The PSU comes back to the payment form.
func (s *Site) identify(w http.ResponseWriter, r *http.Request) {
	call, err := s.sessions.Begin(r.Context(), s.user(w, r), present(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	link, needed, err := sca.User(r.Context(), s.c, call.Options)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !needed {
		http.Redirect(w, r, "/pay", http.StatusSeeOther)
		return
	}
	s.toBank(w, r, call, link, purpose{Kind: kindUser, Next: "/pay"})
}

// The payment form's fields, in the order of the page.
var formFields = []struct{ name, label string }{
	{"amount", "Amount"},
	{"creditorName", "Pay to"},
	{"creditorAccount", "Their account number"},
	{"message", "Message"},
	{"kid", "KID"},
	{"debtorAccount", "From your account"},
}

func fieldLabel(name string) string {
	for _, f := range formFields {
		if f.name == name {
			return f.label
		}
	}
	return ""
}

// authMethods are the choices of the form's approval method: sent as
// X-PSU-AuthMethod-Preferred (docs/interface.md section 5.11); "" lets
// the bank choose.
var authMethods = []methodOption{
	{"", "Let the bank choose"},
	{string(sca.AuthMethodBankIDMobile), "BankID on mobile"},
	{string(sca.AuthMethodBankID), "BankID"},
	{string(sca.AuthMethodApp), "One-time code app with biometrics"},
	{string(sca.AuthMethodHA2), "Code device or SMS (HA2)"},
}

type methodOption struct{ Value, Label string }

// startOptions are the SCA options the form asks for: the preferred
// method and, with "app", TPP-Redirect-Preferred false (the bank's app,
// docs/interface.md section 5.12).
func startOptions(v map[string]string) []sca.StartOption {
	var opts []sca.StartOption
	for _, m := range authMethods {
		if m.Value != "" && m.Value == v["method"] {
			opts = append(opts, sca.WithAuthMethod(sca.AuthMethod(m.Value)))
		}
	}
	if v["app"] != "" {
		opts = append(opts, sca.WithRedirectPreferred(false))
	}
	return opts
}

// payFormPage is the payment form with the values entered and the
// problems found.
type payFormPage struct {
	Token    string
	Values   map[string]string
	Errors   map[string]string
	Problems []problem
	Own      []ownAccount
	Methods  []methodOption
}

// problem is one line of the form's summary; Field is empty for a problem
// of the whole payment.
type problem struct{ Field, Label, Text string }

// formField is one field's value and error for the template.
type formField struct{ Value, Error string }

// Field returns the value and the error of the field name.
func (p payFormPage) Field(name string) formField {
	return formField{Value: p.Values[name], Error: p.Errors[name]}
}

// add records a problem, next to its field when it has one (the first
// problem of a field is shown there).
func (p *payFormPage) add(field, text string) {
	if field != "" {
		if _, seen := p.Errors[field]; seen {
			return
		}
		p.Errors[field] = text
	}
	p.Problems = append(p.Problems, problem{Field: field, Label: fieldLabel(field), Text: text})
}

// payForm shows the payment form, or the way to identify at the bank
// first when the site has no PSU-ID for this PSU yet.
func (s *Site) payForm(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	sess, err := s.session(r, key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if sess == nil {
		s.render(w, r, http.StatusOK, "identify", frame{Title: "Pay", Nav: "pay"}, nil)
		return
	}
	p := payFormPage{Values: map[string]string{}, Errors: map[string]string{}}
	s.showPayForm(w, r, key, http.StatusOK, p)
}

func (s *Site) showPayForm(w http.ResponseWriter, r *http.Request, key string, status int, p payFormPage) {
	token, err := s.newToken(r.Context(), key, "pay")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p.Token = token
	p.Own = s.loadOwn(r.Context(), key)
	p.Methods = authMethods
	s.render(w, r, status, "pay", frame{Title: "Pay", Nav: "pay"}, p)
}

// pay creates the payment of the form. "Pay now" sends the PSU to the
// bank to approve it (a new SCA session, sca.Manager.Begin); "Add to
// basket" keeps it for one approval of several payments.
func (s *Site) pay(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.message(w, r, http.StatusBadRequest, messagePage{Heading: "Form not readable", Problem: true, Text: "The form could not be read."})
		return
	}
	if !s.checkToken(w, r, key, "pay") {
		return
	}
	sess, err := s.session(r, key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if sess == nil {
		http.Redirect(w, r, "/pay", http.StatusSeeOther)
		return
	}
	form := payFormPage{Values: map[string]string{}, Errors: map[string]string{}}
	for _, f := range formFields {
		form.Values[f.name] = strings.TrimSpace(r.PostForm.Get(f.name))
	}
	form.Values["method"], form.Values["app"] = r.PostForm.Get("method"), r.PostForm.Get("app")
	p := s.paymentOf(&form)
	toBasket := r.PostForm.Get("action") == "basket"
	if toBasket {
		if d, err := s.loadDraft(r.Context(), key); err == nil && len(d.Refs) >= basket.MaxPayments {
			form.add("", "The basket is full: approve its payments first.")
		}
	}
	if len(form.Problems) > 0 {
		s.showPayForm(w, r, key, http.StatusUnprocessableEntity, form)
		return
	}

	// Pay now: a new SCA session, whose TPP-Session-ID comes back on the
	// callback. To the basket: the PSU's current session, no SCA yet.
	var call *sca.Prepared
	if toBasket {
		call, err = s.sessions.Prepare(r.Context(), key, present(r))
	} else {
		call, err = s.sessions.Begin(r.Context(), key, present(r), startOptions(form.Values)...)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	init, err := s.pis.CreateNorwegianDomestic(r.Context(), p, call.Options)
	if err != nil {
		s.createFailed(w, r, key, form, err)
		return
	}
	rec := &paymentRecord{
		Ref: newRef(), Product: init.Product, PaymentID: init.PaymentID, Amount: p.InstructedAmount.String(),
		Creditor: p.CreditorName, CreditorAccount: p.CreditorAccount.BBAN, DebtorAccount: p.DebtorAccount.BBAN,
		Message: p.RemittanceInformationUnstructured, KID: kidOf(p), Created: s.c.Now(), Status: init.TransactionStatus,
	}
	if toBasket {
		rec.BasketRef = "draft"
	}
	if err := s.savePayment(r.Context(), key, rec); err != nil {
		s.fail(w, r, err)
		return
	}
	if toBasket {
		if err := s.addToDraft(r.Context(), key, rec.Ref, basket.MaxPayments); err != nil {
			s.fail(w, r, err)
			return
		}
		http.Redirect(w, r, "/basket", http.StatusSeeOther)
		return
	}
	s.toBank(w, r, call, init, purpose{Kind: kindPayment, Ref: rec.Ref})
}

// paymentOf reads the form into a payment and validates it with the SDK
// (payments.NorwegianDomestic.Validate), adding the problems to form
// next to their fields.
func (s *Site) paymentOf(form *payFormPage) *payments.NorwegianDomestic {
	v := form.Values
	p := &payments.NorwegianDomestic{
		CreditorName:                      v["creditorName"],
		CreditorAccount:                   payments.AccountReference{BBAN: digitsOnly(v["creditorAccount"]), Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: digitsOnly(v["debtorAccount"]), Currency: "NOK"},
		RemittanceInformationUnstructured: v["message"],
	}
	if kid := strings.ReplaceAll(v["kid"], " ", ""); kid != "" {
		p.RemittanceInformationStructuredArray = []payments.StructuredReference{payments.KID(kid)}
	}
	switch amount := strings.ReplaceAll(strings.ReplaceAll(v["amount"], " ", ""), ",", "."); {
	case amount == "":
		form.add("amount", "Enter the amount.")
	default:
		// money.Parse refuses a fraction of more digits than øre have
		// ("1.000"): a thousands separator ("1,000", "1.000" for one
		// thousand kroner) or a typing error, never an amount to pay.
		a, err := money.Parse(amount, "NOK")
		if err != nil {
			form.add("amount", "Write the amount in kroner and øre, for example 249.00.")
		} else {
			p.InstructedAmount = a
		}
	}
	if v["message"] != "" && v["kid"] != "" {
		form.add("kid", "Give a message or a KID, not both.")
	}
	for _, ve := range validationErrors(p.Validate(s.c.Now())) {
		field := fieldOf(ve.Field)
		if field == "message" && v["kid"] != "" {
			continue // both given: said once, at the KID
		}
		form.add(field, sentence(ve.Reason))
	}
	return p
}

// createFailed shows why the bank or the SDK did not create the payment.
func (s *Site) createFailed(w http.ResponseWriter, r *http.Request, key string, form payFormPage, err error) {
	var bankErr *client.Error
	switch {
	case errors.Is(err, client.ErrOutcomeUnknown):
		// Never send it again blindly: the bank may have it. The journal
		// holds it in doubt until psd2 journal resolve settles it.
		s.log.Error("webapp: payment outcome unknown, in doubt in the journal", "err", err)
		s.message(w, r, http.StatusBadGateway, messagePage{Heading: "We do not know whether the bank has the payment", Problem: true,
			Text: "The connection to your bank broke while the payment was being sent.",
			More: "Check your account at the bank before you try again, so that you do not pay twice."})
		return
	case errors.Is(err, client.ErrValidation):
		for _, ve := range validationErrors(err) {
			form.add(fieldOf(ve.Field), sentence(ve.Reason))
		}
	case errors.As(err, &bankErr) && bankErr.StatusCode < 500:
		// The bank's text is written for the TPP's developers ("Set
		// allowLogicalDuplicate=true ..."), and may echo the request: it
		// stays in bankErr.Messages (the logged error shows the code and
		// the field), and the PSU reads a sentence about the code.
		s.log.Info("webapp: the bank refused a payment", "err", err)
		for _, m := range bankErr.Messages {
			form.add(fieldOf(m.Path), refusal(m.Code, fieldOf(m.Path)))
		}
		if len(bankErr.Messages) == 0 {
			form.add("", "The bank refused the payment.")
		}
	default:
		s.fail(w, r, err)
		return
	}
	s.showPayForm(w, r, key, http.StatusUnprocessableEntity, form)
}

// refusal is what the PSU reads when the bank refused a payment with
// code, next to field ("" for the form as a whole).
func refusal(code, field string) string {
	switch code {
	case "PAYMENT_FAILED":
		return "Your bank already has a payment like this one today (same accounts, amount and message), so it made no second one. Check your payments; to pay again, change the message."
	case "KID_MISSING", "KID_INVALID":
		return "Your bank did not accept the KID. Check it on the invoice."
	case "EXECUTION_DATE_INVALID":
		return "Your bank cannot pay on that date."
	case "PRODUCT_INVALID", "PRODUCT_UNKNOWN":
		return "Your bank does not offer this kind of payment from this account."
	}
	if field != "" {
		return "Your bank did not accept this. Check it and try again."
	}
	return "Your bank did not accept the payment. Check the details and try again."
}

// validationErrors returns every *client.ValidationError in err's tree
// (the SDK joins one per broken rule).
func validationErrors(err error) []*client.ValidationError {
	if err == nil {
		return nil
	}
	if ve, ok := err.(*client.ValidationError); ok {
		return []*client.ValidationError{ve}
	}
	var out []*client.ValidationError
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, validationErrors(e)...)
		}
	case interface{ Unwrap() error }:
		out = validationErrors(u.Unwrap())
	}
	return out
}

// fieldOf maps the JSON path of a *client.ValidationError (or of a
// tppMessage) to the form field that holds it, "" for none.
func fieldOf(path string) string {
	switch {
	case strings.HasPrefix(path, "instructedAmount"):
		return "amount"
	case path == "creditorName":
		return "creditorName"
	case strings.HasPrefix(path, "creditorAccount"):
		return "creditorAccount"
	case strings.HasPrefix(path, "debtorAccount"):
		return "debtorAccount"
	case strings.HasPrefix(path, "remittanceInformationUnstructured"):
		return "message"
	case strings.HasPrefix(path, "remittanceInformationStructured"):
		return "kid"
	}
	return ""
}

// sentence makes an SDK reason ("required") a sentence ("Required.").
func sentence(reason string) string {
	if reason == "" {
		return "Not valid."
	}
	rs := []rune(reason)
	rs[0] = unicode.ToUpper(rs[0])
	if !strings.HasSuffix(reason, ".") {
		rs = append(rs, '.')
	}
	return string(rs)
}

// digitsOnly drops the spaces and dots of a printed account number
// ("8601 11 17947", "8601.11.17947").
func digitsOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '.' {
			return -1
		}
		return r
	}, s)
}

// checkToken takes the form's token; without a live one it answers that
// the form was already sent (a double submit) and reports false.
func (s *Site) checkToken(w http.ResponseWriter, r *http.Request, key, form string) bool {
	ok, err := s.takeToken(r.Context(), key, r.PostForm.Get("token"), form)
	if err != nil {
		s.fail(w, r, err)
		return false
	}
	if !ok {
		s.message(w, r, http.StatusConflict, messagePage{Heading: "This form was already sent", Problem: true,
			Text: "We received this form before, so nothing was done this time.",
			More: "Your payments and their status are on the home page."})
		return false
	}
	return true
}

type basketPage struct {
	Token    string
	Payments []*paymentRecord
}

// basket shows the payments waiting in the PSU's basket.
func (s *Site) basket(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	d, err := s.loadDraft(r.Context(), key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := basketPage{}
	for _, ref := range d.Refs {
		if rec, err := s.loadPayment(r.Context(), key, ref); err == nil {
			p.Payments = append(p.Payments, rec)
		}
	}
	if len(p.Payments) > 0 {
		if p.Token, err = s.newToken(r.Context(), key, "basket"); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "basket", frame{Title: "Basket", Nav: "basket"}, p)
}

// signBasket puts the basket's payments in a signing basket (POST
// /v1/signing-baskets) and sends the PSU to the bank to approve them all
// with one SCA.
func (s *Site) signBasket(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil || !s.checkToken(w, r, key, "basket") {
		if err != nil {
			s.message(w, r, http.StatusBadRequest, messagePage{Heading: "Form not readable", Problem: true, Text: "The form could not be read."})
		}
		return
	}
	b, err := s.st.Take(r.Context(), draftKey(key))
	if err != nil {
		http.Redirect(w, r, "/basket", http.StatusSeeOther)
		return
	}
	d := draftBasket{}
	if err := json.Unmarshal(b, &d); err != nil || len(d.Refs) == 0 {
		http.Redirect(w, r, "/basket", http.StatusSeeOther)
		return
	}
	var ids []string
	var recs []*paymentRecord
	for _, ref := range d.Refs {
		rec, err := s.loadPayment(r.Context(), key, ref)
		if err != nil {
			continue
		}
		ids = append(ids, rec.PaymentID)
		recs = append(recs, rec)
	}
	call, err := s.sessions.Begin(r.Context(), key, present(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	bk, err := s.baskets.Create(r.Context(), ids, call.Options)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	signed := &signedBasket{Ref: newRef(), BasketID: bk.BasketID, Created: s.c.Now()}
	for _, rec := range recs {
		rec.BasketRef = signed.Ref
		signed.Refs = append(signed.Refs, rec.Ref)
		if err := s.savePayment(r.Context(), key, rec); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if err := s.saveSigned(r.Context(), key, signed); err != nil {
		s.fail(w, r, err)
		return
	}
	s.toBank(w, r, call, bk, purpose{Kind: kindBasket, Ref: signed.Ref})
}

// approvePayment starts a new SCA for a payment the PSU did not approve
// (cancelled at the bank, or never came back).
func (s *Site) approvePayment(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil || !s.checkToken(w, r, key, "approve") {
		if err != nil {
			s.message(w, r, http.StatusBadRequest, messagePage{Heading: "Form not readable", Problem: true, Text: "The form could not be read."})
		}
		return
	}
	rec, err := s.loadPayment(r.Context(), key, r.PathValue("ref"))
	if err != nil {
		s.notFound(w, r)
		return
	}
	if rec.Approved {
		http.Redirect(w, r, "/payments/"+rec.Ref, http.StatusSeeOther)
		return
	}
	call, err := s.sessions.Begin(r.Context(), key, present(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	auth, err := s.pis.StartAuthorisation(r.Context(), rec.payment(), call.Options)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.toBank(w, r, call, auth, purpose{Kind: kindPayment, Ref: rec.Ref})
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	s.message(w, r, http.StatusNotFound, messagePage{Heading: "Not found", Problem: true,
		Text: "There is no such payment for you here."})
}

// kidOf returns the KID of p, "" when it has none.
func kidOf(p *payments.NorwegianDomestic) string {
	if len(p.RemittanceInformationStructuredArray) == 0 {
		return ""
	}
	return p.RemittanceInformationStructuredArray[0].Reference
}
