package emulator

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMultiBankWithListener: the banks share the listener WithListener
// gives (the standalone command's -addr).
func TestMultiBankWithListener(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	m, err := NewMultiBank([]string{"alpha.localhost", "beta.localhost"}, WithListener(l))
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, l.Addr().String(), m.Addr())
	_, port, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)
	assert.Equal(t, "https://beta.localhost:"+port+"/api", m.HostURL("beta.localhost"))
	assert.Regexp(t, `^https://127\.0\.0\.1:[0-9]+/api$`, m.URL("beta.localhost"), "each bank has a loopback listener of its own")
	assert.NotEqual(t, m.URL("alpha.localhost"), m.URL("beta.localhost"))
	for _, u := range []string{m.HostURL("alpha.localhost"), m.URL("alpha.localhost")} {
		resp, err := m.Client().Get(u + "/v1/sandbox/customers")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 400, resp.StatusCode, "an unsigned request reaches the bank, which refuses it: %s", u)
	}
}
