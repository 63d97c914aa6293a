package refresh

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed, log/slog and JSON forms of a Job and a Result show no
// account id, PSU-ID or session id. Their String, GoString, Format (every
// fmt verb), LogValue and MarshalJSON are generated from the form and
// view methods below into print_gen.go.

// String describes the job without its account id or session ids.
func (j Job) form() *redact.Form {
	f := redact.New("refresh.Job")
	if j.Card() {
		f.Secret("cardAccountId", j.AccountID())
	} else {
		f.Secret("accountId", j.AccountID())
	}
	force := j.Force
	return f.Str("want", j.want().String()).Value("since", j.Since).Bool("force", &force)
}

// MarshalJSON writes the job with its account id [redacted] and its
// session as sca.Session writes it (ids [redacted]), so that a job in a
// logged or returned JSON document leaks no id. It is not a storage form.
func (j Job) view() jobView {
	v := jobView{Session: j.Session(), Card: j.Card(), Want: j.want().String(), Since: j.Since,
		Cursor: j.Cursor, Force: j.Force}
	if j.AccountID() != "" {
		v.AccountID = redact.Redacted
	}
	return v
}

// String describes the result without ids: the outcome, the counts and
// the retry time.
func (r Result) form() *redact.Form {
	f := redact.New("refresh.Result").Str("outcome", r.Outcome.String()).Int("calls", r.Calls).
		Int("balances", len(r.Balances)).Int("booked", len(r.Booked)+len(r.CardBooked)).
		Int("pending", len(r.Pending)+len(r.CardPending))
	if r.Sync != nil {
		// Shown even when zero: a read the sync compared.
		for _, c := range []struct {
			key string
			n   int
		}{{"added", len(r.Sync.Added)}, {"changed", len(r.Sync.Changed)}, {"removed", len(r.Sync.Removed)}} {
			f.Field(c.key, strconv.Itoa(c.n), slog.IntValue(c.n))
		}
	}
	if !r.RetryAt.IsZero() {
		f.Str("retryAt", r.RetryAt.UTC().Format(time.RFC3339))
	}
	if r.Deferred {
		f.Text("", "deferred")
	}
	if r.Err != nil {
		status, code := errorCode(r.Err)
		f.Int("status", status).Str("code", code)
	}
	return f
}

// MarshalJSON writes the result with its job as [Job.MarshalJSON] does,
// its balances as their facts (amount, type, dates; the names of the
// members the SDK does not know, the last committed entry's reference
// [redacted]; a type, currency or change time that does not read as one
// as OTHER, an unreadable amount's text [redacted]), its entries as counts (booked, pending, and the sync's added, changed
// and removed: an entry names the account, its counterparties and their
// accounts) and its error as the bank's HTTP status and code (or, for an
// error that is not the bank's answer, its message), never the bank's
// texts, links or headers: no JSON form of a Result shows an account id,
// PSU-ID or session id. The code is one of the interface's codes or "OTHER"
// (client.SafeCode): a bank's code field can hold any text.
func (r Result) view() resultView {
	v := resultView{Job: r.Job, Outcome: r.Outcome.String(), Balances: balanceViews(r.Balances), Booked: len(r.Booked) + len(r.CardBooked),
		Pending: len(r.Pending) + len(r.CardPending), Cursor: r.Cursor,
		RetryAt: r.RetryAt, Deferred: r.Deferred, Calls: r.Calls}
	if r.Sync != nil {
		v.Sync = &syncView{Added: len(r.Sync.Added), Changed: len(r.Sync.Changed), Removed: len(r.Sync.Removed)}
	}
	if r.Err != nil {
		if v.Status, v.Code = errorCode(r.Err); v.Status == 0 {
			v.Err = r.Err.Error()
		}
	}
	return v
}

// balanceViews are the JSON forms of bs; nil for none.
func balanceViews(bs []accounts.Balance) []balanceView {
	if len(bs) == 0 {
		return nil
	}
	out := make([]balanceView, len(bs))
	for i, b := range bs {
		// The type, currency and change time are the bank's texts: each
		// is shown when it reads as what the interface puts there (a
		// word, a code, a date-time), else as OTHER, so that a name, an
		// account number or a megabyte sent in one never reaches the log.
		v := balanceView{BalanceType: redact.Word(string(b.BalanceType)), CreditLimitIncluded: b.CreditLimitIncluded,
			ReferenceDate: b.ReferenceDate, LastChangeDateTime: redact.DateTime(b.LastChangeDateTime)}
		if a := b.BalanceAmount; !a.IsZero() {
			// An unreadable amount's text is whatever the bank put in the
			// amount member; a readable one's is a decimal number.
			text := redact.Redacted
			if a.Err() == nil {
				text = a.Text()
			}
			v.BalanceAmount = &amountView{Amount: text, Currency: redact.Currency(a.Currency)}
		}
		if b.LastCommittedTransaction != "" {
			v.LastCommittedTransaction = redact.Redacted
		}
		// The members' names as the balance's printed form lists them:
		// each cut to redact.MaxShown bytes, at most redact.MaxItems of
		// them, the rest counted.
		for j, m := range b.Extra {
			if j == redact.MaxItems {
				v.Extra = append(v.Extra, "… "+strconv.Itoa(len(b.Extra)-j)+" more")
				break
			}
			v.Extra = append(v.Extra, redact.Cut(m.Name))
		}
		out[i] = v
	}
	return out
}
