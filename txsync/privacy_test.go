package txsync_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/tppkit/psd2/accounts"

	"github.com/tppkit/psd2/txsync"
)

// txsync.Linked (Syncer.Link's answer) and LinkedAccount, logged with
// slog's JSON handler or marshalled, hide each account's resourceId, as
// the printed forms do. On the code before, neither had a JSON form and
// both showed it.
func TestLinkedFormsHideResourceIDs(t *testing.T) {
	const rid = "enc!!RESOURCE-MARK-1"
	linked := txsync.Linked{Accounts: []txsync.LinkedAccount{{ResourceID: rid, Key: "aabcdefghijklmnop", New: true}}}
	var js bytes.Buffer
	slog.New(slog.NewJSONHandler(&js, nil)).Info("linked", "linked", linked)
	b1, _ := json.Marshal(linked)
	b2, _ := json.Marshal(linked.Accounts[0])
	for form, out := range map[string]string{"slog json of Linked": js.String(), "json of Linked": string(b1),
		"json of LinkedAccount": string(b2)} {
		if strings.Contains(out, rid) {
			t.Errorf("%s shows the resourceId: %s", form, out)
		}
	}
}

// An entry's amount and a version's amount and currency are shown in the
// printed and slog forms only when they read as an amount and a currency
// code: a bank that put a holder's name or an IBAN in the amount or the
// currency member must not have it logged with every Delta. Before, an
// unreadable amount's text and the version's texts were shown as sent.
func TestFormsShowAmountsOnlyAsAmounts(t *testing.T) {
	const iban, name = "NO9386011117947", "Kari MARK Nordmann"
	var tr accounts.Transaction
	if err := json.Unmarshal([]byte(`{"transactionId":"t1","bookingDate":"2025-03-12",`+
		`"transactionAmount":{"amount":"`+name+`","currency":"`+iban+`"}}`), &tr); err != nil {
		t.Fatal(err)
	}
	prev := txsync.Version{Status: accounts.BookingBooked, Amount: name, Currency: iban}
	e := txsync.Entry{Key: "k1", Transaction: &tr}
	for _, v := range []any{e, prev, txsync.Change{Entry: e, Previous: prev}, txsync.Removal{Key: "k1", Previous: prev}} {
		var js bytes.Buffer
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
		for form, out := range map[string]string{"%v": fmt.Sprint(v), "slog json": js.String()} {
			for _, s := range []string{iban, name} {
				if strings.Contains(out, s) {
					t.Errorf("%T: %s shows %s: %s", v, form, s, out)
				}
			}
		}
	}
	ok := txsync.Version{Status: accounts.BookingBooked, Amount: "-49.00", Currency: "NOK"}
	if out := fmt.Sprint(ok); !strings.Contains(out, "amount=-49.00") || !strings.Contains(out, "currency=NOK") {
		t.Errorf("a version's amount is not shown: %s", out)
	}
}
