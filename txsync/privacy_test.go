package txsync_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

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
