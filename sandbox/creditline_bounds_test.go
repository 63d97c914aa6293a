package sandbox

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A created account's creditLine is the sandbox's value, and bounded as
// every value of an answer is: one that is not a number, or whose
// exponent is too large to print in full (1e2000000000, twelve bytes that
// would take gigabytes and minutes to write out), does not fail the
// answer of an account the sandbox created, and the account writes back
// to JSON at once. A readable creditLine is kept.
func TestCreatedAccountCreditLineBounded(t *testing.T) {
	t.Parallel()
	const id = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	for _, c := range []struct {
		creditLine string
		kept       string // "" when dropped
	}{
		{`1e2000000000`, ""},
		{`"1e-2000000000"`, ""},
		{`"n/a"`, ""},
		{`{"amount":"1"}`, ""},
		{`5000`, "5000"},
		{`"2500.50"`, "2500.5"},
	} {
		t.Run(c.creditLine, func(t *testing.T) {
			t.Parallel()
			body := `{"resourceId":"` + id + `","currency":"NOK","accountName":"Brukskonto","creditLine":` + c.creditLine + `}`
			svc, _, reqs := mockBank(t, http.StatusCreated, body)
			acc, err := svc.CreateAccount(t.Context(), &NewAccount{CustomerNumber: "15867512345", Currency: "NOK"})
			require.NoError(t, err, "the account was created")
			assert.Len(t, *reqs, 1)
			assert.Equal(t, id, acc.ResourceID)
			assert.Equal(t, "Brukskonto", acc.AccountName)
			if c.kept == "" {
				assert.Nil(t, acc.CreditLine)
			} else if assert.NotNil(t, acc.CreditLine) {
				assert.Equal(t, c.kept, acc.CreditLine.String())
			}

			done := make(chan error, 1)
			go func() {
				_, err := json.Marshal(acc)
				done <- err
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(5 * time.Second):
				t.Fatal("the account's JSON took longer than 5 s")
			}
		})
	}
}

// A created card account's creditLimit and balances with an amount of an
// extreme exponent neither fail the answer nor hold its JSON or its
// printed form.
func TestCreatedCardAccountExtremeAmountsBounded(t *testing.T) {
	t.Parallel()
	const id = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	huge := `{"amount":"1e2000000000","currency":"NOK"}`
	body := `{"resourceId":"` + id + `","currency":"NOK","creditLimit":` + huge +
		`,"balances":[{"balanceType":"forwardAvailable","balanceAmount":` + huge + `}]}`
	svc, _, _ := mockBank(t, http.StatusCreated, body)
	card, err := svc.CreateCardAccount(t.Context(), &NewCardAccount{CustomerNumber: "15867512345", Currency: "NOK"})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = json.Marshal(card)
		_ = card.String()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the card account's JSON or printed form took longer than 5 s")
	}
}
