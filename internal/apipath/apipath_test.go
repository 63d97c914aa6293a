package apipath

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
)

const accountID = "enc!!Qk1eS2pMd2R4ZVY3N0hjX3Z5b2pCTjE0YjJmZ2Q-_ZZ="

func TestSegment(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		accountID:       accountID,
		"a b/c?d#e%f":   "a%20b%2Fc%3Fd%23e%25f",
		"æøå":           "%C3%A6%C3%B8%C3%A5",
		"":              "",
		"x:y@z;k=v,w+u": "x:y@z;k=v,w+u",
	}
	for in, want := range tests {
		assert.Equal(t, want, Segment(in), in)
	}
	assert.Equal(t, "/v1/accounts/"+accountID+"/balances", Join("/v1/accounts/", accountID, "balances"))
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", ".", "..", " ", " x", "x "} {
		err := Check("paymentId", id)
		var ve *client.ValidationError
		if assert.ErrorAs(t, err, &ve, "%q", id) {
			assert.Equal(t, "paymentId", ve.Field)
		}
		assert.ErrorIs(t, err, client.ErrValidation)
	}
	for _, id := range []string{accountID, "...", ".a", "a.", "a/..", "%2E%2E", "a b", "x"} {
		assert.NoError(t, Check("paymentId", id), "%q", id)
	}
}
