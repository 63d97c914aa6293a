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

// The balances a Result carries go into its JSON form as their facts
// (amount, type, dates), not as the bank's document: a member of a
// balance the SDK does not know (a bank's own addition, here the
// account's IBAN and its holder) and the last committed entry's
// reference are bank texts, shown as their names or [redacted], as the
// balance's printed form shows them.
func TestResultJSONHidesBalanceTexts(t *testing.T) {
	const own, name, ref = "NO9386011117947", "Kari MARK Nordmann", "ENTRYREF-55"
	sess := &sca.Session{Key: "k", PSUID: "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b", TPPSessionID: "sid",
		Context: client.Private, SCAAt: time.Now(), AccountIDs: []string{"acc-1"}}
	job := newJob(t, sess, "acc-1", false)
	var bal accounts.Balance
	if err := json.Unmarshal([]byte(`{"balanceAmount":{"amount":"100.00","currency":"NOK"},"balanceType":"interimAvailable",
		"lastCommittedTransaction":"`+ref+`","accountIban":"`+own+`","owner":{"name":"`+name+`"}}`), &bal); err != nil {
		t.Fatal(err)
	}
	res := refresh.Result{Job: job, Outcome: refresh.Done, Calls: 1, Balances: []accounts.Balance{bal}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "result", res)
	for form, out := range map[string]string{"json": string(b), "slog json": js.String()} {
		for _, s := range []string{own, name, ref} {
			if strings.Contains(out, s) {
				t.Errorf("%s shows %s: %s", form, s, out)
			}
		}
	}
	for _, s := range []string{`"amount":"100.00"`, `"currency":"NOK"`, "interimAvailable", "accountIban", "owner"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("json lacks %s: %s", s, b)
		}
	}
}

// A balance's type, currency, amount and change time are shown in a
// Result's JSON form only when they read as what the interface puts
// there: a bank that sends a holder's name or an IBAN in one of them, or
// a megabyte of text, must not have it written into the TPP's logs.
// Before, each was written as sent, whole.
func TestResultJSONShowsBalanceFactsOnlyAsFacts(t *testing.T) {
	const own, name = "NO9386011117947", "Kari MARK Nordmann"
	sess := &sca.Session{Key: "k", PSUID: "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b", TPPSessionID: "sid",
		Context: client.Private, SCAAt: time.Now(), AccountIDs: []string{"acc-1"}}
	job := newJob(t, sess, "acc-1", false)
	long := strings.Repeat("x", 1<<20)
	docs := []string{
		`{"balanceAmount":{"amount":"` + name + `","currency":"NOK"},"balanceType":"` + own + `","lastChangeDateTime":"` + name + `"}`,
		`{"balanceAmount":{"amount":"1.00","currency":"` + name + `"},"balanceType":"` + name + `","lastChangeDateTime":"` + own + `"}`,
		`{"balanceAmount":{"amount":"` + long + `","currency":"` + long + `"},"balanceType":"` + long + `","lastChangeDateTime":"` + long + `"}`,
		`{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"expected","lastChangeDateTime":"2017-10-25T15:30:35.035Z","` + long + `":1}`,
	}
	var bals []accounts.Balance
	for _, d := range docs {
		var bal accounts.Balance
		if err := json.Unmarshal([]byte(d), &bal); err != nil {
			t.Fatal(err)
		}
		bals = append(bals, bal)
	}
	res := refresh.Result{Job: job, Outcome: refresh.Done, Calls: 1, Balances: bals}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{own, name, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"} {
		if strings.Contains(string(b), s) {
			t.Errorf("json shows %.20s…", s)
		}
	}
	if len(b) > 8<<10 {
		t.Errorf("json of 4 balances takes %d bytes", len(b))
	}
	// What reads as the interface's facts is still shown.
	for _, s := range []string{`"amount":"1.00"`, `"currency":"NOK"`, `"balanceType":"expected"`, `"lastChangeDateTime":"2017-10-25T15:30:35.035Z"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("json lacks %s: %.500s", s, b)
		}
	}
}
