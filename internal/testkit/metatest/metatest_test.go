package metatest

import (
	"net/http"
	"testing"

	"github.com/tppkit/psd2/client"
)

type result struct {
	client.Answer
	ID string
}

// TestStrip: Strip keeps the document and drops the metadata, leaves the
// value it was given as it was, and refuses a type without an Answer.
func TestStrip(t *testing.T) {
	if Strip[result](nil) != nil {
		t.Fatal("Strip(nil) is not nil")
	}
	var m client.Meta
	r := &result{ID: "x"}
	if got := Strip(r); got == r || got.ID != "x" || got.Meta() != m {
		t.Fatalf("Strip = %+v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Strip of a type without an Answer did not panic")
		}
	}()
	Strip(&struct{ ID string }{})
}

// TestWireCheck: Check fails a Meta whose RequestID is not the id the bank
// saw, and one of a call that sent no request.
func TestWireCheck(t *testing.T) {
	var w Wire
	r, _ := http.NewRequest(http.MethodGet, "https://bank.example/", nil)
	r.Header.Set("X-Request-ID", "r-1")
	w.Saw(r)
	good := client.Meta{Operation: "x.Get", RequestID: "r-1", StatusCode: 200, Attempts: 1}
	for name, tc := range map[string]struct {
		before int
		m      client.Meta
		fails  bool
	}{
		"the id sent":    {0, good, false},
		"another id":     {0, client.Meta{Operation: "x.Get", RequestID: "r-2", StatusCode: 200, Attempts: 1}, true},
		"no request":     {1, good, true},
		"another status": {0, client.Meta{Operation: "x.Get", RequestID: "r-1", StatusCode: 201, Attempts: 1}, true},
	} {
		rec := &recorder{TB: t}
		w.Check(rec, tc.before, "x.Get", 200, tc.m)
		if rec.failed != tc.fails {
			t.Errorf("%s: failed %v, want %v", name, rec.failed, tc.fails)
		}
	}
}

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
