package client

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidationError(t *testing.T) {
	t.Parallel()
	var err error = &ValidationError{Field: "creditorAccount.bban", Reason: "check digit does not match"}
	wrapped := fmt.Errorf("payments.CreateNorwegianDomestic: %w", errors.Join(err, &ValidationError{Field: "creditorName", Reason: "required"}))
	assert.ErrorIs(t, wrapped, ErrValidation)
	var ve *ValidationError
	require.ErrorAs(t, wrapped, &ve)
	assert.Equal(t, "creditorAccount.bban", ve.Field)
	assert.Equal(t, "invalid creditorAccount.bban: check digit does not match", err.Error())
	assert.NotErrorIs(t, errors.New("other"), ErrValidation)
}

func TestWithQueryOnTheWire(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: http.MethodPost, Path: "/v1/payments/x?a=1",
		Query: map[string][]string{"b": {"2"}}, Body: map[string]string{"k": "v"}}, nil,
		WithQuery("allowLogicalDuplicate", "true"))
	require.NoError(t, err)
	reqs := b.requests()
	require.Len(t, reqs, 1)
	require.NoError(t, reqs[0].VerifyErr)
	assert.Equal(t, "/v1/payments/x?a=1&allowLogicalDuplicate=true&b=2", reqs[0].URL)

	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil, WithQuery("", "v"))
	require.Error(t, err)
	assert.Len(t, b.requests(), 1, "an invalid option must fail before sending")
}
