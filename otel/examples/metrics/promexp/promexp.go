// Package promexp is what the otel module's example programs share: an
// otel Observer whose metrics OpenTelemetry's Prometheus exporter serves
// on /metrics, and the psd2 lines of a scrape.
package promexp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	psd2otel "github.com/tppkit/psd2/otel"
)

// Exporter is an Observer and the /metrics handler of its metrics.
type Exporter struct {
	// Observer records the SDK's metrics (client.WithObserver).
	Observer *psd2otel.Observer
	// Handler serves the metrics in the Prometheus text format.
	Handler http.Handler

	mp *sdkmetric.MeterProvider
}

// New returns an Exporter on a Prometheus registry of its own.
func New() (*Exporter, error) {
	// The Prometheus exporter is a metric reader on a registry of its own.
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(mp))
	if err != nil {
		_ = mp.Shutdown(context.Background())
		return nil, err
	}
	return &Exporter{Observer: obs, Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), mp: mp}, nil
}

// Close shuts the meter provider down.
func (e *Exporter) Close() error { return e.mp.Shutdown(context.Background()) }

// Scrape gets url with hc and writes the psd2 lines of the answer to out
// (histogram buckets left out); it returns the whole scrape, and an error
// when it holds no psd2 metric.
func Scrape(ctx context.Context, hc *http.Client, out io.Writer, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	n := 0
	for line := range strings.SplitSeq(string(body), "\n") {
		if strings.Contains(line, "psd2_") && !strings.Contains(line, "_bucket{") {
			fmt.Fprintln(out, line)
			n++
		}
	}
	if n == 0 {
		return "", fmt.Errorf("no psd2 metric in the scrape of %s (%s)", url, resp.Status)
	}
	return string(body), nil
}
