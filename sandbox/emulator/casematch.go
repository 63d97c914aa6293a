package emulator

import (
	"net/http"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Field names are case-sensitive: rules.DropMiscased (internal/rules)
// removes miscased keys before a body is decoded, and the answer to a
// missing field names the key meant for it (rules.MiscasedHint).

// withMiscasedHint returns e with rules.MiscasedHint's sentence added to
// its text when e is a 400 FORMAT_ERROR naming a field (such as
// "creditorName" or "payments[0].instructedAmount.amount") that body
// lacks while holding a key at that path written in another case;
// otherwise e itself.
func withMiscasedHint(e *apiError, body []byte) *apiError {
	if e.status != http.StatusBadRequest || e.msg.Code != rules.CodeFormat {
		return e
	}
	hint := rules.MiscasedHint(body, e.msg.Path)
	if hint == "" {
		return e
	}
	c := *e
	c.msg.Text = newError(e.status, e.msg.Code, "%s", e.msg.Text+hint).msg.Text
	return &c
}
