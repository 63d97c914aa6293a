package journal_test

import (
	"testing"
	"time"

	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/journal"
)

// TestPrintEveryVerb: an Entry and a Resolution print one text under
// every fmt verb (%q quoted, %#v too), and no verb, log handler or JSON
// form shows the create's body, URL or session key, or the bank's answer
// to a resend.
func TestPrintEveryVerb(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 4, 5, 6, 7, time.UTC)
	r := journal.Resolution{Kind: journal.ResolvedCreated, ID: "p-1", Status: "RCVD", Reason: "resent", At: at,
		Answer: []byte(`{"_links":{"scaRedirect":{"href":"https://bank/sca?state=MARK-STATE"}}}`)}
	const rText = `journal.Resolution{kind=created id=p-1 status=RCVD reason="resent" at=2026-11-27T04:05:06.000000007Z answer=set}`
	redacttest.AssertVerbs(t, r, rText, rText)
	redacttest.AssertHidden(t, r, []string{"MARK-STATE", "scaRedirect"})

	e := journal.Entry{RequestID: "req-1", Operation: "payments.Create", URL: "https://bank.example/v1/payments/x?MARK-URL",
		Body: []byte(`{"creditorName":"MARK-NAME"}`), SessionKey: "MARK-SESSION", Created: at, Outcome: journal.OutcomeUnknown,
		Resolution: &r, Trail: []journal.Resolution{r}}
	const eText = "journal.Entry{requestId=req-1 op=payments.Create outcome=unknown resolution=created trail=1}"
	redacttest.AssertVerbs(t, e, eText, eText)
	redacttest.AssertRedacted(t, e, redacttest.WithHex("MARK-URL", "MARK-NAME", "MARK-SESSION", "MARK-STATE"))
}
