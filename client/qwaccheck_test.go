package client

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// TestSetQWACChecksValidityAndKey: SetQWAC and New(WithQWAC) refuse an
// expired or not-yet-valid QWAC (as SetCredentials refuses such a signing
// certificate) and one whose key is not the certificate's, and keep the
// QWAC they had; a valid one is taken.
func TestSetQWACChecksValidityAndKey(t *testing.T) {
	t.Parallel()
	now := time.Now()
	expired := tls.Certificate{Certificate: [][]byte{certFor(t, testKey(1), now.Add(-48*time.Hour), now.Add(-24*time.Hour)).Raw}, PrivateKey: testKey(1)}
	future := tls.Certificate{Certificate: [][]byte{certFor(t, testKey(1), now.Add(24*time.Hour), now.Add(48*time.Hour)).Raw}, PrivateKey: testKey(1)}
	valid := tls.Certificate{Certificate: [][]byte{certFor(t, testKey(1), now.Add(-time.Hour), now.Add(24*time.Hour)).Raw}, PrivateKey: testKey(1)}
	wrongKey := tls.Certificate{Certificate: valid.Certificate, PrivateKey: testKey(2)}
	notSigner := tls.Certificate{Certificate: valid.Certificate, PrivateKey: "key"}

	c, err := New("https://bank.example", testCreds(t, 0), WithQWAC(valid))
	require.NoError(t, err)
	first := c.qwac.Load()
	require.NotNil(t, first)

	assert.ErrorIs(t, c.SetQWAC(expired), signing.ErrCertExpired)
	assert.ErrorIs(t, c.SetQWAC(future), signing.ErrCertNotYetValid)
	assert.ErrorContains(t, c.SetQWAC(wrongKey), "does not match")
	assert.ErrorContains(t, c.SetQWAC(notSigner), "cannot sign")
	assert.Same(t, first, c.qwac.Load(), "a refused QWAC leaves the current one")

	_, err = New("https://bank.example", testCreds(t, 0), WithQWAC(expired))
	assert.ErrorIs(t, err, signing.ErrCertExpired)
	_, err = New("https://bank.example", testCreds(t, 0), WithQWAC(wrongKey))
	assert.Error(t, err)

	// The client's clock decides: on a clock a day and a half back the
	// expired QWAC is valid.
	creds := &signing.Credentials{Certificate: certFor(t, testKey(0), now.Add(-72*time.Hour), now.Add(72*time.Hour)), Key: testKey(0)}
	c, err = New("https://bank.example", creds, WithClock(func() time.Time { return now.Add(-36 * time.Hour) }))
	require.NoError(t, err)
	require.NoError(t, c.SetQWAC(expired))

	c, err = New("https://bank.example", testCreds(t, 0))
	require.NoError(t, err)
	require.NoError(t, c.SetQWAC(valid))
	assert.NotNil(t, c.qwac.Load())
}
