package signing

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
)

// Digest returns the Digest header value for body per RFC 3230 and RFC 5843:
// "SHA-256=" followed by the base64 of the body's SHA-256 hash.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

// DigestSHA512 returns the SHA-512 form of the Digest header value.
func DigestSHA512(body []byte) string {
	sum := sha512.Sum512(body)
	return "SHA-512=" + base64.StdEncoding.EncodeToString(sum[:])
}
