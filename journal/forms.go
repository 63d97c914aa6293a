package journal

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed, log/slog and JSON forms of a Resolution and an Entry,
// generated from the declarations below into print_gen.go. Neither shows
// the bank's answer (its links carry the bank's SCA state), the body, URL,
// session key or PSU data of a create.

// String describes r: its kind, the id, status (with fundsAvailable when
// the bank said) and resend's request id when known, the reason and the
// time. The Answer (whose links carry the bank's SCA state) is not
// printed: String marks it as set, the log form leaves it out.
func (r Resolution) form() *redact.Form {
	f := redact.New("journal.Resolution").Field("kind", string(r.Kind), slog.StringValue(string(r.Kind))).
		Str("id", r.ID).Str("status", r.Status).Bool("fundsAvailable", r.FundsAvailable).Str("resendRequestId", r.ResendRequestID)
	if r.Reason != "" {
		f.Field("reason", strconv.Quote(r.Reason), slog.StringValue(r.Reason))
	}
	if !r.At.IsZero() {
		f.Text("at", r.At.Format(time.RFC3339Nano))
	}
	f.Attr(slog.Time("at", r.At))
	if r.Answer != nil {
		f.Text("answer", "set")
	}
	return f
}

// String describes the entry without its body, session key or PSU data:
// its request id, operation, outcome ("none" before the answer), the
// resolution's kind, the length of its trail, and lost=true on the
// settlement of a lost entry. The log form has the fields of the JSON
// form.
func (e Entry) form() *redact.Form {
	outcome := string(e.Outcome)
	if outcome == "" {
		outcome = "none"
	}
	f := redact.New("journal.Entry").Field("requestId", e.RequestID, slog.StringValue(e.RequestID)).
		Text("op", e.Operation).Text("outcome", outcome).Attr(slog.String("operation", e.Operation))
	if e.AllowLogicalDuplicate {
		f.Attr(slog.Bool("allowLogicalDuplicate", true))
	}
	f.Attr(slog.Time("created", e.Created))
	if e.Outcome != "" {
		f.Attr(slog.String("outcome", string(e.Outcome)))
	}
	if e.ID != "" {
		f.Attr(slog.String("id", e.ID))
	}
	if e.StatusCode != 0 {
		f.Attr(slog.Int("statusCode", e.StatusCode))
	}
	if len(e.Codes) > 0 {
		f.Attr(slog.Any("codes", safeCodes(e.Codes)))
	}
	if e.Resolution != nil {
		f.Text("resolution", string(e.Resolution.Kind)).Attr(slog.Any("resolution", *e.Resolution))
	}
	if len(e.Trail) > 0 {
		f.Text("trail", strconv.Itoa(len(e.Trail))).Attr(slog.Any("trail", e.Trail))
	}
	if e.Resolves != "" {
		f.Attr(slog.String("resolves", e.Resolves))
	}
	if e.Lost {
		f.Text("lost", "true").Attr(slog.Bool("lost", true))
	}
	return f.Attr(slog.Bool("inDoubt", e.InDoubt()))
}

// entryView is the JSON form of an Entry.
type entryView struct {
	RequestID             string       `json:"requestId"`
	Operation             string       `json:"operation"`
	AllowLogicalDuplicate bool         `json:"allowLogicalDuplicate,omitempty"`
	Created               time.Time    `json:"created"`
	Outcome               Outcome      `json:"outcome,omitempty"`
	ID                    string       `json:"id,omitempty"`
	StatusCode            int          `json:"statusCode,omitempty"`
	Codes                 []string     `json:"codes,omitempty"`
	Resolution            *Resolution  `json:"resolution,omitempty"`
	Trail                 []Resolution `json:"trail,omitempty"`
	Resolves              string       `json:"resolves,omitempty"`
	Lost                  bool         `json:"lost,omitempty"`
	InDoubt               bool         `json:"inDoubt"`
}

// MarshalJSON writes the entry without its body, URL, session key or PSU
// data, for dashboards and logs.
func (e Entry) view() entryView {
	return entryView{e.RequestID, e.Operation, e.AllowLogicalDuplicate, e.Created, e.Outcome,
		e.ID, e.StatusCode, safeCodes(e.Codes), e.Resolution, e.Trail, e.Resolves, e.Lost, e.InDoubt()}
}

// safeCodes is codes as they may be printed, logged or exported: each one
// of the interface's codes, or "OTHER" (client.SafeCode), since a bank's
// code field can hold any text. The entry keeps the bank's codes.
func safeCodes(codes []string) []string {
	if codes == nil {
		return nil
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = client.SafeCode(c)
	}
	return out
}
