package signing

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyDigestHashesTheBodyOnce: a Digest header may name one digest
// many times (a thousand SHA-256 entries fit a 64 KiB header); each
// algorithm's digest of the body is computed once, not once per entry,
// so that such a header does not cost a thousand hashes of a 4 MiB
// answer. The verdict is the same. Before, the body was hashed once per
// entry.
func TestVerifyDigestHashesTheBodyOnce(t *testing.T) {
	hashed := map[crypto.Hash]int{}
	orig := bodyDigest
	bodyDigest = func(h crypto.Hash, body []byte) string {
		hashed[h]++
		return orig(h, body)
	}
	t.Cleanup(func() { bodyDigest = orig })

	body := []byte(`{"transactionStatus":"ACSC"}`)
	sum := sha256.Sum256(body)
	entry := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	header := strings.Repeat(entry+",", 999) + entry
	require.NoError(t, VerifyDigest(header, body))
	assert.Equal(t, map[crypto.Hash]int{crypto.SHA256: 1}, hashed)

	clear(hashed)
	wrong := strings.Repeat(entry+",", 500) + "sha-256=AAAA," + entry
	assert.ErrorIs(t, VerifyDigest(wrong, body), ErrDigestMismatch, "one wrong entry among them")
	assert.Equal(t, 1, hashed[crypto.SHA256])

	clear(hashed)
	both := entry + ",SHA-512=" + orig(crypto.SHA512, body) + "," + entry
	require.NoError(t, VerifyDigest(both, body))
	assert.Equal(t, map[crypto.Hash]int{crypto.SHA256: 1, crypto.SHA512: 1}, hashed)
}
