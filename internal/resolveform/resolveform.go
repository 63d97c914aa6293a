// Package resolveform prints a journal resolution (journal.Resolution).
// Nothing secret is in a Form: the bank's answer (whose links carry its
// SCA state) is never printed, only marked as set.
package resolveform

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Form is what a resolution prints.
type Form struct {
	// Type names the resolution ("journal.Resolution").
	Type string
	// IDKey is the key of ID ("id", "paymentId").
	IDKey string

	Kind, ID, Status, ResendRequestID, Reason string
	At                                        time.Time

	// Set, when not "", prints " Set=set" last in String: the
	// resolution holds the bank's answer, not printed.
	Set string
	// Attr, when its Key is not "", is added last to LogValue.
	Attr slog.Attr
}

// String is Type{kind=… IDKey=… status=… resendRequestId=… reason="…"
// at=…}, each member only when set.
func (f Form) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s{kind=%s", f.Type, f.Kind)
	if f.ID != "" {
		fmt.Fprintf(&b, " %s=%s", f.IDKey, f.ID)
	}
	if f.Status != "" {
		fmt.Fprintf(&b, " status=%s", f.Status)
	}
	if f.ResendRequestID != "" {
		fmt.Fprintf(&b, " resendRequestId=%s", f.ResendRequestID)
	}
	if f.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", f.Reason)
	}
	if !f.At.IsZero() {
		fmt.Fprintf(&b, " at=%s", f.At.Format(time.RFC3339Nano))
	}
	if f.Set != "" {
		b.WriteString(" " + f.Set + "=set")
	}
	b.WriteString("}")
	return b.String()
}

// LogValue is a group of the members: kind, the id, status,
// resendRequestId and reason when set, at, then Attr.
func (f Form) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", f.Kind)}
	if f.ID != "" {
		attrs = append(attrs, slog.String(f.IDKey, f.ID))
	}
	if f.Status != "" {
		attrs = append(attrs, slog.String("status", f.Status))
	}
	if f.ResendRequestID != "" {
		attrs = append(attrs, slog.String("resendRequestId", f.ResendRequestID))
	}
	if f.Reason != "" {
		attrs = append(attrs, slog.String("reason", f.Reason))
	}
	attrs = append(attrs, slog.Time("at", f.At))
	if f.Attr.Key != "" {
		attrs = append(attrs, f.Attr)
	}
	return slog.GroupValue(attrs...)
}
