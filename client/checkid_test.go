package client_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
)

// TestCheckID: CheckID takes the ids of the interface (enc!!<base64url>,
// UUIDs, digits, one with a space inside) and refuses, quoting nothing
// of it, one longer than MaxIDLength (a *ValueTooLongError) and one no
// path could carry (a *MalformedValueError).
func TestCheckID(t *testing.T) {
	for _, id := range []string{"enc!!08SR70DzYYmbhUSPQ_6UKnVKSeIBfrqx6f5W7jnqjbA=", "3fa85f64-5717-4562-b3fc-2c963f66afa6", "12345", "a b", "ø"} {
		assert.NoError(t, client.CheckID("paymentId", id), id)
	}
	assert.ErrorIs(t, client.CheckID("paymentId", strings.Repeat("A", client.MaxIDLength+1)), client.ErrValueTooLong)
	for _, id := range []string{"", " ", ".", "..", "AB\nCD", "AB\x1bCD", "AB\x7fCD", " ABCD", "ABCD\t", "AB\xffCD", "AB\uFFFDCD", "AB\u0085CD", "AB\u009b2J"} {
		err := client.CheckID("paymentId", id)
		var me *client.MalformedValueError
		if assert.ErrorAs(t, err, &me, "%q", id) {
			assert.ErrorIs(t, err, client.ErrMalformedValue)
			assert.Equal(t, "paymentId", me.Field)
			assert.NotContains(t, err.Error(), "AB")
		}
	}
}

// TestCheckPrintable: CheckPrintable takes printable text of any script
// and refuses, quoting nothing of it, one holding a control character
// (C0, DEL, C1) or U+FFFD (in place of bytes that are not UTF-8).
func TestCheckPrintable(t *testing.T) {
	for _, s := range []string{"", "ACSC", "acsc", "a b", "støtte@bank.no"} {
		assert.NoError(t, client.CheckPrintable("transactionStatus", s), s)
	}
	for _, s := range []string{"AB\nCD", "AB\x1b[2J", "AB\x00", "AB\x7f", "AB\u0085", "AB\u009b", "AB\xff", "AB\uFFFD"} {
		err := client.CheckPrintable("transactionStatus", s)
		var me *client.MalformedValueError
		if assert.ErrorAs(t, err, &me, "%q", s) {
			assert.Equal(t, "transactionStatus", me.Field)
			assert.NotContains(t, err.Error(), "AB")
		}
	}
}
