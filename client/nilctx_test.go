package client

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
)

// A nil context, or a nil *Client, is a bad argument: the call is refused
// before sending with a *ValidationError naming it, never a panic, with
// and without an observer.
func TestNilContextIsRefusedNotPanicked(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { sent.Add(1); w.Write([]byte(`{}`)) })
	op := Operation{Name: "x.Get", Method: http.MethodGet, Path: "/v1/accounts"}
	check := func(t *testing.T, field string, do func() error) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panicked: %v", r)
				}
			}()
			err = do()
		}()
		var ve *ValidationError
		if !errors.Is(err, ErrNotSent) || !errors.As(err, &ve) || ve.Field != field {
			t.Fatalf("err = %v, want a refusal naming %s", err, field)
		}
	}
	var nilCtx context.Context // the input under test
	t.Run("nil context", func(t *testing.T) {
		c := newTestClient(t, b.URL)
		check(t, "ctx", func() error { _, err := c.Do(nilCtx, op, nil); return err })
	})
	t.Run("nil context, observed", func(t *testing.T) {
		c := newTestClient(t, b.URL, WithObserver(nopObserver{}))
		check(t, "ctx", func() error { _, err := c.Do(nilCtx, op, nil); return err })
	})
	t.Run("nil client", func(t *testing.T) {
		var c *Client
		check(t, "client", func() error { _, err := c.Do(context.Background(), op, nil); return err })
	})
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d requests reached the bank", n)
	}
}
