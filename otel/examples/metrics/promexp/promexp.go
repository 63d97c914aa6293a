// Package promexp is what the otel module's example programs share: an
// otel Observer whose metrics OpenTelemetry's Prometheus exporter serves
// on /metrics, and the psd2 lines of a scrape.
package promexp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
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

// Lines returns the psd2 samples of a scrape (histogram buckets left
// out) in a form that is the same at every run of a script: the port of
// a loopback address is PORT, a certificate's serial is SERIAL, and the
// values that depend on the machine's speed or the day (durations, days
// left) are dropped. Counts, gauges and the script's own values stay.
func Lines(scrape string) []string {
	var out []string
	for line := range strings.SplitSeq(scrape, "\n") {
		if !strings.HasPrefix(line, "psd2_") || strings.Contains(line, "_bucket{") {
			continue
		}
		line = loopbackPort.ReplaceAllString(line, "127.0.0.1:PORT")
		line = certSerial.ReplaceAllString(line, `psd2_certificate_serial="SERIAL"`)
		name, _, _ := strings.Cut(line, "{")
		if i := strings.LastIndexByte(line, ' '); i > 0 && varying[strings.Fields(name)[0]] {
			line = line[:i] + " _"
		}
		out = append(out, line)
	}
	return out
}

var (
	loopbackPort = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	certSerial   = regexp.MustCompile(`psd2_certificate_serial="[0-9A-F]+"`)
	// varying are the samples whose values change from run to run.
	varying = map[string]bool{
		"psd2_client_request_duration_seconds_sum":   true,
		"psd2_client_operation_duration_seconds_sum": true,
		"psd2_certificate_days_left":                 true,
		"psd2_bank_latency_seconds":                  true,
	}
)

// Help returns the HELP text of each psd2 metric of a scrape, by the
// metric's name in the scrape.
func Help(scrape string) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(scrape, "\n") {
		if rest, ok := strings.CutPrefix(line, "# HELP psd2_"); ok {
			name, text, _ := strings.Cut(rest, " ")
			out["psd2_"+name] = text
		}
	}
	return out
}

// TextBlocks returns the ```text blocks of a Markdown document, in order.
func TextBlocks(md string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(md, "```text\n")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "```")
		out = append(out, block)
		md = after
	}
}
