package sandbox

import (
	"context"
	"errors"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// A Service made without New (nil or zero) refuses every call before
// sending, as any other pre-send refusal: ErrNotSent and ErrValidation
// with the field "client".
func TestServiceWithoutClientRefuses(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]*Service{"nil": nil, "zero": {}} {
		_, errCustomers := s.Customers(ctx, nil)
		_, errCustomer := s.Customer(ctx, "c1")
		_, errAccount := s.CreateAccount(ctx, &NewAccount{CustomerID: "c1", Currency: "NOK"})
		errs := map[string]error{
			"Initialize":     s.Initialize(ctx),
			"Customers":      errCustomers,
			"Customer":       errCustomer,
			"DeleteCustomer": s.DeleteCustomer(ctx, "c1"),
			"CreateAccount":  errAccount,
		}
		for call, err := range errs {
			var ve *client.ValidationError
			if !errors.Is(err, client.ErrNotSent) || !errors.Is(err, client.ErrValidation) || !errors.Is(err, servicecall.ErrNoClient) ||
				!errors.As(err, &ve) || ve.Field != "client" {
				t.Errorf("%s Service %s: %v, want a not-sent validation refusal of the field client", name, call, err)
			}
		}
	}
}
