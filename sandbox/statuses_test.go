package sandbox

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
)

// Each mock-data operation succeeds only with the status docs/interface.md
// section 10 "Paths" names for it: the listings and reads 200, the
// creates 201, a customer's deletion 204. Another 2xx is a
// *client.UnexpectedStatusError, never a success with an empty or
// half-read answer.
func TestMockDataCallsAcceptOnlyTheirNamedStatus(t *testing.T) {
	t.Parallel()
	const id = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	customer := firstCustomer(t)
	account := `{"resourceId":"` + id + `","currency":"NOK"}`
	agreement := `{"id":"f062942c-9ce8-4742-b0ef-39f083f1738b","name":"Fjordlys","engagements":[],"_links":{}}`
	calls := []struct {
		name  string
		wrong []int // 2xx statuses the interface does not name
		body  string
		call  func(*Service, *testing.T) error
	}{
		{"customers", []int{201, 202, 204}, "[" + customer + "]", func(s *Service, t *testing.T) error {
			_, err := s.Customers(t.Context(), nil)
			return err
		}},
		{"customer", []int{201, 202, 204}, customer, func(s *Service, t *testing.T) error {
			_, err := s.Customer(t.Context(), id)
			return err
		}},
		{"create customer", []int{200, 202, 204}, customer, func(s *Service, t *testing.T) error {
			_, err := s.CreateCustomer(t.Context(), &NewCustomer{CustomerNumber: "15867512345", CustomerType: client.Private, CustomerName: "Kari Testperson"})
			return err
		}},
		{"delete customer", []int{200, 201, 202}, `{}`, func(s *Service, t *testing.T) error {
			return s.DeleteCustomer(t.Context(), id)
		}},
		{"create account", []int{200, 202, 204}, account, func(s *Service, t *testing.T) error {
			_, err := s.CreateAccount(t.Context(), &NewAccount{CustomerNumber: "15867512345", Currency: "NOK"})
			return err
		}},
		{"create card account", []int{200, 202, 204}, account, func(s *Service, t *testing.T) error {
			_, err := s.CreateCardAccount(t.Context(), &NewCardAccount{CustomerNumber: "15867512345", Currency: "NOK"})
			return err
		}},
		{"create transactions", []int{200, 202, 204}, `[]`, func(s *Service, t *testing.T) error {
			return s.CreateTransactions(t.Context(), id, []Transaction{{TransactionAmount: Amount{Amount: "1", Currency: "NOK"}}})
		}},
		{"create card transactions", []int{200, 202, 204}, `[]`, func(s *Service, t *testing.T) error {
			return s.CreateCardTransactions(t.Context(), id, []CardTransaction{{TransactionAmount: Amount{Amount: "-1", Currency: "NOK"}}})
		}},
		{"create agreement", []int{200, 202, 204}, agreement, func(s *Service, t *testing.T) error {
			_, err := s.CreateAgreement(t.Context(), &NewAgreement{Owner: "912345688", Name: "Fjordlys"})
			return err
		}},
	}
	for _, c := range calls {
		for _, status := range c.wrong {
			t.Run(c.name+" "+http.StatusText(status), func(t *testing.T) {
				t.Parallel()
				svc, _, reqs := mockBank(t, status, c.body)
				err := c.call(svc, t)
				require.Error(t, err, "a %d is not the status the interface names", status)
				assert.ErrorIs(t, err, client.ErrUnexpectedStatus)
				var ue *client.UnexpectedStatusError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, status, ue.StatusCode)
				assert.Len(t, *reqs, 1, "sent once")
			})
		}
	}
}
