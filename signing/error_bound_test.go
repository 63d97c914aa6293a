package signing

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBankTextInErrorsBounded: an error of reading a peer's Signature
// quotes at most a bounded part of its text (a name, a charset), however
// long the value: it quoted up to 16 KiB of it.
func TestBankTextInErrorsBounded(t *testing.T) {
	long := strings.Repeat("x", 15<<10)
	sig := `signature="c2ln"`
	const bound = 1 << 10
	for name, value := range map[string]string{
		"unquoted":      `keyId="k",` + long + `=1`,
		"unterminated":  `keyId="k",` + long + `="1`,
		"twice":         `keyId="k",` + long[:7<<10] + `="1",` + long[:7<<10] + `="2",` + sig,
		"no comma":      `keyId="k",` + long + `="1" ` + sig,
		"headers name":  `keyId="k",headers="date ` + long + `/",` + sig,
		"charset":       `=?` + long + `?B?YQ==?=`,
		"encoded word":  `=?utf-8?X?` + long + `?=`,
		"twice listed":  `keyId="k",headers="` + long[:7<<10] + ` ` + long[:7<<10] + `",` + sig,
		"missing field": `keyId="k",headers="` + long + `",` + sig,
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{"Signature": {value}}
			err := VerifyHeader(h, &testKey(0).PublicKey)
			require.Error(t, err)
			assert.Less(t, len(err.Error()), bound, "error text: %.300s", err.Error())
		})
	}
}
