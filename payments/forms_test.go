package payments_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// forms are the printed, JSON and slog forms of v, by name.
func forms(t *testing.T, v any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	js, err := json.Marshal(v)
	require.NoError(t, err)
	out["json"] = string(js)
	var jb, tb bytes.Buffer
	slog.New(slog.NewJSONHandler(&jb, nil)).Info("m", "v", v)
	slog.New(slog.NewTextHandler(&tb, nil)).Info("m", "v", v)
	out["slog JSON"], out["slog text"] = jb.String(), tb.String()
	return out
}

// No form of the payments package's own types shows the PSU's data: the
// journal entry's body (account numbers, names), session key, PSU-ID,
// PSU-IP-Address and TPP-Redirect-URI (with the TPP's SCA state), nor the
// bank's SCA state in a scaRedirect. Before, %#v of a JournalEntry printed
// its headers and body, and log/slog's JSON handler wrote an Initiation's
// scaRedirect in full.
func TestFormsHideSecrets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	j, bankDone := agingJournal(t, b, store.NewMemoryStore())
	svc := journaled(t, b, j)
	const tppState = "TPPSTATE-5e1f2a"
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	ro := b.pisp(client.WithRequestID(id), client.WithRedirectURI("https://tpp.example/cb?state="+tppState))
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "64.00"), ro...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	bankDone()
	entry, err := j.Entry(ctx, id)
	require.NoError(t, err)
	res, err := resolve(ctx, b.c, entry, b.pisp(client.WithRedirectURI("https://tpp.example/cb?state="+tppState))...)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedCreated, res.Kind)
	init := initiationOf(t, res)
	redirect, err := url.Parse(init.SCARedirect())
	require.NoError(t, err)
	bankState := redirect.Query().Get("state")
	require.NotEmpty(t, bankState, "the bank's SCA state is in the scaRedirect")
	auth, err := svc.StartAuthorisation(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: res.ID}, b.pisp()...)
	require.NoError(t, err)
	authState := mustURL(t, auth.SCARedirect()).Query().Get("state")
	require.NotEmpty(t, authState)
	entry, err = j.Entry(ctx, id)
	require.NoError(t, err)
	require.NotNil(t, entry.Resolution)
	resend, err := j.Entry(ctx, res.ResendRequestID)
	require.NoError(t, err)

	secrets := []string{b.psu.TPPSessionID, b.psu.PSUID, psuIP, tppState, kariBruk, external, "Ola Eksempel", "Hyttetur", bankState, authState}
	for _, s := range secrets {
		require.NotEmpty(t, s)
	}
	// The body as %#v and %x would print it field by field.
	secrets = append(secrets, strings.TrimPrefix(fmt.Sprintf("%#v", entry.Body[:6]), "[]byte{"), hex.EncodeToString([]byte(kariBruk)))
	// The values exist where the forms must not show them.
	require.Equal(t, b.psu.TPPSessionID, entry.SessionKey)
	require.Contains(t, string(entry.Body), kariBruk)

	links := client.Links{client.LinkSCARedirect: {Href: init.SCARedirect()}}
	fundsOK := true
	for _, tc := range []struct {
		name string
		v    any
		// documentJSON: the JSON form is the bank's document (links in
		// full), as documented; the other forms are still checked.
		documentJSON bool
	}{
		{name: "JournalEntry", v: entry},
		{name: "*JournalEntry", v: &entry},
		{name: "[]JournalEntry", v: []journal.Entry{entry, resend}},
		{name: "resend JournalEntry", v: resend},
		{name: "recorded Resolution", v: *entry.Resolution},
		{name: "Resolution with its answer", v: res},
		{name: "*Resolution", v: &res},
		{name: "Initiation", v: *init, documentJSON: true},
		{name: "*Initiation", v: init, documentJSON: true},
		{name: "Authorisation", v: *auth, documentJSON: true},
		{name: "*Authorisation", v: auth, documentJSON: true},
		{name: "StatusResponse", v: payments.StatusResponse{PaymentID: res.ID, TransactionStatus: payments.StatusRCVD, FundsAvailable: &fundsOK, Links: links}, documentJSON: true},
		{name: "Cancellation", v: payments.Cancellation{StatusCode: http.StatusAccepted, TransactionStatus: payments.StatusRCVD, Links: links}, documentJSON: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for form, s := range forms(t, tc.v) {
				if form == "%d" && !strings.Contains(tc.name, "JournalEntry") && !strings.Contains(tc.name, "Resolution") {
					continue // only the entry and the resolution print themselves for every verb
				}
				if form == "json" && tc.documentJSON {
					assert.Contains(t, s, "state=", "the JSON form is the bank's document")
					continue
				}
				for _, secret := range secrets {
					assert.NotContains(t, s, secret, "%s via %s", tc.name, form)
				}
			}
		})
	}

	// The forms still say what the entry is.
	for _, s := range []string{fmt.Sprintf("%#v", entry), fmt.Sprint(entry)} {
		assert.Contains(t, s, id)
		assert.Contains(t, s, "resolution=created")
	}
	f := forms(t, entry)
	assert.Contains(t, f["slog JSON"], `"requestId":"`+id+`"`)
	assert.Contains(t, f["slog JSON"], `"kind":"created"`)
	assert.Contains(t, f["slog text"], "v.inDoubt=false")
	f = forms(t, *init)
	assert.Contains(t, f["slog JSON"], res.ID)
	assert.Contains(t, f["slog JSON"], `"scaRedirect"`, "the links are there, redacted")
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

// identifying are the members of payment documents whose values identify
// the PSU, the creditor or an account; remittance* covers the remittance
// information in every shape.
var identifying = []string{"bban", "iban", "identification", "creditorName", "ultimateDebtor",
	"endToEndIdentification", "street", "buildingNumber", "postalCode", "city", "reference", "referenceIssuer"}

var identifyingPrefixes = []string{"remittanceInformation"}

// A request with every identifying field set, and a bulk payment's
// details holding two payments.
const (
	fullNDCT = `{"instructedAmount":{"amount":"6400.00","currency":"NOK"},"creditorName":"Ola Eksempel",
		"creditorAgent":"TSTBNO22","creditorAccount":{"bban":"91026527436","currency":"NOK"},
		"creditorAddress":{"street":"Storgata","buildingNumber":"14B","postalCode":"0155","city":"Oslo","country":"NO"},
		"debtorAccount":{"other":{"identification":"enc!!cmVsYXRlZC1jYXJk","schemeNameProprietary":"creditCardAccount"},"currency":"NOK"},
		"ultimateDebtor":"Kari Nordmann","remittanceInformationStructured":{"reference":"1234567890128","referenceType":"KID","referenceIssuer":"Fjordlys Kraft AS"},
		"remittanceInformationStructuredArray":[{"reference":"2345678901231","referenceType":"KID"}],
		"purposeCode":"SALA","requestedExecutionDate":"2025-03-17"}`
	bulkDetails = `{"paymentId":"bulk-7f3a","batchBookingPreferred":true,"instructedAmount":{"amount":"300.00","currency":"NOK"},
		"debtorAccount":{"bban":"95312776066","currency":"NOK"},"transactionStatus":"ACTC",
		"payments":[{"paymentId":"p-1","instructedAmount":{"amount":"100.00","currency":"NOK"},"creditorName":"Per Hansen",
			"creditorAccount":{"bban":"98765432106","currency":"NOK"},"remittanceInformationUnstructured":"Gave til Per"},
		{"paymentId":"p-2","instructedAmount":{"amount":"200.00","currency":"NOK"},"creditorName":"Lise Berg",
			"creditorAccount":{"bban":"12345678903","currency":"NOK"},"remittanceInformationUnstructured":"Husleie Lise"}],
		"_links":{"self":{"href":"/v1/bulk-payments/norwegian-domestic-credit-transfers/bulk-7f3a"}}}`
)

// checkDocForms checks v, &v, []T{v, v} and a struct holding v: no
// printed or slog form shows a secret (redacttest.AssertHidden), the
// forms name the type and show the facts in shows, and v's JSON decodes
// to the same value and holds only the document's identifying values.
func checkDocForms[T any](t *testing.T, name string, v T, secrets, shows []string) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		require.NotEmpty(t, secrets)
		forms := redacttest.AssertHidden(t, v, secrets)
		redacttest.AssertHidden(t, &v, secrets)
		redacttest.AssertHidden(t, []T{v, v}, secrets)
		redacttest.AssertHidden(t, struct{ Doc T }{v}, secrets)
		for _, verb := range redacttest.Verbs {
			assert.Contains(t, forms[verb], reflect.TypeFor[T]().String(), "%s names the type", verb)
		}
		for _, s := range shows {
			for _, form := range []string{"%v", "slog JSON", "slog text"} {
				assert.Contains(t, forms[form], s, form)
			}
		}
		js, err := json.Marshal(v)
		require.NoError(t, err)
		var again T
		require.NoError(t, json.Unmarshal(js, &again))
		assert.Equal(t, v, again, "JSON round trip")
		for _, s := range redacttest.Secrets(t, js, identifying, identifyingPrefixes) {
			assert.Contains(t, secrets, s, "the JSON is the document's data")
		}
	})
}

// No printed form (%v %+v %#v %s %q %x %d, of the value, its pointer, a
// slice and a struct holding it) and no slog form of the payment
// requests, the bank's details and their parts shows an account number,
// a name, an address, a KID or remittance text; their JSON is still what
// is sent to the bank or what it answered. Before, %v of a
// NorwegianDomestic printed all of it.
func TestFormsHidePaymentData(t *testing.T) {
	t.Parallel()
	secretsOf := func(doc []byte) []string { return redacttest.Secrets(t, doc, identifying, identifyingPrefixes) }
	decode := func(doc []byte, v any) { require.NoError(t, json.Unmarshal(doc, v)) }

	doc := testdata(t, "ndct-request.golden.json")
	var ndctReq payments.NorwegianDomestic
	decode(doc, &ndctReq)
	checkDocForms(t, "NorwegianDomestic", ndctReq, secretsOf(doc), []string{"1250.00 NOK", "2025-03-17", "NO"})
	checkDocForms(t, "AccountReference", ndctReq.CreditorAccount, secretsOf(doc), []string{"NOK"})

	var full payments.NorwegianDomestic
	decode([]byte(fullNDCT), &full)
	fs := secretsOf([]byte(fullNDCT))
	checkDocForms(t, "NorwegianDomestic with every field", full, fs,
		[]string{"6400.00 NOK", "TSTBNO22", "creditCardAccount", "KID", "SALA", "[redacted]"})
	checkDocForms(t, "Address", *full.CreditorAddress, fs, []string{"NO"})
	checkDocForms(t, "OtherAccount", *full.DebtorAccount.Other, fs, []string{"creditCardAccount"})
	checkDocForms(t, "card debtor AccountReference", full.DebtorAccount, fs, []string{"creditCardAccount"})
	checkDocForms(t, "StructuredReference", *full.RemittanceInformationStructured, fs, []string{"KID"})

	doc = testdata(t, "sepa-request.golden.json")
	var sepa payments.SEPA
	decode(doc, &sepa)
	checkDocForms(t, "SEPA", sepa, secretsOf(doc), []string{"99.95 EUR", "DE"})
	checkDocForms(t, "SEPA Address", *sepa.CreditorAddress, secretsOf(doc), []string{"DE"})

	doc = testdata(t, "payment-ndct-details.json")
	var det payments.Details
	decode(doc, &det)
	checkDocForms(t, "Details", det, secretsOf(doc), []string{det.PaymentID, "1250.00 NOK", "status", "self"})
	var bulk payments.Details
	decode([]byte(bulkDetails), &bulk)
	checkDocForms(t, "bulk Details", bulk, secretsOf([]byte(bulkDetails)), []string{"ACTC", "p-2", "200.00 NOK"})
}
