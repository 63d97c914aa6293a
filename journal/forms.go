package journal

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
)

// String describes r: its kind, the id, status and resend's request id
// when known, the reason and the time. The Answer (whose links carry the
// bank's SCA state) is not printed.
func (r Resolution) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "journal.Resolution{kind=%s", r.Kind)
	if r.ID != "" {
		fmt.Fprintf(&b, " id=%s", r.ID)
	}
	if r.Status != "" {
		fmt.Fprintf(&b, " status=%s", r.Status)
	}
	if r.ResendRequestID != "" {
		fmt.Fprintf(&b, " resendRequestId=%s", r.ResendRequestID)
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", r.Reason)
	}
	if !r.At.IsZero() {
		fmt.Fprintf(&b, " at=%s", r.At.Format(time.RFC3339Nano))
	}
	if r.Answer != nil {
		b.WriteString(" answer=set")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v.
func (r Resolution) GoString() string { return r.String() }

// Format prints String for every verb (GoString, for %#v, is String
// too): printed field by field, a verb other than %v would print the
// Answer's links in full.
func (r Resolution) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, r.String()) }

// LogValue makes log/slog print r as a group of its fields, without the
// Answer.
func (r Resolution) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", string(r.Kind))}
	if r.ID != "" {
		attrs = append(attrs, slog.String("id", r.ID))
	}
	if r.Status != "" {
		attrs = append(attrs, slog.String("status", r.Status))
	}
	if r.ResendRequestID != "" {
		attrs = append(attrs, slog.String("resendRequestId", r.ResendRequestID))
	}
	if r.Reason != "" {
		attrs = append(attrs, slog.String("reason", r.Reason))
	}
	attrs = append(attrs, slog.Time("at", r.At))
	return slog.GroupValue(attrs...)
}
