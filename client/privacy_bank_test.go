package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// A bank's refusal whose tppMessage echoes the PSU's national identity
// number (in code, path or text) and the IBAN of the request: the error's
// message, its slog form and the client.Result handed to hooks must not
// repeat them, as psuMessage and the codes of events, OpenTelemetry and
// River (client.SafeCode) never do.
func TestErrorFormsHideBankEcho(t *testing.T) {
	const national, iban = "24117912345", "NO9386011117947"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":"PSU_%s","path":"creditorAccount.iban=%s",`+
			`"text":"Account %s does not belong to PSU %s"},{"category":"PSU %s","code":"FORMAT_ERROR"}]}`, national, iban, iban, national, national)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Privacy TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	var hooked client.Result
	_, err = c.Do(t.Context(), client.Operation{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"a":1}`), Hook: func(context.Context, *client.Call) (func(client.Result), error) {
			return func(r client.Result) { hooked = r }, nil
		}}, nil)
	require.Error(t, err)

	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error("call failed", "err", err, "result", hooked)
	slog.New(slog.NewJSONHandler(&js, nil)).Error("call failed", "err", err, "result", hooked)
	rj, _ := json.Marshal(hooked)
	ej, _ := json.Marshal(err)
	for form, out := range map[string]string{"err.Error()": err.Error(), "%v": fmt.Sprintf("%v", err),
		"slog text": text.String(), "slog json": js.String(), "Result %v": fmt.Sprintf("%v", hooked), "Result json": string(rj),
		"%#v": fmt.Sprintf("%#v", err), "json": string(ej)} {
		for _, secret := range []string{national, iban} {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows %s: %s", form, secret, out)
			}
		}
	}
}
