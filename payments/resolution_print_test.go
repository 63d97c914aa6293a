package payments_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
)

// payments.Resolution and journal.Resolution print one form (the
// journal's), differing only in the type name, the id's key and the
// Initiation or answer marked as set; the Initiation's links never print.
func TestResolutionPrintedForms(t *testing.T) {
	at := time.Date(2026, 11, 27, 4, 5, 6, 7, time.UTC)
	jr := journal.Resolution{Kind: journal.ResolvedCreated, ID: "p-1", Status: "RCVD", ResendRequestID: "r-2",
		Reason: `say "no"`, At: at, Answer: []byte(`{"_links":{"scaRedirect":{"href":"https://bank/sca?state=SECRET"}}}`)}
	pr := payments.Resolution{Resolution: jr, Initiation: &payments.Initiation{PaymentID: "p-1"}}
	const members = ` status=RCVD resendRequestId=r-2 reason="say \"no\"" at=2026-11-27T04:05:06.000000007Z`
	for _, tc := range []struct {
		v    any
		want string
	}{
		{jr, `journal.Resolution{kind=created id=p-1` + members + ` answer=set}`},
		{pr, `payments.Resolution{kind=created paymentId=p-1` + members + ` initiation=set}`},
		{journal.Resolution{Kind: journal.NeedsPerson}, `journal.Resolution{kind=needs-person}`},
		{payments.Resolution{Resolution: journal.Resolution{Kind: journal.NeedsPerson}}, `payments.Resolution{kind=needs-person}`},
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d"} {
			if got := fmt.Sprintf(verb, tc.v); got != tc.want {
				t.Errorf("%s: %s, want %s", verb, got, tc.want)
			}
		}
	}
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("r", "j", jr, "p", pr)
	for _, want := range []string{"j.kind=created j.id=p-1 j.status=RCVD j.resendRequestId=r-2", "p.kind=created p.paymentId=p-1", "p.initiation.paymentId=p-1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("slog: %s, want %s in it", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "SECRET") || strings.Contains(b.String(), "j.answer") {
		t.Errorf("slog prints the answer: %s", b.String())
	}
}
