package payments_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
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
	j := mustJournal(t, store.NewMemoryStore())
	svc := journaled(t, b, j)
	const tppState = "TPPSTATE-5e1f2a"
	b.s.InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	ro := b.pisp(client.WithRequestID(id), client.WithRedirectURI("https://tpp.example/cb?state="+tppState))
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "64.00"), ro...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	entry, err := j.Entry(ctx, id)
	require.NoError(t, err)
	res, err := svc.Resolve(ctx, entry, b.pisp(client.WithRedirectURI("https://tpp.example/cb?state="+tppState))...)
	require.NoError(t, err)
	require.Equal(t, payments.ResolvedCreated, res.Kind)
	redirect, err := url.Parse(res.Initiation.SCARedirect())
	require.NoError(t, err)
	bankState := redirect.Query().Get("state")
	require.NotEmpty(t, bankState, "the bank's SCA state is in the scaRedirect")
	auth, err := svc.StartAuthorisation(ctx, payments.ProductNorwegianDomestic, res.PaymentID, b.pisp()...)
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

	links := client.Links{client.LinkSCARedirect: {Href: res.Initiation.SCARedirect()}}
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
		{name: "[]JournalEntry", v: []payments.JournalEntry{entry, resend}},
		{name: "resend JournalEntry", v: resend},
		{name: "recorded Resolution", v: *entry.Resolution},
		{name: "Resolution with Initiation", v: res},
		{name: "*Resolution", v: &res},
		{name: "Initiation", v: *res.Initiation, documentJSON: true},
		{name: "*Initiation", v: res.Initiation, documentJSON: true},
		{name: "Authorisation", v: *auth, documentJSON: true},
		{name: "*Authorisation", v: auth, documentJSON: true},
		{name: "StatusResponse", v: payments.StatusResponse{PaymentID: res.PaymentID, TransactionStatus: payments.StatusRCVD, FundsAvailable: &fundsOK, Links: links}, documentJSON: true},
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
	f = forms(t, *res.Initiation)
	assert.Contains(t, f["slog JSON"], res.PaymentID)
	assert.Contains(t, f["slog JSON"], `"scaRedirect"`, "the links are there, redacted")
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
