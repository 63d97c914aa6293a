package client

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// headerAttr renders h as a log group in a stable order, each value as
// [headerLogValue] shows it (the redaction list is logHeaders): the first
// maxShownHeaders names, and how many more there are (shownHeaderNames).
func headerAttr(key string, h http.Header) slog.Attr {
	names, more := shownHeaderNames(h)
	attrs := make([]any, 0, len(names)+1)
	for _, k := range names {
		attrs = append(attrs, slog.String(k, headerLogValue(k, h[k])))
	}
	if more > 0 {
		attrs = append(attrs, slog.String(moreHeadersKey, moreHeaders(more)))
	}
	return slog.Group(key, attrs...)
}

// maxShownHeaders bounds the headers a log record or a printed form
// shows: an answer's header names are the bank's, as many as its header
// limit lets it send (thousands within the SDK transport's 64 KiB, far
// more through a caller's http.Client). A request of the SDK carries
// about thirty at most.
const maxShownHeaders = 64

// moreHeadersKey is the key under which a log record or a printed form
// says how many headers past maxShownHeaders it leaves out: not a header
// name (a field name cannot hold "…").
const moreHeadersKey = "…"

// moreHeaders says that n headers are left out.
func moreHeaders(n int) string { return strconv.Itoa(n) + " more headers" }

// shownHeaderNames returns the names of h a log record or a printed
// form shows, sorted, at most maxShownHeaders of them, and how many are
// left out.
func shownHeaderNames(h http.Header) (names []string, more int) {
	names = make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > maxShownHeaders {
		return names[:maxShownHeaders], len(names) - maxShownHeaders
	}
	return names, 0
}

// logAttempt logs one attempt: method, path as a template without ids or
// query ([pathTemplate]), status or error (its URL templated too, see
// [redactURLError]), request id, duration and attempt number at Info (Warn
// when it failed), and the request and response headers at Debug, redacted
// by the list in logHeaders. It never logs bodies.
func (c *Client) logAttempt(ctx context.Context, req *http.Request, attempt int, d time.Duration, resp *http.Response, err error, retry bool) {
	l := c.cfg.logger
	if l == nil || req == nil {
		return
	}
	path := ""
	if req.URL != nil {
		path = pathTemplate(req.URL.EscapedPath())
	}
	level := slog.LevelInfo
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", path),
		slog.String("request_id", req.Header.Get("X-Request-ID")),
		slog.Int("attempt", attempt),
		slog.Duration("duration", d),
	}
	switch {
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", redactURLError(err).Error()))
	case resp != nil:
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			level = slog.LevelWarn
		}
	}
	if retry {
		attrs = append(attrs, slog.Bool("retry", true))
	}
	if l.Enabled(ctx, slog.LevelDebug) {
		attrs = append(attrs, headerAttr("request_header", req.Header))
		if resp != nil {
			attrs = append(attrs, headerAttr("response_header", resp.Header))
		}
	}
	l.LogAttrs(ctx, level, "psd2 request", attrs...)
}
