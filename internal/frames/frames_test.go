package frames_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
)

const sdk = "github.com/tppkit/psd2/"

// depth is what a recording transport saw between the service method and
// itself.
type depth struct{ sdk, total int }

// recorder answers every request with body and records, on each, the
// frames between the RoundTrip and the first frame of fn (the service
// method), both excluded.
type recorder struct {
	fn   string
	body string
	got  []depth
	path []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(2, pcs) // skip runtime.Callers and RoundTrip
	frames := runtime.CallersFrames(pcs[:n])
	var d depth
	var path []string
	for {
		f, more := frames.Next()
		if f.Function == r.fn {
			r.got = append(r.got, d)
			r.path = path
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
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(r.body)), Request: req}, nil
}

// Bounds: the frames of the SDK between a service method and the
// transport for a GET: servicecall.Do and the client's pipeline (Do,
// exchange, send, the exchange's run). Before each service method was one
// declaration on servicecall.Do, a payment status read had 7 (11 frames
// in all: Calls.Status, status and do of payments) and a balances read 7
// (11 in all: getCounted, getCountedBy and send of accounts).
const (
	maxStatusFrames   = 5
	maxBalancesFrames = 5
)

func newClient(t *testing.T, rt http.RoundTripper) *client.Client {
	c, err := client.New(testtpp.BaseURL, testtpp.Credentials(t, "Frames TPP"),
		client.WithHTTPClient(&http.Client{Transport: rt}),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	return c
}

func TestStatusFrames(t *testing.T) {
	rec := &recorder{fn: sdk + "payments.(*Service).Status",
		body: `{"transactionStatus":"ACSC"}`}
	svc, err := payments.New(newClient(t, rec))
	require.NoError(t, err)
	_, err = svc.Status(context.Background(), payments.Ref{Service: payments.ServiceSingle,
		Product: payments.ProductNorwegianDomestic, ID: "p1"},
		client.WithPSU(client.PSU{ID: "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d", IPAddress: "192.0.2.10"}), client.WithTPPSessionID("5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"))
	require.NoError(t, err)
	require.Len(t, rec.got, 1)
	t.Logf("payment status: %d SDK frames, %d in all: %v", rec.got[0].sdk, rec.got[0].total, rec.path)
	require.LessOrEqual(t, rec.got[0].sdk, maxStatusFrames)
}

func TestBalancesFrames(t *testing.T) {
	rec := &recorder{fn: sdk + "accounts.(*Service).Balances", body: `{"balances":[]}`}
	svc, err := accounts.New(newClient(t, rec))
	require.NoError(t, err)
	_, err = svc.Balances(context.Background(), "acc1",
		client.WithPSU(client.PSU{ID: "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d", IPAddress: "192.0.2.10"}), client.WithTPPSessionID("5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"))
	require.NoError(t, err)
	require.Len(t, rec.got, 1)
	t.Logf("balances: %d SDK frames, %d in all: %v", rec.got[0].sdk, rec.got[0].total, rec.path)
	require.LessOrEqual(t, rec.got[0].sdk, maxBalancesFrames)
}
