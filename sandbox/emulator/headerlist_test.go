package emulator

import (
	"encoding/base64"
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
	upper := func(encode bool) reqOpt {
		return after(func(r *http.Request) {
			v := r.Header.Get("Signature")
			if d, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
				v = d // the test client may send an encoded word
			}
			i := strings.Index(v, `headers="`) + len(`headers="`)
			j := i + strings.IndexByte(v[i:], '"')
			v = v[:i] + strings.ToUpper(v[i:i+1]) + v[i+1:j] + v[j:] // "Date x-request-id ..."
			if encode {
				v = "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
			}
			r.Header.Set("Signature", v)
		})
	}
	for name, opts := range map[string][]reqOpt{
		"lower case":         nil,
		"upper case":         {upper(false)},
		"upper case, a word": {upper(true)},
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
	}
}
