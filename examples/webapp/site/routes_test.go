package site

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoutes: a route is served beside the site, which serves every other
// path; "/", a nil handler and a pattern http.ServeMux refuses are errors,
// not panics.
func TestRoutes(t *testing.T) {
	t.Parallel()
	site := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "site") })
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "metrics") })
	h, err := withRoutes(site, map[string]http.Handler{"GET /metrics": metrics})
	require.NoError(t, err)
	for path, want := range map[string]string{"/metrics": "metrics", "/": "site", "/accounts": "site"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, want, rec.Body.String(), path)
	}
	for _, bad := range []map[string]http.Handler{{"/": metrics}, {"/metrics": nil}, {"GET /{x": metrics}} {
		_, err := withRoutes(site, bad)
		assert.Error(t, err)
	}
}
