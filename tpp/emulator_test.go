package tpp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/tpp"
)

// newEmulatorService returns a Service on c.
func newEmulatorService(t *testing.T, c *client.Client, opts ...tpp.Option) *tpp.Service {
	t.Helper()
	svc, err := tpp.New(c, opts...)
	require.NoError(t, err)
	return svc
}

// statusOf returns the HTTP status of the bank's error err.
func statusOf(t *testing.T, err error) int {
	t.Helper()
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	return ce.StatusCode
}

// TestEmulatorContact runs the TPP dialogue against the emulator: no
// address before the first PUT (404), one address per TPP (a PUT
// replaces it), and each TPP reads and writes only its own.
func TestEmulatorContact(t *testing.T) {
	t.Parallel()
	s := testtpp.Server(t)
	ctx := t.Context()
	ca, cb := testtpp.NewClient(t, s, "TPP A"), testtpp.NewClient(t, s, "TPP B")
	a, b := newEmulatorService(t, ca), newEmulatorService(t, cb)

	_, err := a.Contact(ctx)
	require.ErrorIs(t, err, tpp.ErrNotRegistered)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))

	got, err := a.SetContact(ctx, "psd2@tpp-a.example")
	require.NoError(t, err)
	assert.Equal(t, "psd2@tpp-a.example", got.Email)
	got, err = a.SetContact(ctx, "operations@tpp-a.example")
	require.NoError(t, err)
	assert.Equal(t, "operations@tpp-a.example", got.Email)
	got, err = a.Contact(ctx)
	require.NoError(t, err)
	assert.Equal(t, &tpp.Contact{Email: "operations@tpp-a.example"}, metatest.Strip(got), "one address per TPP: the last PUT")

	_, err = b.Contact(ctx)
	require.ErrorIs(t, err, tpp.ErrNotRegistered, "B has none of its own")

	// B names A's id: refused both ways, and A's address is unchanged.
	idA, err := a.ID()
	require.NoError(t, err)
	bAsA := newEmulatorService(t, cb, tpp.WithTPPID(idA))
	_, err = bAsA.Contact(ctx)
	assert.Equal(t, http.StatusForbidden, statusOf(t, err))
	assert.NotErrorIs(t, err, tpp.ErrNotRegistered)
	_, err = bAsA.SetContact(ctx, "attacker@tpp-b.example")
	assert.Equal(t, http.StatusForbidden, statusOf(t, err))
	got, err = a.Contact(ctx)
	require.NoError(t, err)
	assert.Equal(t, "operations@tpp-a.example", got.Email)

	// The national form of A's own id (without the PSD prefix) is A's too.
	require.True(t, strings.HasPrefix(idA, "PSD"))
	national := newEmulatorService(t, ca, tpp.WithTPPID(strings.TrimPrefix(idA, "PSD")))
	got, err = national.Contact(ctx)
	require.NoError(t, err)
	assert.Equal(t, "operations@tpp-a.example", got.Email)
}

// The emulator checks the address too: one the SDK would refuse, sent
// with WithoutValidation, is 400 FORMAT_ERROR, and the registered address
// stays.
func TestEmulatorContactValidation(t *testing.T) {
	t.Parallel()
	s := testtpp.Server(t)
	ctx := t.Context()
	a := newEmulatorService(t, testtpp.NewClient(t, s, "TPP A"))
	_, err := a.SetContact(ctx, "psd2@tpp-a.example")
	require.NoError(t, err)

	_, err = a.SetContact(ctx, "Kontakt <psd2@tpp-a.example>", client.WithoutValidation())
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
	assert.True(t, ce.HasCode("FORMAT_ERROR"))
	got, err := a.Contact(ctx)
	require.NoError(t, err)
	assert.Equal(t, "psd2@tpp-a.example", got.Email)
}
