package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// A TPP registered only as PISP gets the bank's refusal of account
// information (the emulator's SetRoles scenario): the SDK reports it as a
// certificate problem, client.ErrCertificate, with the code the emulator
// sends (docs/interface.md sections 1.2, 7).
func TestPISPOnlyIsRefusedAccountInformation(t *testing.T) {
	t.Parallel()
	s := testtpp.Server(t)
	c := testtpp.NewClient(t, s, "PISP only")
	s.Control().SetRoles(c.Credentials().Certificate, emulator.RolePISP)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	_, err = svc.StartConsent(t.Context(), client.WithTPPSessionID("roles"))
	require.ErrorIs(t, err, client.ErrCertificate)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 401, e.StatusCode)
	assert.Equal(t, client.CodeCertificateInvalid, e.Messages[0].Code)

	s.Control().SetRoles(c.Credentials().Certificate, emulator.RoleAISP|emulator.RolePISP)
	_, err = svc.StartConsent(t.Context(), client.WithTPPSessionID("roles"))
	assert.NoError(t, err)
}
