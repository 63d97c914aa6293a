package tpp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/tpp"
)

// TestWithTPPIDRefusal: a tppId no path can carry (empty, a control
// character, spaces around it, a dot segment, longer than 128 bytes) is
// refused by New with a *client.ValidationError naming the field tppId,
// quoting nothing of it; it was a plain error quoting the whole value,
// and a control character inside it was taken, every call then refused.
func TestWithTPPIDRefusal(t *testing.T) {
	long := "PSDNO-FSA-" + strings.Repeat("9", 1<<20)
	for _, bad := range []string{"", " PSDNO-FSA-1", "PSDNO-FSA-1\n", "PSDNO\x1b[2J-FSA-1", "PSDNO-FSA\x00-1", "..", long} {
		_, err := tpp.New(testtpp.MockClient(t), tpp.WithTPPID(bad))
		require.ErrorIs(t, err, client.ErrValidation, "%.40q", bad)
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "tppId", ve.Field)
		assert.NotContains(t, err.Error(), "PSDNO")
		assert.Less(t, len(err.Error()), 200)
	}
	_, err := tpp.New(testtpp.MockClient(t), tpp.WithTPPID("NO-FSA-987 654"))
	assert.NoError(t, err, "a space inside is taken")
}
