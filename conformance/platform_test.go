package conformance

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Paths of the answer documents' calls; the ids are the documents' own.
const (
	accountPath = "/v1/accounts/enc!!aWQtMQ="
	cardPath    = "/v1/card-accounts/enc!!aWQtMQ="
	ndctPath    = "/v1/payments/norwegian-domestic-credit-transfers"
	sepaPath    = "/v1/payments/sepa-credit-transfers"
	paymentID   = "/enc!!I-HFM1MFfmXXkRmCdcRj1WdMn6_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h"
	basketPath  = "/v1/signing-baskets/enc!!YmFza2V0LTE="
)

// platformAnswers are the platform's answer documents of
// testdata/platform (response samples of the real platform, see
// testdata/README.md) with the call each answers. Those of operations
// Berlin Group does not define (agreements, sandbox customers) have no
// Berlin Group schema: their route finding is all the Berlin Group check
// gives (the evidence of deviations 11.23 and 11.25), and
// docs/openapi.json checks their bodies.
var platformAnswers = []struct {
	file         string
	method, path string
	status       int
}{
	{"accounts.json", http.MethodGet, "/v1/accounts", 200},
	{"account.json", http.MethodGet, accountPath, 200},
	{"balances.json", http.MethodGet, accountPath + "/balances", 200},
	{"transactions-page1.json", http.MethodGet, accountPath + "/transactions", 200},
	{"transactions-page2.json", http.MethodGet, accountPath + "/transactions", 200},
	{"card-accounts.json", http.MethodGet, "/v1/card-accounts", 200},
	{"card-account-balances.json", http.MethodGet, cardPath + "/balances", 200},
	{"card-transactions.json", http.MethodGet, cardPath + "/transactions", 200},
	{"bank-offered-consent-201.json", http.MethodPost, "/v1/bank-offered-consents", 201},
	{"error-401-sca-redirect.json", http.MethodGet, "/v1/accounts", 401},
	{"error-403-consent-unknown.json", http.MethodGet, "/v1/accounts", 403},
	{"error-429-access-exceeded.json", http.MethodGet, accountPath + "/balances", 429},
	{"error-400-format-error.json", http.MethodPost, ndctPath, 400},
	{"error-400-kid-invalid.json", http.MethodPost, ndctPath, 400},
	{"payment-ndct-create-201.json", http.MethodPost, ndctPath, 201},
	{"payment-sepa-create-201.json", http.MethodPost, sepaPath, 201},
	{"payment-status-actc.json", http.MethodGet, ndctPath + paymentID + "/status", 200},
	{"payment-status-accp-funds-unavailable.json", http.MethodGet, ndctPath + paymentID + "/status", 200},
	{"payment-ndct-details.json", http.MethodGet, ndctPath + paymentID, 200},
	{"payment-start-authorisation-201.json", http.MethodPost, ndctPath + paymentID + "/authorisations", 201},
	{"signing-basket-create-201.json", http.MethodPost, "/v1/signing-baskets", 201},
	{"signing-basket-get.json", http.MethodGet, basketPath, 200},
	{"agreements.json", http.MethodGet, "/v1/agreements", 200},
	{"sandbox-customers.json", http.MethodGet, "/v1/sandbox/customers", 200},
}

// platformDocuments validates each answer document in a subtest and
// reports whether all of them could be read and checked.
func platformDocuments(t *testing.T, led *ledger) bool {
	spec, err := loadSpec()
	require.NoError(t, err)
	ok := true
	for _, a := range platformAnswers {
		ok = t.Run(a.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "platform", a.file))
			require.NoError(t, err)
			findings, err := spec.checkAnswer(t.Context(), a.method, a.path, a.status, body)
			require.NoError(t, err)
			led.settle(t, findings)
			led.recorded(a.file, findings)
			pspec, err := loadPlatformSpec()
			require.NoError(t, err)
			op, err := pspec.resolve(a.method, a.path)
			require.NoError(t, err)
			pf, err := pspec.checkAnswer(t.Context(), a.method, a.path, a.status, body)
			require.NoError(t, err)
			led.countDescribed(op.name)
			for _, f := range pf {
				t.Errorf("not as docs/openapi.json describes: %s", f)
			}
		}) && ok
	}
	return ok
}
