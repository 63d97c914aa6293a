package sca_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/sca"
)

// TestEveryVerbHidesSecrets: a Session and a Pending show no PSU data, no
// state and no session id under any fmt verb (%d and %x included) or slog
// handler, as values and as pointers.
func TestEveryVerbHidesSecrets(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	s := sca.Session{Key: "kari@example.no", PSUID: plantedPSU, PSUCorporateID: plantedCorp, TPPSessionID: "5f0c9a1e-sid",
		Context: client.Corporate, SCAAt: at, AccountIDs: []string{"acc-MARK-1"}, CardAccountIDs: []string{"card-MARK-2"}}
	secrets := redacttest.WithHex(s.Key, s.PSUID, s.PSUCorporateID, s.TPPSessionID, "acc-MARK-1", "card-MARK-2")
	redacttest.AssertHidden(t, s, secrets)
	redacttest.AssertHidden(t, &s, secrets)

	p := sca.Pending{Key: "kari@example.no", State: plantedState, TPPSessionID: "5f0c9a1e-sid",
		RedirectURI: "https://tpp.example/cb?state=" + plantedState, CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	secrets = redacttest.WithHex(p.Key, p.State, p.TPPSessionID, p.RedirectURI)
	redacttest.AssertHidden(t, p, secrets)
	redacttest.AssertHidden(t, &p, secrets)
}

// TestCallbackErrorEveryVerb: a failed SCA's error shows neither the
// bank's message (free text that may name the PSU) nor the
// TPP-Session-ID under any fmt verb; %v is its Error, %#v its GoString.
func TestCallbackErrorEveryVerb(t *testing.T) {
	t.Parallel()
	e := &sca.CallbackError{System: "sca", Status: 401, Code: "SCA_INVALID", Message: "Kari MARK-name cancelled", TPPSessionID: "5f0c9a1e-sid"}
	secrets := redacttest.WithHex("MARK-name", e.TPPSessionID)
	forms := redacttest.AssertHidden(t, e, secrets)
	redacttest.AssertHidden(t, *e, secrets)
	if forms["%v"] != e.Error() || forms["%d"] != e.Error() {
		t.Errorf("%%v %q, %%d %q, want %q", forms["%v"], forms["%d"], e.Error())
	}
	if got := fmt.Sprintf("%#v", e); got != e.GoString() {
		t.Errorf("%%#v = %q", got)
	}
}
