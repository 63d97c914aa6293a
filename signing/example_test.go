package signing_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"

	"github.com/tppkit/psd2/signing"
)

// ExampleSigner_Sign signs the request of draft-cavage-http-signatures-12
// Appendix C with the draft's published test key; RSA PKCS #1 v1.5 is
// deterministic, so the signature is the draft's (C.2).
func ExampleSigner_Sign() {
	data, err := os.ReadFile("testdata/draft-cavage-test-key.pem")
	if err != nil {
		panic(err)
	}
	block, _ := pem.Decode(data)
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		panic(err)
	}
	s, err := signing.NewSigner(key, "Test", signing.WithHeaders("(request-target)", "host", "date"))
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://example.com/foo?param=value&pet=dog", nil)
	req.Header.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	if err := s.Sign(req); err != nil {
		panic(err)
	}
	fmt.Println(req.Header.Get("Signature"))
	fmt.Println(signing.Verify(req, &key.PublicKey))
	// Output:
	// keyId="Test",algorithm="rsa-sha256",headers="(request-target) host date",signature="qdx+H7PHHDZgy4y/Ahn9Tny9V3GP6YgBPyUXMmoxWtLbHpUnXS2mg2+SbrQDMCJypxBLSPQR2aAjn7ndmw2iicw3HMbe8VfEdKFYRqzic+efkb3nndiv/x1xSHDJWeSWkx3ButlYSuBskLu6kd9Fswtemr3lgdDEmn04swr2Os0="
	// <nil>
}

// ExampleDigest computes the Digest header of a body.
func ExampleDigest() {
	fmt.Println(signing.Digest([]byte(`{"hello": "world"}`)))
	// Output: SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=
}
