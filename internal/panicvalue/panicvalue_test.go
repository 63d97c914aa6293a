package panicvalue_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/internal/panicvalue"
)

func TestDescribe(t *testing.T) {
	assert.Equal(t, "panic value of type string", panicvalue.Describe("account 12345678903 of Kari Nordmann"))
	assert.Equal(t, "panic value of type *errors.errorString", panicvalue.Describe(errors.New("PSU 0b7f3a52")))
	var got any
	func() {
		defer func() { got = recover() }()
		var s []int
		_ = s[len(s)]
	}()
	assert.Equal(t, "runtime error: index out of range [0] with length 0", panicvalue.Describe(got))
}
