package refresh_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
)

// bank is an emulator with seeded customers and an SDK client on it, all
// on one settable clock.
type bank struct {
	srv    *emulator.Server
	clock  *testtpp.Clock
	creds  *signing.Credentials
	client *client.Client
	svc    *accounts.Service
	seeded emulator.SeedResult
}

// fastRetries keeps the client's retries of 5xx short in tests.
var fastRetries = client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second}

// newBank starts an emulator on a clock at now, seeds data for a new TPP
// and returns a client for that TPP (with opts after the defaults).
func newBank(t testing.TB, data emulator.SeedData, opts ...client.Option) *bank {
	t.Helper()
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(t)), emulator.WithClock(clock.Now),
		emulator.WithLimits(refreshbench.Limits))
	t.Cleanup(srv.Close)
	creds, err := srv.NewTPP("Refresh test")
	require.NoError(t, err)
	seeded, err := srv.Control().Seed(t.Context(), creds.Certificate, data)
	require.NoError(t, err)
	opts = append([]client.Option{client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(fastRetries)}, opts...)
	c, err := client.New(srv.URL, creds, opts...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return &bank{srv: srv, clock: clock, creds: creds, client: c, svc: svc, seeded: seeded}
}

// refresher returns a Refresher on b's service and clock.
func (b *bank) refresher(t testing.TB, opts ...refresh.Option) *refresh.Refresher {
	t.Helper()
	r, err := refresh.New(b.svc, opts...)
	require.NoError(t, err)
	return r
}

// jobsOf yields a job per account of the seeded customers (cards too).
func jobsOf(t testing.TB, b *bank) []refresh.Job {
	t.Helper()
	var jobs []refresh.Job
	for _, cu := range b.seeded.Customers {
		s := refreshbench.Remembered(t, cu)
		for _, id := range s.AccountIDs {
			jobs = append(jobs, newJob(t, s, id, false))
		}
		for _, id := range s.CardAccountIDs {
			jobs = append(jobs, newJob(t, s, id, true))
		}
	}
	return jobs
}

// collect runs jobs and returns the results (failing on a run error).
func collect(t testing.TB, r *refresh.Refresher, jobs []refresh.Job) []refresh.Result {
	t.Helper()
	var out []refresh.Result
	for res, err := range r.Run(t.Context(), slices.Values(jobs)) {
		require.NoError(t, err)
		out = append(out, res)
	}
	require.Len(t, out, len(jobs))
	return out
}

// newJob is refresh.NewJob, failing the test on an error.
func newJob(t testing.TB, s *sca.Session, id string, card bool) refresh.Job {
	t.Helper()
	j, err := refresh.NewJob(s, id, card)
	require.NoError(t, err)
	return j
}

// jobWith returns j changed by set.
func jobWith(j refresh.Job, set func(*refresh.Job)) refresh.Job {
	set(&j)
	return j
}
