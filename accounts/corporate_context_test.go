package accounts_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestReadsRefuseInconsistentCorporateContext: in CORPORATE context an
// account information call carries both PSU-ID and PSU-Corporate-ID
// (docs/interface.md sections 5.10 and 7: a corporate user without
// PSU-Corporate-ID gets 400), and a PSU-Corporate-ID belongs to the
// CORPORATE context only (section 6). A read whose PSU-Context says
// CORPORATE without a PSU-Corporate-ID (an sca.Session of a CORPORATE
// callback that brought none), or PRIVATE with one, is refused before it
// is sent with a *client.ValidationError naming the header. GET
// /v1/agreements, which is how the TPP finds the PSU-Corporate-ID, is
// sent all the same. Before the fix every read went to the bank and came
// back 400 (a read without the PSU spending one of the account's 4 calls
// a day on it).
func TestReadsRefuseInconsistentCorporateContext(t *testing.T) {
	const corpID = "6376a34c-9693-465e-a0d8-6c6bdd775263"
	base := []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI)}
	corporateNoID := append(base[:2:2], client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}), client.WithPSUContext(client.Corporate))
	privateWithID := append(base[:2:2], client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: psuIP}), client.WithPSUContext(client.Private))

	for _, tc := range []struct {
		name  string
		ro    []client.RequestOption
		field string
	}{
		{"corporate without corporate id", corporateNoID, "PSU-Corporate-ID"},
		{"private with corporate id", privateWithID, "PSU-Context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			respond(t, http.MethodGet, "/v1/accounts", http.StatusOK, "accounts.json", nil)
			respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/balances", http.StatusOK, "balances.json", nil)
			for name, call := range map[string]func() error{
				"List":     func() error { _, err := svc.List(t.Context(), nil, tc.ro...); return err },
				"Balances": func() error { _, err := svc.Balances(t.Context(), acc1, tc.ro...); return err },
			} {
				err := call()
				require.ErrorIs(t, err, client.ErrValidation, name)
				var ve *client.ValidationError
				require.True(t, errors.As(err, &ve), name)
				assert.Equal(t, tc.field, ve.Field, name)
			}
			assert.Equal(t, 0, calls(), "nothing sent")
		})
	}

	t.Run("agreements", func(t *testing.T) {
		svc := newMockService(t)
		respond(t, http.MethodGet, "/v1/agreements", http.StatusOK, "agreements.json", nil)
		got, err := svc.Agreements(t.Context(), corporateNoID...)
		require.NoError(t, err)
		assert.Len(t, got, 2)
		assert.Equal(t, 1, calls())
	})
}
