package sca

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRedirectLinkNeedsAHost checks that a scaRedirect whose authority
// has a port but no host name ("https://:443/...") is not handed to the
// PSU, and that NewFlow refuses such a redirect URI.
//
// Before the fix, both checked u.Host != "" only, which ":443" passes:
// the link was returned as the page to send the PSU to.
func TestRedirectLinkNeedsAHost(t *testing.T) {
	t.Parallel()
	for _, href := range []string{"https://:443/tap/x", "https://:/tap/x", "http://:8080/tap/x"} {
		_, ok := fromHref(href, nil)
		assert.False(t, ok, href)
		_, ok = find([]byte(`{"_links":{"scaRedirect":{"href":"` + href + `"}}}`))
		assert.False(t, ok, href)
	}
	_, err := NewFlow("https://:443/cb")
	assert.Error(t, err)
}
