package client

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusalNeedsExactTPPMessages: a create's 4xx proves the bank did
// not act only with its tppMessages under the interface's name, and no
// other member of that name in another case. encoding/json reads a
// member whatever its case, the last of them winning, so a body naming
// "TPPMessages" alone, or both spellings, was taken as the bank's
// refusal on the code before: a plain *Error, which a journal records as
// refused (nothing created) and a caller may send again. It is now
// outcome unknown with its status; the *Error it wraps still shows the
// messages. The interface's spelling alone stays a refusal.
func TestRefusalNeedsExactTPPMessages(t *testing.T) {
	t.Parallel()
	msg := `[{"category":"ERROR","code":"FORMAT_ERROR"}]`
	for _, tt := range []struct {
		name, body string
		refused    bool
	}{
		{"the interface's name", `{"tppMessages":` + msg + `}`, true},
		{"another case alone", `{"TPPMessages":` + msg + `}`, false},
		{"two cases", `{"tppMessages":` + msg + `,"TppMessages":` + msg + `}`, false},
		{"two cases, the other first", `{"tppmessages":[],"tppMessages":` + msg + `}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, tt.body)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, http.StatusBadRequest, e.StatusCode)
			assert.Equal(t, !tt.refused, errors.Is(err, ErrOutcomeUnknown), "outcome unknown: %v", err)
			assert.EqualValues(t, 1, b.count.Load())
		})
	}
}
