package budget

import (
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the package's values: String, GoString,
// Format (every fmt verb) and LogValue show no account id and no claim
// name.

// String shows what r takes from the budget and until when it claims the
// account; the account id and the claim's name (a holder's token)
// redacted.
func (r ReserveRequest) form() *redact.Form {
	f := redact.New("budget.ReserveRequest").Secret("accountId", r.AccountID).Bool("card", &r.Card).
		Int("balances", r.Balances).Int("transactions", r.Transactions).
		Secret("claim", r.Claim).Value("claimUntil", r.ClaimUntil)
	if r.MaxWait != 0 {
		f.Str("maxWait", r.MaxWait.String())
	}
	return f
}
