package sca_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestTourPattern runs the README tour's pattern against the emulator: every
// call prepared with Manager.Prepare, every answer through the call's
// Redirect, the callback completed by HandlerFor for the login that
// started it. The PSU connects (an account call asks for SCA), lists the
// accounts, pays, approves the payment, and the payment reaches a final
// status.
func TestTourPattern(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := emulator.NewServer()
	t.Cleanup(bank.Close)
	creds, err := bank.NewTPP("Example TPP")
	require.NoError(t, err)
	mux := http.NewServeMux()
	app := httptest.NewServer(mux)
	t.Cleanup(app.Close)
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI(app.URL+"/callback")))
	require.NoError(t, err)
	flow, err := sca.NewFlow(app.URL+"/callback", sca.WithClient(c))
	require.NoError(t, err)
	sessions, err := sca.NewManager(flow, store.NewMemoryStore())
	require.NoError(t, err)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	pis, err := payments.New(c, payments.WithPolling(5*time.Millisecond, 20*time.Millisecond))
	require.NoError(t, err)

	// The site's login sessions, server side.
	logins := map[string]string{"login-session-of-kari": "user-42"}
	userOf := func(r *http.Request) (string, error) {
		c, err := r.Cookie("__Host-session")
		if err != nil {
			return "", err
		}
		if u, ok := logins[c.Value]; ok {
			return u, nil
		}
		return "", errors.New("not logged in")
	}
	var completed []error
	mux.Handle("GET /callback", sessions.HandlerFor(userOf, func(w http.ResponseWriter, r *http.Request, s *sca.Session, err error) {
		completed = append(completed, err)
		if err != nil {
			http.Error(w, "not completed", http.StatusBadRequest)
		}
	}))
	present := &client.PSU{IPAddress: "192.0.2.10"}
	// back approves the SCA of link at the bank as Kari and brings the
	// callback in Kari's browser.
	back := func(link sca.Redirect) {
		t.Helper()
		cb, err := bank.Control().Authorize(ctx, link.String(), emulator.CustomerKari)
		require.NoError(t, err)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cb.String(), nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: "__Host-session", Value: "login-session-of-kari"})
		resp, err := app.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "callback: %v", completed)
	}

	// 4. Accounts: the first call asks for SCA.
	call, err := sessions.Prepare(ctx, "user-42", present)
	require.NoError(t, err)
	_, err = ais.List(ctx, nil, call.Options)
	link, ok, rerr := call.Redirect(ctx, err)
	require.NoError(t, rerr)
	require.True(t, ok, "the first account call asks for SCA: %v", err)
	back(link)
	call, err = sessions.Prepare(ctx, "user-42", present)
	require.NoError(t, err)
	list, err := ais.List(ctx, nil, call.Options)
	require.NoError(t, err)
	require.NotEmpty(t, list)

	// 5. The payment, in the PSU's session; its answer's Redirect.
	call, err = sessions.Prepare(ctx, "user-42", present)
	require.NoError(t, err)
	init, err := pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("150.00", "NOK"),
		CreditorName:                      "Kiwi Grünerløkka",
		CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Street: "Thorvald Meyers gate 1", PostalCode: "0555", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: list[0].BBAN, Currency: "NOK"},
		RemittanceInformationUnstructured: "Invoice 2026-118",
	}, call.Options)
	require.NoError(t, err)
	link, ok, err = call.Redirect(ctx, init)
	require.NoError(t, err)
	require.True(t, ok)
	back(link)

	// 6. The final status.
	bank.Control().RunBatch()
	call, err = sessions.Prepare(ctx, "user-42", present)
	require.NoError(t, err)
	st, err := pis.Wait(ctx, init.Ref(), call.Options)
	require.NoError(t, err)
	assert.True(t, st.TransactionStatus.IsFinal(), "status %s", st.TransactionStatus)
	assert.Equal(t, []error{nil, nil}, completed)
}
