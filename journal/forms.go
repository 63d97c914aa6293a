package journal

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/tppkit/psd2/internal/resolveform"
)

// String describes r: its kind, the id, status and resend's request id
// when known, the reason and the time. The Answer (whose links carry the
// bank's SCA state) is not printed.
func (r Resolution) String() string { return r.printed().String() }

// printed is r's printed form (internal/resolveform), the Answer marked
// as set, not printed.
func (r Resolution) printed() resolveform.Form {
	f := resolveform.Form{Type: "journal.Resolution", IDKey: "id", Kind: string(r.Kind), ID: r.ID, Status: r.Status,
		ResendRequestID: r.ResendRequestID, Reason: r.Reason, At: r.At}
	if r.Answer != nil {
		f.Set = "answer"
	}
	return f
}

// GoString is String, for %#v.
func (r Resolution) GoString() string { return r.String() }

// Format prints String for every verb (GoString, for %#v, is String
// too): printed field by field, a verb other than %v would print the
// Answer's links in full.
func (r Resolution) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, r.String()) }

// LogValue makes log/slog print r as a group of its fields, without the
// Answer.
func (r Resolution) LogValue() slog.Value { return r.printed().LogValue() }
