package sca

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGarbledPendingIsTyped checks that a callback whose pending SCA is
// stored in a form this version cannot read (garbled by the store, or
// the redacted JSON form) gets a typed error, ErrNoPending (the record
// is taken and no usable pending SCA is left), and the default page
// says the link cannot be used, like any other unusable callback.
//
// Before the fix, the error was the JSON decoder's, wrapped in a plain
// "sca: decoding pending SCA" error that matched none of the package's
// errors: a TPP took it for a failing store and told the PSU to try a
// callback that can never complete again.
func TestGarbledPendingIsTyped(t *testing.T) {
	t.Parallel()
	for name, stored := range map[string]string{
		"garbled":  `{"key":"user-1","state":`,
		"redacted": `{"key":"user-1","state":"[redacted]","tppSessionId":"[redacted]"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			now := t0
			m := managerAt(t, &now)
			ctx := t.Context()
			u := cb("state", okState, "psu-id", okPSU, "tpp-session-id", okSession, "context", "PRIVATE")
			require.NoError(t, m.Store().Put(ctx, pendingPrefix+okState, []byte(stored), time.Hour))
			_, err := m.CompleteFor(ctx, "user-1", u)
			require.ErrorIs(t, err, ErrNoPending)
			_, err = m.CompleteFor(ctx, "user-1", u)
			require.ErrorIs(t, err, ErrNoPending, "taken once")

			require.NoError(t, m.Store().Put(ctx, pendingPrefix+okState, []byte(stored), time.Hour))
			rec := httptest.NewRecorder()
			m.HandlerFor(func(*http.Request) (string, error) { return "user-1", nil }, nil).
				ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			assert.NotContains(t, rec.Body.String(), okPSU)
		})
	}
}
