package journal_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/journal"
)

// A Resolution prints one form for every verb, the bank's answer marked
// as set and never printed (its links carry the bank's SCA state).
func TestResolutionPrintedForms(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 4, 5, 6, 7, time.UTC)
	jr := journal.Resolution{Kind: journal.ResolvedCreated, ID: "p-1", Status: "RCVD", ResendRequestID: "r-2",
		Reason: `say "no"`, At: at, Answer: []byte(`{"_links":{"scaRedirect":{"href":"https://bank/sca?state=SECRET"}}}`)}
	const members = ` status=RCVD resendRequestId=r-2 reason="say \"no\"" at=2026-11-27T04:05:06.000000007Z`
	for _, tc := range []struct {
		v    any
		want string
	}{
		{jr, `journal.Resolution{kind=created id=p-1` + members + ` answer=set}`},
		{&jr, `journal.Resolution{kind=created id=p-1` + members + ` answer=set}`},
		{journal.Resolution{Kind: journal.NeedsPerson}, `journal.Resolution{kind=needs-person}`},
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d"} {
			if got := fmt.Sprintf(verb, tc.v); got != tc.want {
				t.Errorf("%s: %s, want %s", verb, got, tc.want)
			}
		}
	}
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("r", "j", jr)
	if want := "j.kind=created j.id=p-1 j.status=RCVD j.resendRequestId=r-2"; !strings.Contains(b.String(), want) {
		t.Errorf("slog: %s, want %s in it", b.String(), want)
	}
	if strings.Contains(b.String(), "SECRET") || strings.Contains(b.String(), "j.answer") {
		t.Errorf("slog prints the answer: %s", b.String())
	}
}
