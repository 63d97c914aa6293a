package payments_test

import (
	"encoding/hex"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/payments"
)

// TestAnswersEveryVerb: the payment answers (Initiation, StatusResponse,
// Authorisation, Cancellation) show neither the bank's SCA state nor the
// psuMessage under any fmt verb or slog handler, as values and pointers;
// they printed field by field before (%v showed the psuMessage, %d the
// links in full).
func TestAnswersEveryVerb(t *testing.T) {
	t.Parallel()
	const state, psu = "PLANTEDstate0123456789", "Hei Kari Nordmann"
	links := client.Links{client.LinkSCARedirect: {Href: "https://bank.example/sca?state=" + state}}
	secrets := []string{state, psu, hex.EncodeToString([]byte(state)), hex.EncodeToString([]byte(psu))}
	yes := true
	for _, v := range []any{
		payments.Initiation{PaymentID: "p-1", TransactionStatus: payments.StatusRCVD, PSUMessage: psu, Links: links, TransactionFeeIndicator: &yes},
		payments.StatusResponse{PaymentID: "p-1", TransactionStatus: payments.StatusRCVD, PSUMessage: psu, Links: links, FundsAvailable: &yes},
		payments.Authorisation{ScaStatus: "received", AuthorisationID: "a-1", PSUMessage: psu, Links: links},
		payments.Cancellation{StatusCode: 202, TransactionStatus: payments.StatusRCVD, Links: links},
	} {
		forms := redacttest.AssertHidden(t, v, secrets)
		if forms["%d"] != forms["%v"] {
			t.Errorf("%T: %%d prints %q, %%v %q", v, forms["%d"], forms["%v"])
		}
	}
	i := payments.Initiation{PaymentID: "p-1", PSUMessage: psu, Links: links}
	redacttest.AssertHidden(t, &i, secrets)
}
