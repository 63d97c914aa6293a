package client

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinkVerbsBounded: a link keeps at most 16 verbs of at most 16
// bytes each, in a 2xx answer (Link.UnmarshalJSON) and in an error
// answer (decodeLinks) alike; the link and its href stay. Before, every
// verb was kept whole: one of megabytes within the bound on a body, or
// as many as the client's bound on members (100,000) allows.
func TestLinkVerbsBounded(t *testing.T) {
	t.Parallel()
	many := `["GET",` + strings.Repeat(`"",`, 100000) + `"DELETE"]`
	huge := `["` + strings.Repeat("G", 1<<20) + `","GET"]`
	for name, verbs := range map[string]string{"many": many, "huge": huge} {
		body := `{"_links":{"self":{"href":"/v1/signing-baskets/b1","verbs":` + verbs + `}}}`
		var ok struct {
			Links Links `json:"_links"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &ok), name)
		e := newError("x.Get", 401, "rid", nil, []byte(body))
		for form, l := range map[string]Link{"2xx": ok.Links["self"], "error": e.Links["self"]} {
			assert.Equal(t, "/v1/signing-baskets/b1", l.Href, name, form)
			assert.LessOrEqual(t, len(l.Verbs), 16, name, form)
			for _, v := range l.Verbs {
				assert.LessOrEqual(t, len(v), 16, name, form)
			}
			assert.True(t, l.Allows("GET"), name, form)
		}
	}

	var l Link
	require.NoError(t, json.Unmarshal([]byte(`{"href":"/x","verbs":["GET","DELETE"]}`), &l))
	assert.Equal(t, []string{"GET", "DELETE"}, l.Verbs, "the interface's verbs are kept as sent")
}
