package journal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A bank whose refusal carries a national identity number in its code
// field (a field the SDK elsewhere treats as untrusted: client.SafeCode):
// no printed, slog or JSON form of the journal's entry or resolution may
// repeat it.
func TestJournalFormsHideBankCode(t *testing.T) {
	const national = "24117912345"
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		n := posts.Add(1)
		if n == 1 { // the first create: the answer is lost
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":"PSU_%s_BLOCKED","text":"blocked"}]}`, national)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Journal privacy TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)
	create := journal.Create{ResultID: "thingId", DuplicateStatus: http.StatusConflict, DuplicateCode: "DUPLICATE"}
	do := func(id string) error {
		_, err := c.Do(t.Context(), client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
			Body: json.RawMessage(`{"a":1}`), ResultID: create.ResultID, Hook: j.Hook(c, create)}, nil, client.WithRequestID(id))
		return err
	}

	// 1. An in-doubt create, resolved by a resend the bank refuses.
	doubt := uuid.NewString()
	require.ErrorIs(t, do(doubt), client.ErrOutcomeUnknown)
	e, err := j.Entry(t.Context(), doubt)
	require.NoError(t, err)
	journal.Age(j, e)
	res, err := j.Resolve(t.Context(), c, e)
	require.NoError(t, err)
	// 2. A create the bank refuses.
	refused := uuid.NewString()
	require.Error(t, do(refused))
	e2, err := j.Entry(t.Context(), refused)
	require.NoError(t, err)
	e1, err := j.Entry(t.Context(), doubt)
	require.NoError(t, err)

	for name, v := range map[string]any{"resolution": res, "resolved entry": e1, "refused entry": e2} {
		var text, js bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
		b, _ := json.Marshal(v)
		for form, out := range map[string]string{"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v),
			"slog text": text.String(), "slog json": js.String(), "json": string(b)} {
			if strings.Contains(out, national) {
				t.Errorf("%s: %s leaks the bank's code: %s", name, form, out)
			}
		}
	}
}
