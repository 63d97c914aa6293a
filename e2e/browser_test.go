package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/webapp/site"
)

// findChromium returns the browser to drive, "" when there is none.
func findChromium() string {
	if p := "/usr/bin/chromium"; isExecutable(p) {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// chromium returns the browser's path, or skips the test (fails it when
// CI=true: CI installs Chromium, so a missing one is a broken setup).
func chromium(t *testing.T) string {
	t.Helper()
	p := findChromium()
	if p == "" {
		msg := "no Chromium: looked for /usr/bin/chromium and chromium, chromium-browser, google-chrome on PATH (Debian: apt-get install chromium)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

var (
	artifactsOnce sync.Once
	artifactsDir  string
	artifactsErr  error
	summaryMu     sync.Mutex
)

// artifacts returns the directory of the screenshots: $PSD2_E2E_ARTIFACTS,
// or psd2-e2e under the temporary directory, emptied once per run.
func artifacts(t *testing.T) string {
	t.Helper()
	artifactsOnce.Do(func() {
		dir := os.Getenv("PSD2_E2E_ARTIFACTS")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "psd2-e2e")
			artifactsErr = os.RemoveAll(dir)
		}
		if artifactsErr == nil {
			artifactsErr = os.MkdirAll(dir, 0o755)
		}
		artifactsDir, _ = filepath.Abs(dir)
	})
	require.NoError(t, artifactsErr)
	return artifactsDir
}

// journey is one PSU's browser session against a fresh site and bank.
type journey struct {
	t     *testing.T
	name  string
	sb    *site.Sandbox
	ctx   context.Context
	dir   string
	steps int
	start time.Time

	mu        sync.Mutex
	callbacks []string // the callback URLs the browser loaded
}

// newJourney starts the site and bank sandbox and a headless Chromium
// with JavaScript disabled (the site must work without it).
func newJourney(t *testing.T, name string) *journey {
	t.Helper()
	exe := chromium(t)
	dir := filepath.Join(artifacts(t), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))

	sb, err := site.StartSandbox(site.SandboxOptions{BatchEvery: 300 * time.Millisecond, WaitTimeout: 5 * time.Second,
		Refresh: time.Second, PollMin: 20 * time.Millisecond, PollMax: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(sb.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(1000, 820),
		// The bank sandbox's certificate is self-signed.
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.Flag("disable-gpu", true),
		// Back reloads a page instead of restoring it from the
		// back-forward cache, which chromedp's DOM queries do not follow.
		chromedp.Flag("disable-back-forward-cache", true),
		// A cold Chromium on a loaded 2-core machine took more than
		// chromedp's default 20 s to say where it listens.
		chromedp.WSURLReadTimeout(2*time.Minute),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// Chromium starts before the journey's own time limit runs.
	require.NoError(t, chromedp.Run(bctx), "starting Chromium")
	ctx, cancel := context.WithTimeout(bctx, 45*time.Second)
	t.Cleanup(cancel)

	j := &journey{t: t, name: name, sb: sb, ctx: ctx, dir: dir}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Type == network.ResourceTypeDocument &&
			strings.HasPrefix(e.Request.URL, sb.URL+"/callback?") {
			j.mu.Lock()
			j.callbacks = append(j.callbacks, e.Request.URL)
			j.mu.Unlock()
		}
	})
	require.NoError(t, chromedp.Run(ctx, network.Enable(), emulation.SetScriptExecutionDisabled(true)), "setting Chromium up")
	j.start = time.Now()
	t.Logf("%s: screenshots in %s", name, dir)
	t.Cleanup(j.finish)
	return j
}

// finish logs and records the journey's steps and time.
func (j *journey) finish() {
	took := time.Since(j.start).Round(10 * time.Millisecond)
	line := fmt.Sprintf("%-10s %2d steps  %v  %s", j.name, j.steps, took, map[bool]string{true: "FAILED", false: "ok"}[j.t.Failed()])
	j.t.Log(line)
	summaryMu.Lock()
	defer summaryMu.Unlock()
	f, err := os.OpenFile(filepath.Join(filepath.Dir(j.dir), "summary.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}

// run runs browser actions.
func (j *journey) run(actions ...chromedp.Action) {
	j.t.Helper()
	require.NoError(j.t, chromedp.Run(j.ctx, actions...))
}

// open loads a page of the site (path) or an absolute URL.
func (j *journey) open(u string) {
	j.t.Helper()
	if !strings.HasPrefix(u, "http") {
		u = j.sb.URL + u
	}
	j.run(chromedp.Navigate(u))
}

// fill types value into the field sel as a person would.
func (j *journey) fill(sel, value string) {
	j.t.Helper()
	j.run(setValue(sel, ""), chromedp.SendKeys(sel, value, chromedp.ByQuery))
}

// click clicks the element sel (a CSS selector, or an XPath starting
// with "//").
func (j *journey) click(sel string) {
	j.t.Helper()
	by := chromedp.ByQuery
	if strings.HasPrefix(sel, "//") {
		by = chromedp.BySearch
	}
	j.run(chromedp.Click(sel, by, chromedp.NodeVisible))
}

// page is what the browser shows.
type page struct {
	URL, Lang, H1, Text string
	Has                 bool // the awaited selector is on the page
	// Ready is document.readyState: "complete" once the whole page is
	// parsed and loaded (before that, its h1 may show without the rest).
	Ready string
}

func (j *journey) read(sel string) (page, error) {
	var p page
	expr := `(() => ({
		URL: location.href,
		Lang: document.documentElement.lang,
		H1: (document.querySelector('h1') || {}).innerText || '',
		Text: (document.querySelector('main') || document.body || {}).innerText || '',
		Has: ` + fmt.Sprintf("%q", sel) + ` === '' || document.querySelector(` + fmt.Sprintf("%q", sel) + `) !== null,
		Ready: document.readyState,
	}))()`
	err := chromedp.Run(j.ctx, chromedp.Evaluate(expr, &p))
	return p, err
}

// await waits until the page's h1 contains h1 (and the element sel, if
// given, is on it) and the page is fully loaded: the browser may still be
// on the page before, reloading a status page, or parsing the new one.
func (j *journey) await(h1, sel string) page {
	j.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last page
	for {
		p, err := j.read(sel)
		if err == nil {
			last = p
			if strings.Contains(p.H1, h1) && p.Has && p.Ready == "complete" {
				return p
			}
		}
		if time.Now().After(deadline) {
			j.t.Fatalf("step %d: waited for heading %q (and %q); the browser shows %s with heading %q: %s",
				j.steps+1, h1, sel, last.URL, last.H1, last.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// step waits for the page whose heading contains h1, asserts that it
// shows every text of want, that it sets lang, and keeps its screenshot.
func (j *journey) step(label, h1 string, want ...string) page {
	j.t.Helper()
	return j.stepWith(label, h1, "", want...)
}

// stepWith is step waiting also for the element sel.
func (j *journey) stepWith(label, h1, sel string, want ...string) page {
	j.t.Helper()
	p := j.await(h1, sel)
	j.steps++
	for _, w := range want {
		if !strings.Contains(p.Text, w) {
			j.t.Errorf("step %d (%s): the page does not show %q; it shows:\n%s", j.steps, label, w, p.Text)
		}
	}
	if p.Lang == "" {
		j.t.Errorf("step %d (%s): no lang attribute on %s", j.steps, label, p.URL)
	}
	var png []byte
	j.run(chromedp.FullScreenshot(&png, 100))
	name := fmt.Sprintf("%02d-%s.png", j.steps, strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(label), "-"), "-"))
	require.NoError(j.t, os.WriteFile(filepath.Join(j.dir, name), png, 0o644))
	j.t.Logf("%s step %d: %s — %q", j.name, j.steps, label, p.H1)
	return p
}

// lastCallback returns the last callback URL the browser loaded.
func (j *journey) lastCallback() string {
	j.t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	require.NotEmpty(j.t, j.callbacks, "the browser loaded no callback")
	return j.callbacks[len(j.callbacks)-1]
}

// chromedpText reads the text of the element sel.
func chromedpText(sel string, s *string) chromedp.Action {
	return chromedp.Text(sel, s, chromedp.ByQuery)
}

// setValue sets the value of the form element sel through DevTools (the
// page's own scripts are disabled; chromedp.SetValue needs them).
func setValue(sel, value string) chromedp.Action {
	var ok bool
	return chromedp.ActionFunc(func(ctx context.Context) error {
		expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.value = %q; return true })()`, sel, value)
		if err := chromedp.Evaluate(expr, &ok).Do(ctx); err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no element %s", sel)
		}
		return nil
	})
}

// setSelect chooses value in the select element sel.
func setSelect(sel, value string) chromedp.Action { return setValue(sel, value) }

// chromedpBack is the browser's Back button. It does not wait for a load
// event: a page restored from the back-forward cache fires none.
func chromedpBack() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		cur, entries, err := cdppage.GetNavigationHistory().Do(ctx)
		if err != nil {
			return err
		}
		if cur < 1 || cur >= int64(len(entries)) {
			return errors.New("no page to go back to")
		}
		return cdppage.NavigateToHistoryEntry(entries[cur-1].ID).Do(ctx)
	})
}

// countOf counts s in text.
func countOf(text, s string) int { return strings.Count(text, s) }
