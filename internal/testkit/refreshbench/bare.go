package refreshbench

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/signing"
)

// bare sends the requests of a refresh the way a TPP with no SDK at all
// would: the same method, path, query and headers as the SDK's, a fresh
// X-Request-ID, Date and Signature for each, the answer read and dropped.
// No budget, no pipeline, no decoding. Its rate against the floor is the
// most that any client of the emulator reaches on these cores (the
// emulator's own work, HTTP and TLS included); the SDK's ratio over it is
// what the SDK itself costs.
type bare struct {
	hc      *http.Client
	signer  *signing.Signer
	certB64 string
	now     func() time.Time
	workers int
	sample  refresh.Job     // the job the requests were captured from
	reqs    []*http.Request // the SDK's requests for sample
}

// newBare captures the SDK's requests for sample, one refresh of it with
// a client of its own (its own in-memory budget) on hc's transport.
func newBare(ctx context.Context, base string, hc *http.Client, creds *signing.Credentials, now func() time.Time, sample refresh.Job, workers int) (*bare, error) {
	rec := &recorder{next: hc.Transport}
	c, err := client.New(base, creds, client.WithHTTPClient(&http.Client{Transport: rec}), client.WithClock(now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	if err != nil {
		return nil, err
	}
	svc, err := accounts.New(c)
	if err != nil {
		return nil, err
	}
	r, err := refresh.New(svc, refresh.WithWorkers(1))
	if err != nil {
		return nil, err
	}
	for got, err := range r.Run(ctx, func(yield func(refresh.Job) bool) { yield(sample) }) {
		if err != nil {
			return nil, err
		}
		if got.Outcome != refresh.Done {
			return nil, fmt.Errorf("capture: %v: %w", got, got.Err)
		}
	}
	if len(rec.reqs) == 0 {
		return nil, fmt.Errorf("capture: no request seen")
	}
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0) // the refresher's default
	}
	return &bare{hc: hc, signer: signer, certB64: base64.StdEncoding.EncodeToString(creds.Certificate.Raw),
		now: now, workers: workers, sample: sample, reqs: rec.reqs}, nil
}

// recorder keeps a copy of every request it passes on.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// run sends every job's requests on b.workers goroutines and returns the
// number of requests.
func (b *bare) run(ctx context.Context, jobs []refresh.Job) (int, error) {
	next := make(chan refresh.Job)
	errs := make(chan error, b.workers)
	var wg sync.WaitGroup
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				for _, tmpl := range b.reqs {
					if err := b.send(ctx, tmpl, j); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	var err error
loop:
	for _, j := range jobs {
		select {
		case next <- j:
		case err = <-errs:
			break loop
		}
	}
	close(next)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return len(jobs) * len(b.reqs), err
}

// send sends tmpl, the sample's request, for job j.
func (b *bare) send(ctx context.Context, tmpl *http.Request, j refresh.Job) error {
	u := *tmpl.URL
	u.Path = strings.Replace(u.Path, "/"+b.sample.AccountID()+"/", "/"+j.AccountID()+"/", 1)
	u.RawPath = ""
	req, err := http.NewRequestWithContext(ctx, tmpl.Method, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header = tmpl.Header.Clone()
	for name, v := range map[string]string{"PSU-ID": j.Session().PSUID, "TPP-Session-ID": j.Session().TPPSessionID} {
		if req.Header.Get(name) != "" {
			req.Header.Set(name, v)
		}
	}
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", b.now().UTC().Format(http.TimeFormat))
	req.Header.Set("Tpp-Signature-Certificate", b.certB64)
	if err := b.signer.Sign(req); err != nil {
		return err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("bare %s: status %d", u.Path, resp.StatusCode)
	}
	return nil
}
