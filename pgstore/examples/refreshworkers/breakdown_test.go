package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/store"
)

// The counting front counts, per phase, the requests, the 429s and each
// account's balances answered (200), and starts anew at each take.
func TestFrontCounts(t *testing.T) {
	f := &front{balances: map[string]int{}, next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "refused") {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte("{}"))
	})}
	for _, p := range []string{"/api/v1/accounts/a1/balances", "/api/v1/accounts/a1/balances", "/api/v1/accounts/a2/balances",
		"/api/v1/accounts/a2/transactions", "/api/v1/card-accounts/a1/balances", "/api/v1/accounts/refused/balances"} {
		f.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	c := f.take()
	// a1 twice; a2 and the card account a1 once; "refused" not answered.
	if c.Requests != 6 || c.Refused != 1 || c.Once != 2 || c.More != 1 {
		t.Errorf("counts %+v, want 6 requests, 1 refused, 2 once, 1 more", c)
	}
	if c := f.take(); c.Requests != 0 || c.Once != 0 || c.More != 0 || c.Refused != 0 {
		t.Errorf("after a take: %+v, want none", c)
	}
}

// A call counts on its job's clock when its context has one; else, on a
// meter that has the accounts' clocks, on the clock of the account its
// path or its store key names; else nowhere.
func TestMeterAttribution(t *testing.T) {
	if got, want := accountOfPath("/api/v1/accounts/a1/transactions"), budget.Key("a1", false); got != want {
		t.Errorf("accountOfPath = %q, want %q", got, want)
	}
	if got, want := accountOfPath("/api/v1/card-accounts/k1/balances"), budget.Key("k1", true); got != want {
		t.Errorf("card: accountOfPath = %q, want %q", got, want)
	}
	if got := accountOfPath("/api/v1/consents"); got != "" {
		t.Errorf("no account: %q", got)
	}
	a1 := &jobClock{}
	m := &meter{byAccount: map[string]*jobClock{budget.Key("a1", false): a1}}
	st := &timedStore{Store: store.NewMemoryStore(), m: m}
	ctx := context.Background()
	if err := st.Put(ctx, "accounts/budget/x/"+budget.Key("a1", false), []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if a1.store.Load() <= 0 {
		t.Error("a store call naming a1 did not count on a1's clock")
	}
	jctx, jc := withJobClock(ctx)
	if _, err := st.Get(jctx, "sca/session/user-1"); err == nil {
		t.Error("Get of a key never stored: no error")
	}
	if jc.store.Load() <= 0 {
		t.Error("a store call in a job's context did not count on its clock")
	}
	if m.clock(ctx, func() string { return "unknown" }) != nil || (&meter{}).clock(ctx, func() string { return "" }) != nil {
		t.Error("a call naming no known account counted")
	}
	tr := &timedTransport{m: &meter{}, next: roundTripper(func(*http.Request) (*http.Response, error) {
		time.Sleep(time.Millisecond)
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})}
	req := httptest.NewRequestWithContext(jctx, http.MethodGet, "https://bank/api/v1/accounts/a1/balances", nil)
	if _, err := tr.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if jc.bank.Load() < int64(time.Millisecond) {
		t.Errorf("bank time %v, want at least the 1ms the request took", time.Duration(jc.bank.Load()))
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The breakdown's quantiles are over the jobs that have the component,
// by nearest rank; other is the job less the bank and the store.
func TestQuantiles(t *testing.T) {
	var jobs []jobTiming
	for i := 1; i <= 10; i++ {
		jobs = append(jobs, jobTiming{Job: time.Duration(i) * 10, Bank: time.Duration(i), Store: time.Duration(i), Gap: -1, Done: -1})
	}
	jobs[0].Gap = 7
	p50, p90, n := quantiles(jobs, components[0].of)
	if p50 != 50 || p90 != 90 || n != 10 {
		t.Errorf("job: p50 %v p90 %v n %d, want 50, 90, 10", p50, p90, n)
	}
	if p50, _, n := quantiles(jobs, components[3].of); p50 != 40 || n != 10 {
		t.Errorf("other: p50 %v n %d, want 40 (50 - 5 - 5), 10", p50, n)
	}
	if p50, p90, n := quantiles(jobs, components[4].of); p50 != 7 || p90 != 7 || n != 1 {
		t.Errorf("fetch wait: %v %v %d, want the one job that has it", p50, p90, n)
	}
	if _, _, n := quantiles(jobs, components[5].of); n != 0 {
		t.Errorf("completion: %d jobs, want none", n)
	}
}
