// Package signing signs and verifies requests the way the PSD2 interface
// requires (docs/interface.md section 5): draft-cavage HTTP signatures with
// rsa-sha256, the keyId built from a TPP's eIDAS certificate, and the Digest
// header.
//
// # Credentials
//
// [LoadPEM] and [LoadPKCS12] read an eIDAS certificate (QSealC)
// with its chain and RSA key into [Credentials]; any crypto.Signer works, so
// a key in an HSM or KMS can sign.
//
// # Key id
//
// [KeyID] renders "SN=<serial>,CA=<issuer DN>" with the issuer in
// strict RFC 2253, byte for byte as Java's X500Principal writes it;
// [KeyIDOpenSSL] gives OpenSSL's display form; [MatchKeyID] accepts either
// by comparing the parsed issuer with the certificate's.
//
// # Signing
//
// A [Signer] sets the Signature header over date, digest,
// x-request-id, psu-id, psu-corporate-id and tpp-redirect-uri (those
// present), or over any list given with [WithHeaders]. A value with non-ASCII
// characters is sent as one RFC 2047 encoded word.
//
// # Verifying
//
// [Verify], [ParseSignature] and [VerifyDigest] check what a peer
// sent; the emulator and the client's response verification use them.
package signing
