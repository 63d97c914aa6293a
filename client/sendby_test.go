package client

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// A create whose credentials (or signature: a remote KMS) hang is never
// handed to the transport after LongestCall has passed since its hook
// (the journal's intent, whose entry is in flight that long from then):
// by that time another replica may have resolved the entry and sent the
// create again. The hung source is given a context that ends then, and a
// source that ignores it and answers late gets the create refused, not
// sent: ErrNotSent. Whatever the caller's context: none with the call
// timeout off, or a deadline far beyond the entry's in-flight bound.
func TestCreateNotSentAfterLongestCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ctx  func(t *testing.T) context.Context
		opts []Option
	}{
		{"no deadline, no call timeout", func(t *testing.T) context.Context { return t.Context() }, []Option{WithCallTimeout(0)}},
		{"a far deadline", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
			t.Cleanup(cancel)
			return ctx
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"paymentId":"p1"}`))
			})
			creds := testCreds(t, 0)
			var intent atomic.Pointer[time.Time]
			var c *Client
			src := func(ctx context.Context) (*signing.Credentials, error) {
				in := intent.Load()
				if in == nil { // New's own look-up, outside any call
					return creds, nil
				}
				dl, ok := ctx.Deadline()
				// From the hook's return (the journal allows for its own
				// store writes before it): a little slack.
				if !ok || dl.After(in.Add(c.LongestCall()+50*time.Millisecond)) {
					t.Errorf("credentials asked for under a context that outlasts the create's in-flight bound (deadline %v, set: %v)", dl.Sub(*in), ok)
					return creds, nil
				}
				<-ctx.Done() // hung, and answers when it is too late
				return creds, nil
			}
			c = newTestClient(t, b.URL, append(tc.opts, WithCredentialsSource(src))...)
			c.longest = 200 * time.Millisecond
			op := createOp
			var res Result
			op.Hook = func(context.Context, *Call) (func(Result), error) {
				now := time.Now()
				intent.Store(&now)
				return func(r Result) { res = r }, nil
			}
			_, err := c.Do(tc.ctx(t), op, nil)
			require.ErrorIs(t, err, ErrNotSent)
			assert.False(t, res.Sent)
			assert.EqualValues(t, 0, b.count.Load(), "the create left after its in-flight bound")
		})
	}
}
