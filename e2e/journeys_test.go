package e2e

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// The sandbox's customers and accounts the journeys use.
const (
	kari        = emulator.CustomerKari     // private: Brukskonto, Høyrentekonto
	fjordlys    = emulator.CustomerFjordlys // corporate: two agreements
	brukskonto  = "95312776066"
	nettbutikk  = "86011117947" // another bank's account: the batch pays it
	olaEksempel = "91026527436"
)

// approveAtBank types the customer number on the bank's SCA page and
// approves.
func (j *journey) approveAtBank(customer string) {
	j.t.Helper()
	j.fill("#customerNumber", customer)
	j.click(`button[value="approve"]`)
}

// identify takes a PSU the site does not know from the Pay link through
// GET /v1/user's SCA to the payment form (3 steps).
func (j *journey) identify() {
	j.t.Helper()
	j.open("/pay")
	j.step("pay needs identification", "Pay someone", "Before you pay, your bank tells us who you are")
	j.click(`a[href="/identify"]`)
	j.step("bank identifies the PSU", "Identify yourself", "Example TPP asks you to approve",
		"Telling Example TPP who you are at Testbank")
	j.approveAtBank(kari)
	j.stepWith("payment form", "Pay someone", "#amount", "Amount (NOK)", "Their account number", "KID", "Pay now")
}

// fillPayment fills the payment form.
func (j *journey) fillPayment(amount, creditor, account, message, kid string) {
	j.t.Helper()
	j.fill("#amount", amount)
	j.fill("#creditorName", creditor)
	j.fill("#creditorAccount", account)
	j.fill("#message", message)
	j.fill("#kid", kid)
	j.fill("#debtorAccount", brukskonto)
}

// TestAISJourney: connect the bank and see accounts, balances and the
// latest transactions.
func TestAISJourney(t *testing.T) {
	j := newJourney(t, "ais")
	j.open("/")
	j.step("home", "Your bank, in one place", "Connect your bank", "Pay someone")
	j.click(`a[href="/connect"]`)
	j.step("bank consent page", "Share account information", "Example TPP asks you to approve",
		"Access to your accounts: the list of accounts, their balances and their transactions, for 90 days",
		"Method: customer number (sandbox).", "Approve", "Cancel")
	j.approveAtBank(kari)
	p := j.step("accounts", "Your accounts", "Brukskonto", "Høyrentekonto", "95312776066", "15234.75 NOK",
		"100.00 NOK", "Latest transactions")
	assert.Equal(t, "/accounts", mustURL(t, p.URL).Path)
	j.click(`nav a[href="/"]`)
	j.step("home, connected", "Your bank, in one place", "Your bank is connected.", "See your accounts")
}

// TestPaymentJourney: an NDCT from the form to its final status: the
// SDK's validation errors next to the field, the bank's page naming the
// payment and the method asked for, the status page following the
// payment to ACSC by itself.
func TestPaymentJourney(t *testing.T) {
	j := newJourney(t, "payment")
	j.identify()
	j.fillPayment("249,00", "Nettbutikken AS", "8601 11 17948", "Order 2026-118", "")
	j.click(`button[value="pay"]`)
	p := j.stepWith("form refused by the SDK", "Pay someone", "#creditorAccount-error",
		"There is a problem with the payment", "Not a valid Norwegian account number (MOD-11 check digit).")
	var nextToField string
	j.run(chromedpText(`#creditorAccount-error`, &nextToField))
	assert.Equal(t, "Not a valid Norwegian account number (MOD-11 check digit).", nextToField, "the error is next to its field")
	assert.NotContains(t, p.Text, "Amount: ", "only the wrong field is flagged")

	j.fill("#creditorAccount", "8601 11 17947")
	j.run(setSelect("#method", "BANKID_MOBIL"))
	j.click(`button[value="pay"]`)
	j.step("bank payment page", "Approve payment", "Example TPP asks you to approve", "249.00 NOK", "Nettbutikken AS",
		nettbutikk, brukskonto, "Method: BankID on mobile, as Example TPP asked.")
	j.approveAtBank(kari)
	j.step("payment done", "Payment done", "Your bank has paid 249.00 NOK to Nettbutikken AS.", "ACSC", "Order 2026-118")
	j.click(`//a[text()="Home"]`)
	j.step("home lists the payment", "Your bank, in one place", "Nettbutikken AS", "249.00 NOK", "Paid")
}

// TestBasketJourney: two payments in the basket, approved with one SCA,
// each followed to its final status.
func TestBasketJourney(t *testing.T) {
	j := newJourney(t, "basket")
	j.identify()
	j.fillPayment("120.00", "Nettbutikken AS", nettbutikk, "", "1234567897")
	j.click(`button[value="basket"]`)
	j.step("basket with one payment", "Your basket", "Nettbutikken AS", "120.00 NOK")
	j.click(`//a[text()="Add another payment"]`)
	j.stepWith("payment form", "Pay someone", "#amount")
	j.fillPayment("80.50", "Ola Eksempel", olaEksempel, "Hyttetur", "")
	j.click(`button[value="basket"]`)
	j.step("basket with two payments", "Your basket", "Nettbutikken AS", "Ola Eksempel", "80.50 NOK",
		"Approve 2 payments at your bank")
	j.click(`//button[contains(., "Approve 2 payments")]`)
	j.step("bank basket page", "Approve 2 payments", "120.00 NOK", "80.50 NOK", "Total: 200.50 NOK", "Ola Eksempel")
	j.approveAtBank(kari)
	p := j.step("basket done", "All payments done", "Your bank has paid all 2 payments.")
	assert.Equal(t, 2, countOf(p.Text, "Paid"), p.Text)
}

// TestCorporateJourney: a corporate PSU connects under the first
// agreement and switches to the second, which needs its own consent.
func TestCorporateJourney(t *testing.T) {
	j := newJourney(t, "corporate")
	j.open("/connect")
	j.step("bank consent page", "Share account information", "Company agreement")
	j.approveAtBank(fjordlys)
	p := j.step("accounts of the first agreement", "Your accounts", "Company agreement: Fjordlys Bakeri AS.", "Driftskonto")
	first := countOf(p.Text, "Account number")
	j.click(`//a[text()="Change company agreement"]`)
	j.step("agreements", "Act for a company", "Fjordlys Bakeri AS (current)", "Fjordlys Bakeri AS avdeling Nord")
	j.click(`//label[contains(., "avdeling Nord")]`)
	j.click(`//button[text()="Use this agreement"]`)
	j.step("bank consent for the new agreement", "Share account information",
		"under the company agreement Fjordlys Bakeri AS avdeling Nord")
	j.approveAtBank(fjordlys)
	p = j.step("accounts of the second agreement", "Your accounts", "Company agreement: Fjordlys Bakeri AS avdeling Nord.")
	assert.Less(t, countOf(p.Text, "Account number"), first, "the second agreement covers fewer accounts")
}

// TestCancelJourney: the PSU cancels at the bank, sees what happened
// from the failed-SCA redirect, and approves the payment afterwards.
func TestCancelJourney(t *testing.T) {
	j := newJourney(t, "cancel")
	j.identify()
	j.fillPayment("99.90", "Nettbutikken AS", nettbutikk, "Order 7", "")
	j.click(`button[value="pay"]`)
	j.step("bank payment page", "Approve payment", "99.90 NOK")
	j.click(`button[value="cancel"]`)
	j.step("not approved", "Not approved at your bank", "Your payment of 99.90 NOK to Nettbutikken AS was not made.",
		"The approval was cancelled at your bank, or it did not succeed.",
		"SCA_INVALID", "401")
	j.click(`//a[text()="See the payment"]`)
	j.step("payment not approved", "Payment not approved", "nothing was paid", "Approve it at your bank")
	j.click(`//button[text()="Approve it at your bank"]`)
	j.step("bank payment page again", "Approve payment", "99.90 NOK", "Nettbutikken AS")
	j.approveAtBank(kari)
	j.step("payment done", "Payment done", "Your bank has paid 99.90 NOK to Nettbutikken AS.")
}

// TestReplayJourney: the Back button to the bank's page, the callback
// loaded again, and a forged callback are refused; the session holds.
func TestReplayJourney(t *testing.T) {
	j := newJourney(t, "replay")
	j.open("/connect")
	j.step("bank consent page", "Share account information")
	j.approveAtBank(kari)
	j.step("accounts", "Your accounts", "Brukskonto")
	callback := j.lastCallback()

	// Back: the browser loads the bank's page again, which refuses the
	// completed SCA.
	j.run(chromedpBack())
	j.step("the bank refuses a completed SCA", "Testbank sandbox", "This authorisation is unknown or already completed.")
	j.open(callback)
	j.step("replayed callback refused", "This link cannot be used", "was already used, has expired, or is not valid",
		"Nothing was changed.")

	u := mustURL(t, callback)
	q := u.Query()
	q.Set("state", "forged-state")
	u.RawQuery = q.Encode()
	j.open(u.String())
	j.step("forged callback refused", "This link cannot be used", "Nothing was changed.")
	j.open("/accounts")
	j.step("the session holds", "Your accounts", "Brukskonto")
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
