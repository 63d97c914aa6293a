package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// metaResult is a typed result as the services declare one: a bank
// document that embeds an Answer.
type metaResult struct {
	Answer
	PaymentID string `json:"paymentId"`
}

// bankDate is the Date the test bank answers with.
var bankDate = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// TestMetaOfAnAnswer: a 2xx answer's Meta holds the X-Request-ID sent
// and the one echoed, the status, the attempts, and the kept headers
// (Date, ASPSP-SCA-Approach, Retry-After) and nothing of the others (not
// Location, whose path holds the id); Client.Do fills it into a result that embeds an Answer, and
// the Response of Do carries the same Meta with every header.
func TestMetaOfAnAnswer(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		h.Set("Date", bankDate.Format(http.TimeFormat))
		h.Set("ASPSP-SCA-Approach", "REDIRECT")
		h.Set("Location", "/v1/payments/sepa-credit-transfers/pay-1")
		h.Set("Retry-After", "7")
		h.Set("PSU-ID", "MARK-psu")
		h.Set("Set-Cookie", "s=MARK-cookie")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"paymentId":"pay-1"}`)
	})
	c := newTestClient(t, b.URL)
	var out metaResult
	resp, err := c.Do(t.Context(), Operation{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/payments/sepa-credit-transfers",
		Body: map[string]string{"a": "b"}, ResultID: "paymentId"}, &out, WithRequestID("9b8f3a52-3c1d-4e5f-8a7b-6c5d4e3f2a1b"))
	require.NoError(t, err)
	want := Meta{Operation: "payments.Create", RequestID: "9b8f3a52-3c1d-4e5f-8a7b-6c5d4e3f2a1b",
		EchoedRequestID: "9b8f3a52-3c1d-4e5f-8a7b-6c5d4e3f2a1b", StatusCode: http.StatusCreated, Attempts: 1,
		Date: bankDate, SCAApproach: "REDIRECT", RetryAfter: 7 * time.Second}
	assert.Equal(t, want, out.Meta())
	assert.Equal(t, "pay-1", out.PaymentID)
	assert.Equal(t, want, resp.Meta)
	assert.Equal(t, "MARK-psu", resp.Header.Get("PSU-ID"), "the Response keeps every header for Do's caller")
	assert.Equal(t, b.requests()[0].Header.Get("X-Request-ID"), out.Meta().RequestID, "the id on the wire")

	// The result's JSON stays the bank's document.
	doc, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"paymentId":"pay-1"}`, string(doc))
}

// TestMetaCountsAttempts: a GET retried after a 503 says it took two
// attempts, and keeps the one X-Request-ID of both.
func TestMetaCountsAttempts(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	c := newTestClient(t, b.URL)
	var out metaResult
	_, err := c.Do(t.Context(), Operation{Name: "payments.Status", Method: http.MethodGet, Path: "/v1/payments/x/p1/status"}, &out)
	require.NoError(t, err)
	reqs := b.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, 2, out.Meta().Attempts)
	assert.Equal(t, http.StatusOK, out.Meta().StatusCode)
	assert.Equal(t, reqs[1].Header.Get("X-Request-ID"), out.Meta().RequestID)
	assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), out.Meta().RequestID)
	assert.Empty(t, out.Meta().EchoedRequestID, "the bank echoed none")
}

// TestMetaNotFilledOnFailure: an answer that fails leaves the caller's
// result as it was, without metadata; the error carries the request id.
func TestMetaNotFilledOnFailure(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`)
	})
	c := newTestClient(t, b.URL)
	var out metaResult
	_, err := c.Do(t.Context(), Operation{Name: "payments.Status", Method: http.MethodGet, Path: "/v1/payments/x/p1/status"}, &out)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, Meta{}, out.Meta())
	assert.Equal(t, b.requests()[0].Header.Get("X-Request-ID"), e.RequestID)
}

// TestMetaBoundsWhatItKeeps: each kept header is what the bank sent or
// nothing: an echoed id or approach that is not a short token, an
// unreadable Date are left out, a Location is never kept, and a
// Retry-After is read within RetryAfterCap.
func TestMetaBoundsWhatItKeeps(t *testing.T) {
	t.Parallel()
	now := bankDate
	for _, tc := range []struct {
		name   string
		header http.Header
		want   Meta
	}{
		{"none", http.Header{}, Meta{}},
		{"echo kept", http.Header{"X-Request-Id": {"bank-1"}}, Meta{EchoedRequestID: "bank-1"}},
		{"echo with a space", http.Header{"X-Request-Id": {"a b"}}, Meta{}},
		{"echo with a control", http.Header{"X-Request-Id": {"a\x01"}}, Meta{}},
		{"echo not ASCII", http.Header{"X-Request-Id": {"ø"}}, Meta{}},
		{"echo too long", http.Header{"X-Request-Id": {strings.Repeat("a", maxKeptToken+1)}}, Meta{}},
		{"echo on two lines", http.Header{"X-Request-Id": {"bank-1", "bank-2"}}, Meta{}},
		{"approach on two lines", http.Header{"Aspsp-Sca-Approach": {"REDIRECT", "DECOUPLED"}}, Meta{}},
		{"echo at the bound", http.Header{"X-Request-Id": {strings.Repeat("a", maxKeptToken)}}, Meta{EchoedRequestID: strings.Repeat("a", maxKeptToken)}},
		{"approach", http.Header{"Aspsp-Sca-Approach": {"DECOUPLED"}}, Meta{SCAApproach: "DECOUPLED"}},
		{"approach not a token", http.Header{"Aspsp-Sca-Approach": {"REDIRECT; x=1"}}, Meta{}},
		{"location never kept", http.Header{"Location": {"https://bank.example/v1/x/1"}}, Meta{}},
		{"date unreadable", http.Header{"Date": {"yesterday"}}, Meta{}},
		{"retry-after huge", http.Header{"Retry-After": {"99999999999999999999999"}}, Meta{RetryAfter: RetryAfterCap}},
		{"retry-after a date", http.Header{"Date": {now.Format(http.TimeFormat)}, "Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}},
			Meta{Date: now, RetryAfter: time.Minute}},
		{"retry-after negative", http.Header{"Retry-After": {"-5"}}, Meta{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := newMeta("", "", &reply{header: tc.header}, now)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestMetaPrintsNothingPersonal: the metadata of an answer whose headers
// name the PSU, an account id (Location) and a cookie holds none of
// them: neither the Meta under every fmt verb, slog handler and JSON, nor
// a result that embeds it printed by fmt's own struct printing under any
// verb (which reaches the Meta's fields through the pointer), nor the
// Response of Do, whose headers print as the logger shows them.
func TestMetaPrintsNothingPersonal(t *testing.T) {
	t.Parallel()
	secrets := redacttest.WithHex("MARK-acc", "MARK-state", "MARK-psu", "MARK-cookie")
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		h.Set("Date", bankDate.Format(http.TimeFormat))
		h.Set("ASPSP-SCA-Approach", "REDIRECT")
		h.Set("Location", "https://bank.example/v1/accounts/MARK-acc/transactions?state=MARK-state#MARK-state")
		h.Set("PSU-ID", "MARK-psu")
		h.Set("Set-Cookie", "s=MARK-cookie")
		io.WriteString(w, `{"paymentId":"p-1"}`)
	})
	c := newTestClient(t, b.URL)
	var r metaResult
	resp, err := c.Do(t.Context(), Operation{Name: "payments.Status", Method: http.MethodGet, Path: "/v1/payments/x/p-1/status"}, &r,
		WithRequestID("r-1"))
	require.NoError(t, err)
	m := r.Meta()
	const text = "client.Meta{Operation:payments.Status RequestID:r-1 EchoedRequestID:r-1 StatusCode:200 Attempts:1 " +
		"Date:Wed, 04 Mar 2026 05:06:07 GMT SCAApproach:REDIRECT RetryAfter:0s}"
	redacttest.AssertVerbs(t, m, text, text)
	forms := redacttest.AssertRedacted(t, m, secrets)
	assert.Contains(t, forms["json"], `"RequestID":"r-1"`)
	assert.Contains(t, forms["json"], `"StatusCode":200`)

	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		got := fmt.Sprintf(verb, r)
		for _, s := range secrets {
			assert.NotContains(t, got, s, verb)
		}
	}
	redacttest.AssertRedacted(t, *resp, secrets)
}

// TestMetaOfZeroAnswer: a value not decoded from an answer has the zero
// Meta.
func TestMetaOfZeroAnswer(t *testing.T) {
	t.Parallel()
	var r metaResult
	assert.Equal(t, Meta{}, r.Meta())
	var a Answer
	assert.Equal(t, Meta{}, a.Meta())
}
