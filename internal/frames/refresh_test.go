package frames_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// maxRefreshFrames bounds the SDK frames between a refresh job
// (refresh.Refresher.Refresh) and the transport, for its balances call
// and each transactions page: the accounts iterator (its sequence and
// page closures, inlined into Refresh), the service method and the five
// of the pipeline. Before refresh only orchestrated there were 12: the
// job went through refreshOne, refreshJob, call, transactions, readPages
// and a closure of its own before reaching accounts.
const maxRefreshFrames = 8

// bankStub answers balances, and transactions in two pages (the first
// with a next link), with a booked and a pending entry each.
type bankStub struct {
	mu    sync.Mutex
	entry string     // the function whose frames are counted
	depth []depth    // per request
	paths [][]string // per request: the SDK functions below entry
}

func (b *bankStub) RoundTrip(req *http.Request) (*http.Response, error) {
	pcs := make([]uintptr, 256)
	n := runtime.Callers(2, pcs) // skip runtime.Callers and RoundTrip
	frames := runtime.CallersFrames(pcs[:n])
	var d depth
	var path []string
	for {
		f, more := frames.Next()
		if f.Function == b.entry {
			b.mu.Lock()
			b.depth, b.paths = append(b.depth, d), append(b.paths, path)
			b.mu.Unlock()
			break
		}
		d.total++
		if strings.HasPrefix(f.Function, sdk) {
			d.sdk++
			path = append(path, strings.TrimPrefix(f.Function, sdk))
		}
		if !more {
			break
		}
	}
	body := `{"balances":[{"balanceType":"interimAvailable","balanceAmount":{"amount":"100.00","currency":"NOK"}}]}`
	if strings.HasSuffix(req.URL.Path, "/transactions") {
		next := `,"_links":{"next":{"href":"/v1/accounts/acc1/transactions?page=2"}}`
		id := "t1"
		if req.URL.Query().Get("page") == "2" {
			next, id = "", "t2"
		}
		body = `{"transactions":{"booked":[{"transactionId":"` + id + `","bookingDate":"2026-01-05","transactionAmount":{"amount":"-10.00","currency":"NOK"},"remittanceInformationUnstructured":"Kaffe"}],` +
			`"pending":[{"bookingDate":"2026-01-06","transactionAmount":{"amount":"-5.00","currency":"NOK"}}]` + next + `}}`
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// refreshOnce refreshes one account (balances and two pages of
// transactions) with a transaction sync, through rt, and returns the
// result. It is also the trip internal/frames/testdata/trip.py follows
// under gdb.
func refreshOnce(t *testing.T, rt http.RoundTripper) refresh.Result {
	t.Helper()
	ctx := context.Background()
	c := newClient(t, rt)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	sy, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	_, err = sy.Link(ctx, "owner-1", []accounts.Account{{ResourceID: "acc1", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	r, err := refresh.New(svc, refresh.WithSync(sy))
	require.NoError(t, err)
	s, err := (&sca.Session{PSUID: "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d", TPPSessionID: "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b",
		Context: client.Private, SCAAt: time.Now()}).WithAccounts([]string{"acc1"}, nil)
	require.NoError(t, err)
	j, err := refresh.NewJob(s, "acc1", false)
	require.NoError(t, err)
	res := r.Refresh(ctx, j)
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	return res
}

func TestRefreshFrames(t *testing.T) {
	rec := &bankStub{entry: sdk + "refresh.(*Refresher).Refresh"}
	res := refreshOnce(t, rec)
	require.Equal(t, 3, res.Calls)
	require.Len(t, res.Sync.Added, 3, "two booked entries and the pending one")
	require.Len(t, rec.depth, 3)
	for i, d := range rec.depth {
		t.Logf("request %d: %d SDK frames, %d in all: %v", i, d.sdk, d.total, rec.paths[i])
		require.LessOrEqual(t, d.sdk, maxRefreshFrames)
	}
}
