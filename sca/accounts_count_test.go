package sca_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sca"
)

// TestWithAccountsLongListing gives WithAccounts a listing of far more
// distinct ids than a Session keeps, as a bank's account listing of a
// few MiB can hold: it is refused (ErrInvalidSession) at once. Dropping
// the repeats compared each id with every one kept before it, time
// growing with the square of the count: this listing took minutes of
// CPU before the bound on the count refused it.
func TestWithAccountsLongListing(t *testing.T) {
	t.Parallel()
	s := consentSession(time.Now())
	many := make([]string, 300_000)
	for i := range many {
		many[i] = "enc!!" + strconv.Itoa(i)
	}
	done := make(chan error, 2)
	go func() {
		_, err := s.WithAccounts(many, nil)
		done <- err
		_, err = s.WithAccounts(nil, many)
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			assert.ErrorIs(t, err, sca.ErrInvalidSession)
		case <-time.After(10 * time.Second):
			t.Fatal("WithAccounts of 300000 ids did not return within 10 s")
		}
	}

	// Repeats still count once: a listing of one id many times is that id.
	same := make([]string, 300_000)
	for i := range same {
		same[i] = "enc!!a="
	}
	got, err := s.WithAccounts(same, same[:sca.MaxAccounts+5])
	require.NoError(t, err)
	assert.Equal(t, []string{"enc!!a="}, got.AccountIDs)
	assert.Equal(t, []string{"enc!!a="}, got.CardAccountIDs)
}
