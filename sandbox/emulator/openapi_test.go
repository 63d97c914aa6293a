package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServesOpenAPI: GET /openapi.json beside the /api base path answers
// the interface's OpenAPI 3.1 description, without credentials; other
// methods are 405.
func TestServesOpenAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	root := strings.TrimSuffix(s.URL, apiPrefix)
	resp, err := s.Client().Get(root + OpenAPIPath)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	assert.Contains(t, doc.Paths, "/v1/bank-offered-consents")
	assert.Contains(t, doc.Paths["/v1/{payment-service}/{payment-product}"], "post")

	resp, err = s.Client().Post(root+OpenAPIPath, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
