package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracing is River's OpenTelemetry middleware (otelriver), given to each
// engine through riverrefresh.Config.Middleware, on an OpenTelemetry SDK
// tracer provider. A TPP gives the provider of its exporter (OTLP, for
// example); this example counts the spans each process ends, by name,
// and prints the counts at the end of the round.
type tracing struct {
	tp *sdktrace.TracerProvider
	mw *otelriver.Middleware

	mu    sync.Mutex
	spans map[string]int
}

// newTracing returns River's OpenTelemetry middleware on a tracer
// provider whose spans are counted.
func newTracing() *tracing {
	t := &tracing{spans: map[string]int{}}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(t))
	t.mw = otelriver.NewMiddleware(&otelriver.MiddlewareConfig{TracerProvider: t.tp})
	return t
}

// middleware is the engine's Config.Middleware.
func (t *tracing) middleware() []rivertype.Middleware { return []rivertype.Middleware{t.mw} }

// OnStart, OnEnd, Shutdown and ForceFlush make tracing the provider's
// span processor: it counts ended spans by name.
func (t *tracing) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (t *tracing) OnEnd(s sdktrace.ReadOnlySpan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spans[s.Name()]++
}

func (t *tracing) Shutdown(context.Context) error   { return nil }
func (t *tracing) ForceFlush(context.Context) error { return nil }

// counts returns the spans ended so far, by name.
func (t *tracing) counts() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.spans))
	for k, v := range t.spans {
		out[k] = v
	}
	return out
}

// save writes the counts to path (a worker, when it stops).
func (t *tracing) save(path string) error {
	raw, err := json.Marshal(t.counts())
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}

// spanFile is where worker name keeps its span counts.
func spanFile(dir, name string) string { return filepath.Join(dir, name+".spans") }

// printSpans prints the spans River's OpenTelemetry middleware made: the
// scheduler's inserts and each worker's jobs (none for a worker killed
// before it could write them).
func printSpans(out io.Writer, sched *tracing, dir string, procs int) {
	work := make([]int, procs)
	for i := range work {
		raw, err := os.ReadFile(spanFile(dir, workerName(i)))
		if err != nil {
			work[i] = -1
			continue
		}
		var m map[string]int
		if json.Unmarshal(raw, &m) == nil {
			work[i] = m["river.work"]
		}
	}
	show := func(n int) string {
		if n < 0 {
			return "none kept"
		}
		return fmt.Sprint(n)
	}
	var per []string
	for i, n := range work {
		per = append(per, workerName(i)+" "+show(n))
	}
	fmt.Fprintf(out, "River's OpenTelemetry middleware (otelriver): scheduler %d river.insert_many spans; river.work spans: %s\n",
		sched.counts()["river.insert_many"], strings.Join(per, ", "))
}
