package tpp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/tpp"
)

// A Service made without New (nil or zero) refuses every call before
// sending, as any other pre-send refusal: ErrNotSent and ErrValidation
// with the field "client".
func TestServiceWithoutClientRefuses(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]*tpp.Service{"nil": nil, "zero": {}} {
		_, err1 := s.Contact(ctx)
		_, err2 := s.SetContact(ctx, "contact@tpp.example")
		for _, err := range []error{err1, err2} {
			var ve *client.ValidationError
			if !errors.Is(err, client.ErrNotSent) || !errors.Is(err, client.ErrValidation) || !errors.Is(err, servicecall.ErrNoClient) ||
				!errors.As(err, &ve) || ve.Field != "client" {
				t.Errorf("%s Service: %v, want a not-sent validation refusal of the field client", name, err)
			}
		}
	}
}
