package client

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"
)

// headerAttr renders h as a log group in a stable order, each value as
// [headerLogValue] shows it (the redaction list is logHeaders).
func headerAttr(key string, h http.Header) slog.Attr {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	attrs := make([]any, 0, len(names))
	for _, k := range names {
		attrs = append(attrs, slog.String(k, headerLogValue(k, h[k])))
	}
	return slog.Group(key, attrs...)
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
