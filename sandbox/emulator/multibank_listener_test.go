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
	assert.Equal(t, "https://beta.localhost:"+port+"/api", m.URL("beta.localhost"))
	resp, err := m.Client().Get(m.URL("alpha.localhost") + "/v1/sandbox/customers")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode, "an unsigned request reaches the bank, which refuses it")
}
