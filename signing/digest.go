package signing

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
)

// Digest returns the Digest header value for body per RFC 3230 and RFC 5843:
// "SHA-256=" followed by the base64 of the body's SHA-256 hash. Send it only
// with requests that have a body (docs/interface.md section 5, docs/design.md section 3).
func Digest(body []byte) string {
	const prefix = "SHA-256="
	sum := sha256.Sum256(body)
	var b [len(prefix) + 44]byte
	copy(b[:], prefix)
	base64.StdEncoding.Encode(b[len(prefix):], sum[:])
	return string(b[:])
}

// DigestSHA512 returns the SHA-512 form of the Digest header value:
// "SHA-512=" followed by the base64 of the body's SHA-512 hash.
func DigestSHA512(body []byte) string {
	const prefix = "SHA-512="
	sum := sha512.Sum512(body)
	var b [len(prefix) + 88]byte
	copy(b[:], prefix)
	base64.StdEncoding.Encode(b[len(prefix):], sum[:])
	return string(b[:])
}
