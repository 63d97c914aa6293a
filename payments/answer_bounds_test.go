package payments_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// statusAnswer registers status and body for every method on path.
func statusAnswer(method, path string, status int, body string) {
	httpmock.RegisterResponder(method, baseURL+path, func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	})
}

var sepaRef = payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"}

// TestReadsRefuseEmptyAnswers: a status or details read answered 204, or
// 200 with `{}`, is a typed error, not an empty status without error.
func TestReadsRefuseEmptyAnswers(t *testing.T) {
	svc := newMockService(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		status int
		body   string
		target error
	}{
		{"204", http.StatusNoContent, "", client.ErrUnexpectedStatus},
		{"202", http.StatusAccepted, `{"paymentId":"p1","transactionStatus":"ACSC"}`, client.ErrUnexpectedStatus},
		{"200 {}", http.StatusOK, `{}`, payments.ErrIncompleteAnswer},
	} {
		httpmock.Reset()
		statusAnswer(http.MethodGet, "/v1/payments/sepa-credit-transfers/p1/status", tt.status, tt.body)
		statusAnswer(http.MethodGet, "/v1/payments/sepa-credit-transfers/p1", tt.status, tt.body)
		st, err := svc.Status(ctx, sepaRef, psuPresent()...)
		assert.ErrorIs(t, err, tt.target, "Status %s", tt.name)
		assert.Nil(t, st)
		st, err = svc.StatusAt(ctx, "/v1/payments/sepa-credit-transfers/p1/status", psuPresent()...)
		assert.ErrorIs(t, err, tt.target, "StatusAt %s", tt.name)
		assert.Nil(t, st)
		if tt.status == http.StatusAccepted {
			continue // its body names a paymentId; the status alone is refused
		}
		d, err := svc.Get(ctx, sepaRef, psuPresent()...)
		assert.ErrorIs(t, err, tt.target, "Get %s", tt.name)
		assert.Nil(t, d)
	}
}

// TestWaitStopsOnUnexpectedStatus: Wait reads a 204 once and ends with
// the unexpected status, neither spinning nor reporting a status.
func TestWaitStopsOnUnexpectedStatus(t *testing.T) {
	bank := &noContentBank{}
	c := mockClient(t)
	httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/payments/sepa-credit-transfers/p1/status", bank.respond)
	svc, err := payments.New(c, payments.WithPolling(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	st, err := svc.Wait(ctx, sepaRef, psuPresent()...)
	require.ErrorIs(t, err, client.ErrUnexpectedStatus)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Nil(t, st)
	assert.Equal(t, 1, bank.n)
}

type noContentBank struct{ n int }

func (b *noContentBank) respond(*http.Request) (*http.Response, error) {
	b.n++
	return httpmock.NewStringResponse(http.StatusNoContent, ""), nil
}

// TestStartAuthorisationStatuses: a start of authorisation answered 200
// is not a success (the interface names 201); an unknown scaStatus is
// kept and reported as unknown.
func TestStartAuthorisationStatuses(t *testing.T) {
	svc := newMockService(t)
	ctx := context.Background()
	body := `{"scaStatus":"started","_links":{"scaRedirect":{"href":"https://bank.example/tap/1","verbs":["GET"]}}}`
	statusAnswer(http.MethodPost, "/v1/payments/sepa-credit-transfers/p1/authorisations", http.StatusOK, body)
	a, err := svc.StartAuthorisation(ctx, sepaRef, psuPresent()...)
	require.ErrorIs(t, err, client.ErrUnexpectedStatus)
	assert.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Nil(t, a)
	_, err = svc.StartAuthorisationAt(ctx, "/v1/payments/sepa-credit-transfers/p1/authorisations", psuPresent()...)
	require.ErrorIs(t, err, client.ErrUnexpectedStatus)

	httpmock.Reset()
	statusAnswer(http.MethodPost, "/v1/payments/sepa-credit-transfers/p1/authorisations", http.StatusCreated, strings.Replace(body, "started", "onHold", 1))
	a, err = svc.StartAuthorisation(ctx, sepaRef, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, "onHold", a.ScaStatus)
	assert.False(t, a.ScaStatusKnown())
	assert.Equal(t, "https://bank.example/tap/1", a.SCARedirect())
}

// TestAnswerStringsBounded: free text the bank sends (psuMessage, a
// tppMessage's text) is cut to the interface's 512 characters; an
// over-long id, status or href is refused with client.ErrValueTooLong.
func TestAnswerStringsBounded(t *testing.T) {
	svc := newMockService(t)
	ctx := context.Background()
	long := strings.Repeat("ø", 600)
	statusPath := "/v1/payments/sepa-credit-transfers/p1/status"

	statusAnswer(http.MethodGet, statusPath, http.StatusOK,
		`{"paymentId":"p1","transactionStatus":"ACTC","psuMessage":"`+long+`","tppMessages":[{"category":"WARNING","code":"X","text":"`+long+`"}]}`)
	st, err := svc.Status(ctx, sepaRef, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, client.MaxTextLength, utf8.RuneCountInString(st.PSUMessage))
	require.Len(t, st.Messages, 1)
	assert.Equal(t, client.MaxTextLength, utf8.RuneCountInString(st.Messages[0].Text))

	for name, body := range map[string]string{
		"transactionStatus": `{"paymentId":"p1","transactionStatus":"` + strings.Repeat("A", client.MaxIDLength+1) + `"}`,
		"paymentId":         `{"paymentId":"` + strings.Repeat("p", client.MaxIDLength+1) + `","transactionStatus":"ACTC"}`,
		"href":              `{"transactionStatus":"ACTC","_links":{"self":{"href":"/` + strings.Repeat("x", client.MaxHrefLength) + `","verbs":["GET"]}}}`,
	} {
		httpmock.Reset()
		statusAnswer(http.MethodGet, statusPath, http.StatusOK, body)
		_, err := svc.Status(ctx, sepaRef, psuPresent()...)
		assert.ErrorIs(t, err, client.ErrValueTooLong, name)
	}

	// A paymentId no path could carry is refused as the bank's id, in a
	// status read and a details read alike, quoting nothing of it.
	for name, id := range map[string]string{
		"line break":    `p1\nFORGED`,
		"escape":        `p1\u001b[2J`,
		"C1 control":    `p1\u009b2J`,
		"not UTF-8":     `p1\ufffd`,
		"dot segment":   `..`,
		"spaces around": ` p1`,
	} {
		httpmock.Reset()
		statusAnswer(http.MethodGet, statusPath, http.StatusOK, `{"paymentId":"`+id+`","transactionStatus":"ACTC"}`)
		_, err := svc.Status(ctx, sepaRef, psuPresent()...)
		require.ErrorIs(t, err, client.ErrMalformedValue, name)
		assert.NotContains(t, err.Error(), "FORGED", name)
		httpmock.Reset()
		statusAnswer(http.MethodGet, "/v1/payments/sepa-credit-transfers/p1", http.StatusOK, `{"paymentId":"`+id+`","transactionStatus":"ACTC"}`)
		_, err = svc.Get(ctx, sepaRef, psuPresent()...)
		require.ErrorIs(t, err, client.ErrMalformedValue, name)
	}

	// A create whose paymentId is over-long: the outcome is unknown (the
	// journal keeps it in doubt), nothing is taken as the id.
	httpmock.Reset()
	statusAnswer(http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated,
		`{"paymentId":"`+strings.Repeat("p", client.MaxIDLength+1)+`","transactionStatus":"RCVD"}`)
	in, err := svc.CreateNorwegianDomestic(ctx, validNDCT(), psuPresent()...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.ErrorIs(t, err, client.ErrValueTooLong)
	assert.Nil(t, in)

	// An error answer: its text is cut, an over-long link left out.
	httpmock.Reset()
	statusAnswer(http.MethodGet, statusPath, http.StatusBadRequest,
		`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","text":"`+long+`"}],"psuMessage":"`+long+`",`+
			`"_links":{"scaRedirect":{"href":"https://bank.example/`+strings.Repeat("x", client.MaxHrefLength)+`"},"self":{"href":"/v1/x"}}}`)
	_, err = svc.Status(ctx, sepaRef, psuPresent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Messages, 1)
	assert.Equal(t, client.MaxTextLength, utf8.RuneCountInString(ce.Messages[0].Text))
	assert.Equal(t, client.MaxTextLength, utf8.RuneCountInString(ce.PSUMessage))
	assert.Empty(t, ce.Links.SCARedirect())
	assert.Equal(t, "/v1/x", ce.Links.Href("self"))
}
