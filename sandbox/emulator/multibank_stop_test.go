package emulator

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type stopReport struct {
	host string
	err  error
}

// TestMultiBankStopReport: a bank's own listener that fails (here closed
// under the server, as a failed socket is) is reported by WithStopReport
// with the bank's host, once; the bank's port then refuses connections
// while the other bank serves on. Close reports nothing.
func TestMultiBankStopReport(t *testing.T) {
	t.Parallel()
	stops := make(chan stopReport, 4)
	m, err := NewMultiBank([]string{"alpha.localhost", "beta.localhost"},
		WithStopReport(func(host string, err error) { stops <- stopReport{host, err} }))
	require.NoError(t, err)
	defer m.Close()

	a := m.Bank("alpha.localhost")
	a.out.gate.mu.Lock()
	raw := a.out.gate.l
	a.out.gate.mu.Unlock()
	require.NoError(t, raw.Close())

	select {
	case s := <-stops:
		assert.Equal(t, "alpha.localhost", s.host)
		assert.ErrorIs(t, s.err, net.ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("a bank whose listener failed was not reported")
	}
	resp, err := m.Client().Get(m.URL("beta.localhost") + "/v1/sandbox/customers")
	require.NoError(t, err, "the other bank serves on")
	resp.Body.Close()

	m.Close()
	select {
	case s := <-stops:
		t.Fatalf("reported after the failure or at Close: %s: %v", s.host, s.err)
	default:
	}
}

// TestMultiBankCloseReportsNoStop: Close is no stop, nor is an outage
// that shuts a bank's listener.
func TestMultiBankCloseReportsNoStop(t *testing.T) {
	t.Parallel()
	stops := make(chan stopReport, 4)
	m, err := NewMultiBank([]string{"alpha.localhost", "beta.localhost"},
		WithStopReport(func(host string, err error) { stops <- stopReport{host, err} }))
	require.NoError(t, err)
	require.True(t, m.Bank("alpha.localhost").out.gate.shut())
	require.True(t, m.Bank("alpha.localhost").out.gate.open())
	resp, err := m.Client().Get(m.URL("alpha.localhost") + "/v1/sandbox/customers")
	require.NoError(t, err, "the bank serves again after the outage")
	resp.Body.Close()
	m.Close()
	select {
	case s := <-stops:
		t.Fatalf("reported: %s: %v", s.host, s.err)
	default:
	}
}
