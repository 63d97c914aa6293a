package emulator

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The headers part of a Signature lists lower-case header names
// (docs/interface.md section 5.4). A signature over the right signing
// string whose list is written in another case is refused, plain or
// inside an encoded word; the lower-case list passes.
func TestSignatureHeaderListLowerCase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Case TPP")
	upper := func(charset string) reqOpt {
		return after(func(r *http.Request) {
			v := r.Header.Get("Signature")
			if d, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
				v = d // the test client may send an encoded word
			}
			i := strings.Index(v, `headers="`) + len(`headers="`)
			j := i + strings.IndexByte(v[i:], '"')
			v = v[:i] + strings.ToUpper(v[i:i+1]) + v[i+1:j] + v[j:] // "Date x-request-id ..."
			if charset != "" {
				v = "=?" + charset + "?B?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
			} else {
				v = hexPairs(v) // the issuer's "ø" as RFC 2253's \C3\B8: the value stays ASCII
			}
			r.Header.Set("Signature", v)
		})
	}
	for name, opts := range map[string][]reqOpt{
		"lower case":         nil,
		"upper case":         {upper("")},
		"upper case, a word": {upper("utf-8")},
		// Charset spellings the Signature parser reads (the alias utf8,
		// an RFC 2231 language tag) are read here too.
		"upper case, a word in utf8":     {upper("utf8")},
		"upper case, a word in UTF-8*no": {upper("UTF-8*no")},
	} {
		r := c.get("/v1/sandbox/customers", opts...)
		if opts == nil {
			assert.Equal(t, http.StatusOK, r.status, name)
			continue
		}
		assert.Equal(t, http.StatusBadRequest, r.status, name)
		code, path := r.problem(t)
		assert.Equal(t, "FORMAT_ERROR", code, name)
		assert.Equal(t, "Signature", path, name)
		assert.Contains(t, string(r.body), "lower-case header names", name)
	}
}

// hexPairs writes each non-ASCII byte of v as an RFC 2253 hex pair (\XX).
func hexPairs(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 0x80 {
			fmt.Fprintf(&b, `\%02X`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
