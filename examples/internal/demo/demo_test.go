package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// TestConsentAndBalance: the sandbox customer's two accounts, and the
// savings account's 100.00 NOK.
func TestConsentAndBalance(t *testing.T) {
	t.Parallel()
	bank, c, err := Start("demo test")
	require.NoError(t, err)
	t.Cleanup(bank.Close)
	flow, err := sca.NewFlow(RedirectURI)
	require.NoError(t, err)
	psu := &client.PSU{IPAddress: "192.0.2.10"}

	session, own, err := Consent(t.Context(), bank, c, flow, psu)
	require.NoError(t, err)
	assert.Equal(t, client.Private, session.Context)
	require.Len(t, own, 2)
	assert.Equal(t, "Høyrentekonto", own[1].Name)

	opts := session.RequestOptions(psu)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	b, err := Balance(t.Context(), ais, own[1], opts)
	require.NoError(t, err)
	assert.Equal(t, "100.00 NOK", b.String())
}

func TestRun(t *testing.T) {
	t.Parallel()
	out := Run(t, func(_ context.Context, out io.Writer) error {
		_, err := fmt.Fprint(out, "hello")
		return err
	})
	assert.Equal(t, "hello", out)
}

func ExampleExample() {
	Example(func(_ context.Context, out io.Writer) error {
		fmt.Fprintln(out, "first line")
		return errors.New("the bank said no")
	})
	// Output:
	// first line
	// error: the bank said no
}
