package refresh_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/txsync"
)

// The JSON form of a Result promises no account id: the booked entries
// it carries hold the PSU's own account (debtorAccount of a payment
// made), counterparties' accounts and names, also through Sync.
func TestResultJSONHidesAccountIDs(t *testing.T) {
	const own, other, name = "NO9386011117947", "12345678903", "Kari MARK Nordmann"
	sess := &sca.Session{Key: "k", PSUID: "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b", TPPSessionID: "sid",
		Context: client.Private, SCAAt: time.Now(), AccountIDs: []string{"acc-1"}}
	job := newJob(t, sess, "acc-1", false)
	tx := accounts.Transaction{TransactionID: "t1", CreditorName: name,
		DebtorAccount: &accounts.AccountReference{IBAN: own}, CreditorAccount: &accounts.AccountReference{BBAN: other}}
	res := refresh.Result{Job: job, Outcome: refresh.Done, Calls: 1, Booked: []accounts.Transaction{tx},
		Sync: &txsync.Delta{Added: []txsync.Entry{{Key: "k1", Transaction: &tx}}}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer // a Result nested in a logged struct goes through MarshalJSON
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "batch", []refresh.Result{res})
	for form, out := range map[string]string{"json": string(b), "slog json nested": js.String()} {
		for _, s := range []string{own, other, name} {
			if strings.Contains(out, s) {
				t.Errorf("%s shows %s", form, s)
			}
		}
	}
}
