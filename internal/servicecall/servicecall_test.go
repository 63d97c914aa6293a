package servicecall_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

func TestNoClient(t *testing.T) {
	out, resp, err := servicecall.Do[struct{ A int }](context.Background(), nil, client.Operation{Name: "x.Get"}, nil)
	if out != nil || resp != nil || !errors.Is(err, client.ErrNotSent) || !errors.Is(err, client.ErrValidation) || !errors.Is(err, servicecall.ErrNoClient) {
		t.Fatalf("got %v %v %v, want a refusal matching ErrNotSent, ErrValidation and ErrNoClient", out, resp, err)
	}
}
