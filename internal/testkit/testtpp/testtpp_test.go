package testtpp_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
)

func TestCredentials(t *testing.T) {
	t.Parallel()
	a := testtpp.Credentials(t, "One TPP")
	b := testtpp.Credentials(t, "Other TPP")
	assert.Same(t, testtpp.Key(t), a.Key, "one key per test binary")
	assert.Same(t, a.Key, b.Key)
	assert.Equal(t, 2048, testtpp.Key(t).N.BitLen())
	assert.Equal(t, "One TPP", a.Certificate.Subject.CommonName)
	assert.NotEqual(t, a.Certificate.SerialNumber, b.Certificate.SerialNumber)
	now := time.Now()
	assert.True(t, a.Certificate.NotBefore.Before(now) && a.Certificate.NotAfter.After(now), "valid now")
	require.NoError(t, a.Certificate.CheckSignature(a.Certificate.SignatureAlgorithm, a.Certificate.RawTBSCertificate, a.Certificate.Signature), "self-signed")
}

func TestClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 3, 10, 11, 0, 0, 0, time.UTC)
	c := testtpp.NewClock(t0)
	assert.Equal(t, t0, c.Now())
	c.Add(time.Hour)
	assert.Equal(t, t0.Add(time.Hour), c.Now())
	c.Set(t0)
	assert.Equal(t, t0, c.Now())

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Add(time.Second)
			_ = c.Now()
		}()
	}
	wg.Wait()
	assert.Equal(t, t0.Add(8*time.Second), c.Now())
}

// TestMockClient does not run in parallel: httpmock's state is shared.
func TestMockClient(t *testing.T) {
	c := testtpp.MockClient(t)
	httpmock.RegisterResponder(http.MethodPost, testtpp.BaseURL+sandbox.InitializePath,
		func(req *http.Request) (*http.Response, error) {
			assert.NotEmpty(t, req.Header.Get("Signature"), "signed")
			return httpmock.NewStringResponse(http.StatusNoContent, ""), nil
		})
	sbx, err := sandbox.New(c)
	require.NoError(t, err)
	require.NoError(t, sbx.Initialize(t.Context()))
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

func TestEmulator(t *testing.T) {
	t.Parallel()
	_, c := testtpp.Emulator(t)
	sbx, err := sandbox.New(c)
	require.NoError(t, err)
	customers, err := sbx.Customers(t.Context(), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, customers)
}
