package accounts_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestListedResourceIDNoPathCanCarry: an account's or card account's
// resourceId is the id every later call puts in its path, and what
// txsync.Link and refresh.Remember keep. One that no path could carry (a
// line break, a terminal escape, a C1 control, bytes that are not UTF-8,
// spaces around it, a dot segment) or longer than client.MaxIDLength is
// refused by List, Get, CardAccounts and CardAccount alike, quoting
// nothing of it, where it was handed to the caller as the bank's id. An
// account listed without one is kept as before.
func TestListedResourceIDNoPathCanCarry(t *testing.T) {
	svc := newMockService(t)
	ctx := context.Background()
	answer := func(path, body string) {
		httpmock.RegisterResponder(http.MethodGet, baseURL+path, func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(http.StatusOK, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
	}
	ids := map[string]string{
		"line break":    `a1\nFORGED`,
		"escape":        `a1\u001b[2JFORGED`,
		"C1 control":    `a1\u009b2JFORGED`,
		"not UTF-8":     `a1\ufffdFORGED`,
		"dot segment":   `..`,
		"spaces around": ` a1FORGED`,
	}
	for name, id := range ids {
		httpmock.Reset()
		answer("/v1/accounts", `{"accounts":[{"resourceId":"`+acc1+`"},{"resourceId":"`+id+`"}]}`)
		answer("/v1/accounts/"+acc1, `{"account":{"resourceId":"`+id+`"}}`)
		answer("/v1/card-accounts", `{"cardAccounts":[{"resourceId":"`+id+`"}]}`)
		answer("/v1/card-accounts/"+cardAccountID, `{"cardAccount":{"resourceId":"`+id+`"}}`)
		for call, f := range map[string]func() error{
			"List":         func() error { _, err := svc.List(ctx, nil, psuPresent()...); return err },
			"Get":          func() error { _, err := svc.Get(ctx, acc1, psuPresent()...); return err },
			"CardAccounts": func() error { _, err := svc.CardAccounts(ctx, psuPresent()...); return err },
			"CardAccount":  func() error { _, err := svc.CardAccount(ctx, cardAccountID, psuPresent()...); return err },
		} {
			err := f()
			require.ErrorIs(t, err, client.ErrMalformedValue, "%s %s", call, name)
			assert.NotContains(t, err.Error(), "FORGED", "%s %s", call, name)
		}
	}

	httpmock.Reset()
	long := strings.Repeat("x", client.MaxIDLength+1)
	answer("/v1/accounts", `{"accounts":[{"resourceId":"`+long+`"}]}`)
	_, err := svc.List(ctx, nil, psuPresent()...)
	require.ErrorIs(t, err, client.ErrValueTooLong)
	assert.NotContains(t, err.Error(), long)

	// An account without a resourceId is listed as before (refresh and
	// txsync pass over it or refuse it themselves).
	httpmock.Reset()
	answer("/v1/accounts", `{"accounts":[{"resourceId":"`+acc1+`"},{"iban":"NO8495312776066"}]}`)
	list, err := svc.List(ctx, nil, psuPresent()...)
	require.NoError(t, err)
	assert.Len(t, list, 2)
}
