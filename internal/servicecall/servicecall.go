// Package servicecall is the one call helper of the service packages
// (accounts, payments, basket and the others): each service method
// declares its [client.Operation] and hands it to [Do], which sends it
// through the client and decodes the answer. There are no wrapper chains
// between a service method and [client.Client.Do], and the guard against
// a Service made without a client is written once, here.
package servicecall

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"

	"github.com/tppkit/psd2/client"
)

// ErrNoClient is the cause of the refusal of a call on a Service made
// without a client (its zero value, or a nil *Service).
var ErrNoClient = errors.New("no client (make the Service with its package's New)")

// Do sends op through c and decodes a 2xx answer into a new T, returned
// with the client's [client.Response]. A T of struct{} discards the body.
// A nil c is refused as every refusal before sending is: a
// [*client.NotSentError] holding a [*client.ValidationError] (field
// "client") that wraps [ErrNoClient]; nothing is sent.
func Do[T any](ctx context.Context, c *client.Client, op client.Operation, opts []client.RequestOption) (*T, *client.Response, error) {
	if c == nil {
		return nil, nil, &client.NotSentError{Operation: op.Name, Err: &client.ValidationError{Field: "client", Reason: "no client", Err: ErrNoClient}}
	}
	out := new(T)
	var into any = out
	if _, none := into.(*struct{}); none {
		into = nil
	}
	resp, err := c.Do(ctx, op, into, opts...)
	if err != nil {
		return nil, resp, err
	}
	clipPSUMessage(out)
	return out, resp, nil
}

// clipPSUMessage cuts a top-level string field PSUMessage of *out (the
// answers of payments and baskets carry one) to [client.MaxTextLength]
// characters ([client.ClipText]): the bank's text for the PSU is only
// shown, so a longer one is cut rather than refused.
func clipPSUMessage(out any) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("PSUMessage")
	if f.IsValid() && f.Kind() == reflect.String && f.CanSet() {
		f.SetString(client.ClipText(f.String()))
	}
}

// TrackRetry gives op a BeforeRetry that records that the client sends
// op again after an attempt that may have reached the bank (the client
// asks BeforeRetry only then), and returns the check of it. An
// idempotent call (a DELETE) uses it to tell the bank's refusal of a
// retry, which may follow a first attempt that did what was asked, from
// a refusal of the call itself. It also stops the transport's own
// resend of op, so that the client's loop decides every retry.
func TrackRetry(op *client.Operation) (retried func() bool) {
	var r atomic.Bool
	op.BeforeRetry = func(context.Context, *client.Call) error {
		r.Store(true)
		return nil
	}
	return r.Load
}
