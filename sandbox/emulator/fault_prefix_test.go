package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInjectFaultRefusesPrefixesNoRequestMatches checks the bound of
// docs/emulator.md ("The control API"): inject-fault's pathPrefix is "a
// path starting with /" because "a fault no request matches would stay
// armed". Faults apply to the API under /api only, matched against the
// path after /api (a leading "/api/" is dropped). Before the fix the
// control API answered 200 to "/api" (not trimmed, while every path it
// is matched against has /api removed), "/tap-sandbox/" and
// "/openapi.json" (served outside the fault hook): each fault matched
// no request and stayed armed for ever, counting against the 1,024.
func TestInjectFaultRefusesPrefixesNoRequestMatches(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, prefix := range []string{"/api", "/tap-sandbox/", "/openapi.json"} {
		status, body := ctl.call(http.MethodPost, "inject-fault", `{"kind":"status","pathPrefix":"`+prefix+`"}`)
		if status == http.StatusOK {
			s.mu.RLock()
			armed := s.faults.armed[len(s.faults.armed)-1].PathPrefix
			s.mu.RUnlock()
			assert.True(t, strings.HasPrefix("/v1/accounts", armed), "%s armed as %q: matches no request", prefix, armed)
			continue
		}
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", prefix, body)
		assert.Contains(t, body["error"], "pathPrefix", prefix)
	}
}
