package emulator

import (
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Field names are case-sensitive: rules.DropMiscased (internal/rules)
// removes miscased keys before a body is decoded, and the answer to a
// missing field names the key meant for it.

// withMiscasedHint returns e with a sentence added to its text when e is
// a 400 FORMAT_ERROR naming a field (such as "creditorName" or
// "payments[0].instructedAmount.amount") that body lacks while holding a
// key at that path written in another case; otherwise e itself.
func withMiscasedHint(e *apiError, body []byte) *apiError {
	if e.status != http.StatusBadRequest || e.msg.Code != "FORMAT_ERROR" || e.msg.Path == "" || len(body) == 0 {
		return e
	}
	key := rules.MiscasedKey(body, e.msg.Path)
	if key == "" {
		return e
	}
	hint := " The body has " + strconv.Quote(clip(key)) + " instead: field names are case-sensitive."
	c := *e
	c.msg.Text = newError(e.status, e.msg.Code, "%s", e.msg.Text+hint).msg.Text
	return &c
}
