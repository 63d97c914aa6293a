// Package metatest helps the service packages' tests with the response
// metadata a typed result carries (client.Answer): compare a result with
// the document a test expects without its metadata, which holds the
// X-Request-ID the client chose.
package metatest

import (
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/tppkit/psd2/client"
)

// answerType is the type of the embedded client.Answer.
var answerType = reflect.TypeFor[client.Answer]()

// Strip returns a copy of *v without its response metadata: its embedded
// client.Answer set to the zero Answer. A nil v is returned as it is; a T
// that embeds no client.Answer panics, since a test that strips what is
// not there is wrong.
func Strip[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	rv := reflect.ValueOf(&c).Elem()
	for i := range rv.NumField() {
		if f := rv.Type().Field(i); f.Anonymous && f.Type == answerType {
			rv.Field(i).Set(reflect.Zero(answerType))
			return &c
		}
	}
	panic("metatest: " + rv.Type().String() + " embeds no client.Answer")
}

// Wire records the X-Request-ID of every request that reaches a mock
// bank, as it was sent: a test compares a result's metadata with it.
type Wire struct {
	mu  sync.Mutex
	ids []string
}

// Saw records the X-Request-ID of r.
func (w *Wire) Saw(r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ids = append(w.ids, r.Header.Get("X-Request-ID"))
}

// Sent returns the X-Request-IDs recorded so far, in order.
func (w *Wire) Sent() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.ids)
}

// Check asserts that m is the metadata of one successful call of
// operation op answered with status: that the bank saw exactly one new
// request since the sent ids before (len(before) of them), and that
// m.RequestID is its X-Request-ID, in one attempt.
func (w *Wire) Check(t testing.TB, before int, op string, status int, m client.Meta) {
	t.Helper()
	ids := w.Sent()
	if len(ids) != before+1 {
		t.Errorf("%s: the bank saw %d requests, want 1", op, len(ids)-before)
		return
	}
	sent := ids[before]
	if sent == "" || m.RequestID != sent || m.Operation != op || m.StatusCode != status || m.Attempts != 1 {
		t.Errorf("%s: metadata %+v, want the X-Request-ID %q sent on the wire, status %d, 1 attempt", op, m, sent, status)
	}
}

// Transport returns a RoundTripper that records the X-Request-ID of every
// request it hands to next: how a test of a real bank (the emulator)
// sees what went on the wire.
func (w *Wire) Transport(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		w.Saw(r)
		return next.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
