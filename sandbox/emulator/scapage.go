package emulator

import (
	_ "embed" // the SCA page's template
	"encoding/json"
	"html/template"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
)

// The SCA page (the sandbox authorisation site) as a person sees it: what
// is being authorised (the consent, the PSU identification of GET
// /v1/user, a payment with its amount and creditor, or a basket's
// payments), the SCA method the TPP asked for (X-PSU-AuthMethod-Preferred,
// docs/interface.md section 5.11) and whether it asked for the bank's app
// (TPP-Redirect-Preferred false, section 5.12), the customer number field
// (preselected by X-PSU-IDENTITY), the agreement field in corporate
// context (preselected by PSU-Corporate-ID), and the approve and cancel
// buttons. Cancel ends in the failed-SCA redirect (section 6). Everything
// is escaped by html/template.

//go:embed scapage.html
var scaPageHTML string

var (
	scaPage   = template.Must(template.New("sca").Parse(scaPageHTML))
	errorPage = template.Must(template.New("err").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Testbank sandbox</title></head>
<body><h1>Testbank sandbox</h1><p role="alert">{{.}}</p></body></html>
`))
)

// scaDetails is what the authorisation page shows beyond the state: read
// from the request that started the SCA (startSCA), so that the page can
// name what the PSU approves without the endpoints' help.
type scaDetails struct {
	tppName   string
	requestID string   // finds the payment a payment creation made
	paymentID string   // POST .../payments/{id}/authorisations
	basketID  string   // POST /v1/signing-baskets/{id}/authorisations
	basketIDs []string // the paymentIds of a basket creation
	// From the request's headers.
	method      string // X-PSU-AuthMethod-Preferred
	appFlow     bool   // TPP-Redirect-Preferred: false
	identity    string // X-PSU-IDENTITY
	corporateID string // PSU-Corporate-ID
}

// maxBasketIDs bounds the ids read from a basket creation body for the
// page (the endpoint allows 10).
const maxBasketIDs = 50

// scaDetails reads the details of an authorisation of kind from the
// request starting it. Called by startSCA with s.mu held.
func (c *call) scaDetails(kind scaKind) scaDetails {
	d := scaDetails{
		tppName:     c.tpp.name,
		requestID:   c.requestID,
		method:      strings.TrimSpace(c.header("X-PSU-AuthMethod-Preferred")),
		appFlow:     strings.EqualFold(strings.TrimSpace(c.header("TPP-Redirect-Preferred")), "false"),
		identity:    strings.TrimSpace(c.header("X-PSU-IDENTITY")),
		corporateID: strings.TrimSpace(c.header("PSU-Corporate-ID")),
	}
	switch kind {
	case scaPayment:
		d.paymentID = c.pathValue("id")
	case scaBasket:
		d.basketID = c.pathValue("id")
		if d.basketID == "" && len(c.body) > 0 {
			var body struct {
				PaymentIDs []string `json:"paymentIds"`
			}
			if json.Unmarshal(c.body, &body) == nil && len(body.PaymentIDs) <= maxBasketIDs {
				d.basketIDs = body.PaymentIDs
			}
		}
	}
	return d
}

// scaMethodNames are the SCA methods of docs/interface.md section 5.11 as
// the page names them (the two provider-branded values are the sandbox's
// own, as the SDK assumes them).
var scaMethodNames = map[string]string{
	"ENGANGSKODEAPP_BIOMETRI": "one-time code app with biometrics",
	"HA2":                     "HA2 (code device or SMS)",
	"BANKID_MOBIL":            "BankID on mobile",
	"BANKID":                  "BankID",
}

// scaView is the data of the page template.
type scaView struct {
	Action, State string
	Context       string // PRIVATE or CORPORATE
	Corporate     bool
	TPP           string
	Kind          string // consent, user, payment or basket
	Payments      []scaPaymentView
	Total         string // a basket's sum, when its payments share a currency
	Unavailable   bool   // a payment or basket the page cannot find any more

	Method      string // the preferred method's name, "" when none was asked for
	MethodCode  string // the header's value
	MethodKnown bool
	AppFlow     bool

	CustomerNumber string // preselected by X-PSU-IDENTITY
	Agreement      string // preselected by PSU-Corporate-ID
	AgreementName  string
}

// scaPaymentView is one payment on the page.
type scaPaymentView struct {
	Amount          string
	Creditor        string
	CreditorAccount string
	DebtorAccount   string
	Date            string // requested execution date, "" for as soon as possible
	Product         string
}

// scaViewLocked builds the page of flow f. Needs s.mu held.
func (bk *bank) scaViewLocked(f *scaFlow) scaView {
	d := f.details
	v := scaView{
		Action: scaPagePath, State: f.state, Context: f.context,
		Corporate: f.context == contextCorporate, TPP: d.tppName, Kind: string(f.kind),
		MethodCode: d.method, AppFlow: d.appFlow, CustomerNumber: d.identity, Agreement: d.corporateID,
	}
	if v.TPP == "" {
		v.TPP = "A third party"
	}
	if d.method != "" {
		v.Method, v.MethodKnown = scaMethodNames[strings.ToUpper(d.method)]
	}
	if ag := bk.storeOf(f.tpp).agreementByID(d.corporateID); ag != nil {
		v.AgreementName = ag.name
	}
	var ps []*payment
	switch f.kind {
	case scaPayment:
		if p := bk.scaPaymentLocked(f); p != nil {
			ps = append(ps, p)
		}
	case scaBasket:
		if b := bk.baskets.byID[d.basketID]; d.basketID != "" && b != nil && b.tpp == f.tpp {
			ps = append(ps, b.payments...)
		}
		for _, id := range d.basketIDs {
			if p := bk.pay.byID[id]; p != nil && p.tpp == f.tpp {
				ps = append(ps, p)
			}
		}
	}
	if (f.kind == scaPayment || f.kind == scaBasket) && len(ps) == 0 {
		v.Unavailable = true
	}
	var (
		sum      decimal.Decimal
		currency string
		mixed    bool
	)
	for i, p := range ps {
		v.Payments = append(v.Payments, scaPaymentView{
			Amount: p.Amount.String(), Creditor: p.CreditorName, CreditorAccount: p.CreditorAccount,
			DebtorAccount: p.DebtorAccount, Date: p.RequestedExecutionDate, Product: p.Product,
		})
		if i == 0 {
			currency = p.Amount.Currency
		}
		if p.Amount.Err() != nil || p.Amount.Currency != currency {
			mixed = true
			continue
		}
		sum = sum.Add(p.Amount.Value)
	}
	if f.kind == scaBasket && len(ps) > 0 && !mixed {
		if t, err := money.New(sum, currency); err == nil {
			v.Total = t.String()
		}
	}
	return v
}

// scaPaymentLocked finds the payment of a payment authorisation: by the
// id of the start-authorisation path, else the payment the same TPP
// created with the request that started the SCA (searched from the
// newest). Needs s.mu held.
func (bk *bank) scaPaymentLocked(f *scaFlow) *payment {
	d := f.details
	if d.paymentID != "" {
		if p := bk.pay.byID[d.paymentID]; p != nil && p.tpp == f.tpp {
			return p
		}
		return nil
	}
	for i := len(bk.pay.list) - 1; i >= 0; i-- {
		p := bk.pay.list[i]
		if p.tpp == f.tpp && p.RequestID == d.requestID && !p.Created.After(f.created) {
			return p
		}
	}
	return nil
}
