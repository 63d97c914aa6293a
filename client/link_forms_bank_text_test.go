package client_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// A bank's links whose names and verbs carry the PSU's national identity
// number and control characters (a terminal escape, a line break that
// would forge a log line): the printed, slog and JSON forms of an error
// and of its links show neither. Only names and verbs that read as the
// interface's words are shown.
func TestLinkFormsShowNoBankText(t *testing.T) {
	const national = "24117912345"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":"CONSENT_INVALID"}],"_links":{`+
			`"PSU %s\n\u001b[2Jlevel=ERROR msg=forged":{"href":"/v1/accounts","verbs":["GET"]},`+
			`"self":{"href":"/v1/accounts","verbs":["GET\r\nlevel=ERROR msg=forged","%s"]}}}`, national, national)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Link TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	_, err = c.Do(t.Context(), client.Operation{Name: "accounts.List", Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Links, 2, "the error keeps the bank's links")

	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error("x", "err", err, "links", ce.Links, "self", ce.Links["self"])
	slog.New(slog.NewJSONHandler(&js, nil)).Error("x", "err", err, "links", ce.Links, "self", ce.Links["self"])
	ej, _ := json.Marshal(err)
	forms := map[string]string{
		"err %#v": fmt.Sprintf("%#v", err), "err json": string(ej),
		"links %v": fmt.Sprintf("%v", ce.Links), "links %+v": fmt.Sprintf("%+v", ce.Links), "links %#v": fmt.Sprintf("%#v", ce.Links),
		"link %v": fmt.Sprintf("%v", ce.Links["self"]), "link %#v": fmt.Sprintf("%#v", ce.Links["self"]),
		"slog text": strings.TrimSuffix(text.String(), "\n"), "slog json": strings.TrimSuffix(js.String(), "\n"),
	}
	for form, out := range forms {
		if strings.Contains(out, national) {
			t.Errorf("%s shows the national identity number: %q", form, out)
		}
		if strings.ContainsFunc(out, unicode.IsControl) {
			t.Errorf("%s holds a control character of the bank's: %q", form, out)
		}
		if strings.Contains(out, "forged") {
			t.Errorf("%s shows the bank's text: %q", form, out)
		}
	}
	require.Contains(t, forms["links %v"], "self")
	require.Contains(t, forms["links %v"], "Verbs:[GET]")
}
