package emulator

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryAnswerDatedByTheServerClock: every answer's Date is the
// server's own clock (WithClock, the wire's), whatever the bank's clock
// controls did: the API's answers, the SCA page, the OpenAPI document
// and a path the emulator does not serve. Before, the SCA page and the
// OpenAPI answer were dated by the bank's clock (two days ahead here),
// and a path outside the routes by the machine's clock (net/http's
// default), so a client learning the bank's time from Date (or judging
// an SCA page's freshness) read another clock on each.
func TestEveryAnswerDatedByTheServerClock(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	clk.Add(-3 * time.Hour) // not the machine's time
	s := startServer(t, WithClock(clk.Now))
	s.Control().Advance(48 * time.Hour)
	want := clk.Now().UTC().Format(http.TimeFormat)
	root := strings.TrimSuffix(s.URL, apiPrefix)
	for _, path := range []string{
		apiPrefix + "/v1/accounts",
		OpenAPIPath,
		scaPagePath + "?state=unknown",
		"/not-served",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			req, err := http.NewRequestWithContext(t.Context(), method, root+path, nil)
			require.NoError(t, err)
			resp, err := s.Client().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, want, resp.Header.Get("Date"), "%s %s (%d)", method, path, resp.StatusCode)
		}
	}
}
