package client

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/redact"
)

// TestLoggedHeaderValueBounded: a header value the logger shows in clear
// (X-Request-ID, Digest, ASPSP-SCA-Approach, Content-Type, Vary, on one
// line or on many) is the bank's text, of any length within the answer's
// header limit: the log line of the attempt and the printed, JSON and
// slog forms of the call's error show at most redact.MaxShown bytes of
// it, as every other value of the bank a form shows in clear. On the
// code before, every byte of it went into each.
func TestLoggedHeaderValueBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 10_000)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		h := w.Header()
		h.Set("X-Request-ID", long)
		h.Set("Content-Type", "application/json; x="+long)
		for range 300 {
			h.Add("Vary", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		}
		w.WriteHeader(http.StatusBadRequest)
	})
	var logs logBuffer
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithLogger(debugLogger(&logs)))
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e, "%v", err)
	tooMuch := strings.Repeat("a", redact.MaxShown+1)
	assert.NotContains(t, logs.String(), tooMuch, "the log line")
	assert.Less(t, len(logs.String()), 8_000, "the log line")
	js, jerr := json.Marshal(e)
	require.NoError(t, jerr)
	var sl strings.Builder
	slog.New(slog.NewJSONHandler(&sl, nil)).Info("x", "err", e)
	for name, form := range map[string]string{
		"%v": fmt.Sprintf("%v", e), "%+v": fmt.Sprintf("%+v", e), "%#v": fmt.Sprintf("%#v", e),
		"JSON": string(js), "slog": sl.String(),
	} {
		assert.NotContains(t, form, tooMuch, name)
		assert.Less(t, len(form), 8_000, name)
	}
	assert.Equal(t, long, e.Header.Get("X-Request-ID"), "the header itself is kept")
}

// TestLoggedHeaderNamesBounded: the names of an answer's headers are the
// bank's too, as many as the answer's header limit lets it send (the
// SDK's transport takes 64 KiB of them; a caller's http.Client 10 MiB by
// default): the log line of the attempt and the printed, JSON and slog
// forms of the call's error show at most maxShownHeaders of them, in
// name order, and say how many more there were. On the code before,
// every name went into each, a thousand here.
func TestLoggedHeaderNamesBounded(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		for i := range 1000 {
			w.Header().Set(fmt.Sprintf("X-Bank-%04d", i), "v")
		}
		w.WriteHeader(http.StatusBadRequest)
	})
	var logs logBuffer
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithLogger(debugLogger(&logs)))
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e, "%v", err)
	js, jerr := json.Marshal(e)
	require.NoError(t, jerr)
	var sl strings.Builder
	slog.New(slog.NewJSONHandler(&sl, nil)).Info("x", "err", e)
	for name, form := range map[string]string{"log": logs.String(), "%#v": fmt.Sprintf("%#v", e), "JSON": string(js), "slog": sl.String()} {
		assert.LessOrEqual(t, strings.Count(form, "X-Bank-"), maxShownHeaders, name)
		assert.NotContains(t, form, "X-Bank-0999", name)
		if name != "slog" { // the slog form of an *Error shows no headers
			assert.Contains(t, form, "more headers", name)
		}
	}
	assert.Equal(t, "v", e.Header.Get("X-Bank-0999"), "the headers themselves are kept")
}
