package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// exchange is one HTTP attempt the SDK's client made, as its logger reports
// it (method, path, status, duration; never headers or bodies).
type exchange struct {
	method string
	path   string
	status int
}

// recorder is a slog.Handler that keeps the client's "psd2 request" log
// records, so that each step can show the HTTP status of what it sent
// without the example touching the request pipeline.
type recorder struct {
	mu   sync.Mutex
	seen []exchange
}

var _ slog.Handler = (*recorder)(nil)

func (r *recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler           { return r }
func (r *recorder) WithGroup(string) slog.Handler                { return r }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "psd2 request" {
		return nil
	}
	var x exchange
	rec.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "method":
			x.method = a.Value.String()
		case "path":
			x.path = a.Value.String()
		case "status":
			x.status = int(a.Value.Int64())
		}
		return true
	})
	r.mu.Lock()
	r.seen = append(r.seen, x)
	r.mu.Unlock()
	return nil
}

// since returns the exchanges recorded after the first n.
func (r *recorder) since(n int) []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.seen[n:]...)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// errSkipped marks a step that cannot run in this mode (the batch of a real
// bank runs on its own schedule); it is reported, not failed.
var errSkipped = errors.New("skipped")

// result is what the walk-through reports at the end.
type result struct {
	Steps   []stepResult
	Passed  int
	Skipped int
	Failed  string // name of the failing step, "" when none failed
}

// stepResult is one printed line.
type stepResult struct {
	Name   string
	OK     bool
	Status int // HTTP status of the step's last request, 0 without one
	Detail string
}

// reporter prints one aligned line per step: a mark, the HTTP status, the
// method and path of the step's last request (ids masked), the time the step
// took, and what it showed.
type reporter struct {
	out      io.Writer
	rec      *recorder
	apiPath  string // the base URL's path ("/api"), left out of printed paths
	res      result
	failedAt error
}

func newReporter(out io.Writer) *reporter {
	return &reporter{out: out, rec: &recorder{}}
}

// logger is the logger to give the SDK's client.
func (r *reporter) logger() *slog.Logger { return slog.New(r.rec) }

// step runs fn as the step name and prints its line. fn returns the text to
// show. A step after a failed one does not run: the walk-through stops at
// the first failure, and step returns that failure from then on.
func (r *reporter) step(name string, fn func() (string, error)) error {
	if r.failedAt != nil {
		return r.failedAt
	}
	before := r.rec.count()
	start := time.Now()
	detail, err := fn()
	took := time.Since(start)
	xs := r.rec.since(before)

	status, request := "---", "["+name+"]"
	var code int
	if len(xs) > 0 {
		last := xs[len(xs)-1]
		code = last.status
		if code != 0 {
			status = fmt.Sprint(code)
		}
		request = last.method + " " + maskPath(strings.TrimPrefix(last.path, r.apiPath))
		if len(xs) > 1 {
			request += fmt.Sprintf(" ×%d", len(xs))
		}
	}
	mark := "✓"
	switch {
	case errors.Is(err, errSkipped):
		mark = "–"
		r.res.Skipped++
		detail = strings.TrimSpace(detail + " (skipped)")
		err = nil
	case err != nil:
		mark = "✗"
		detail = name + " failed: " + err.Error()
		r.res.Failed = name
		r.failedAt = fmt.Errorf("step %q failed: %w", name, err)
	default:
		r.res.Passed++
	}
	r.res.Steps = append(r.res.Steps, stepResult{Name: name, OK: err == nil, Status: code, Detail: detail})
	fmt.Fprintf(r.out, "%s %-3s %-74s %6s  %s\n", mark, status, request, roundDuration(took), detail)
	return r.failedAt
}

// note prints a line that is not a step (where to open a link, ...).
func (r *reporter) note(format string, args ...any) {
	fmt.Fprintf(r.out, "  "+format+"\n", args...)
}

// summary prints the closing line and returns the run's outcome.
func (r *reporter) summary() error {
	n := len(r.res.Steps)
	switch {
	case r.failedAt != nil:
		fmt.Fprintf(r.out, "%d steps, %d passed, failed at %q\n", n, r.res.Passed, r.res.Failed)
		return r.failedAt
	case r.res.Skipped > 0:
		fmt.Fprintf(r.out, "%d steps, %d passed, %d skipped\n", n, r.res.Passed, r.res.Skipped)
	default:
		fmt.Fprintf(r.out, "%d steps, all passed\n", n)
	}
	return nil
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// maskPath shortens the platform's resource ids (enc!!<base64url>) in a
// path, so that lines stay short and no id is printed in full.
func maskPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = maskID(s)
	}
	return strings.Join(segs, "/")
}

// maskID keeps the first characters of a long id.
func maskID(id string) string {
	const keep = 9
	if len(id) <= 16 || !strings.ContainsAny(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ!%") {
		return id
	}
	if strings.HasPrefix(id, "enc%21%21") {
		id = "enc!!" + strings.TrimPrefix(id, "enc%21%21")
	}
	return id[:keep] + "…"
}

// maskCustomer hides the middle of a customer number (in the sandbox it
// stands in for a national identity number).
func maskCustomer(n string) string {
	if len(n) < 8 {
		return strings.Repeat("•", len(n))
	}
	return n[:4] + strings.Repeat("•", len(n)-7) + n[len(n)-3:]
}
