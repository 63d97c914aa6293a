package client

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"
)

// redacted reports whether the value of header name (canonical form) must
// never reach a log: personal data of the PSU (SERVICE.md 4.1, 5.11), the
// signature and the certificate. This is the one redaction list of the
// package. Bodies are never logged at all.
func redacted(name string) bool {
	switch name {
	case "Psu-Id", "Psu-Corporate-Id", "X-Psu-Identity",
		"Psu-Ip-Address", "Psu-Ip-Port", "Psu-Device-Id", "Psu-Geo-Location",
		"Signature", "Tpp-Signature-Certificate",
		"Authorization", "Cookie", "Set-Cookie":
		return true
	}
	return false
}

// redactedValue replaces a secret header value in logs.
const redactedValue = "[REDACTED]"

// headerAttr renders h as a log group with the redacted headers masked,
// in a stable order.
func headerAttr(key string, h http.Header) slog.Attr {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	attrs := make([]any, 0, len(names))
	for _, k := range names {
		v := redactedValue
		if !redacted(http.CanonicalHeaderKey(k)) {
			v = joinValues(h[k])
		}
		attrs = append(attrs, slog.String(k, v))
	}
	return slog.Group(key, attrs...)
}

func joinValues(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	s := vs[0]
	for _, v := range vs[1:] {
		s += ", " + v
	}
	return s
}

// logAttempt logs one attempt: method, path (no query), status or error,
// request id, duration and attempt number at Info (Warn when it failed),
// and the redacted request headers at Debug. It never logs bodies.
func (c *Client) logAttempt(ctx context.Context, req *http.Request, attempt int, d time.Duration, resp *http.Response, err error, retry bool) {
	l := c.cfg.logger
	if l == nil || req == nil {
		return
	}
	level := slog.LevelInfo
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.EscapedPath()),
		slog.String("request_id", req.Header.Get("X-Request-ID")),
		slog.Int("attempt", attempt),
		slog.Duration("duration", d),
	}
	switch {
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", err.Error()))
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
