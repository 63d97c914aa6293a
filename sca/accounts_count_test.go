package sca_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sca"
)

// TestWithAccountsLongListing gives WithAccounts a list of far more
// distinct ids than a Session keeps: it is refused (ErrInvalidSession)
// at once. Dropping the repeats compared each id with every one kept
// before it, time growing with the square of the count: this list took
// minutes of CPU before the bound on the count refused it (a bank's
// listing, at most 20,000 accounts within the client's limits on an
// answer, half a second).
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

// TestWithAccountsRefusesUnusableIDs: an id of the bank's listing that
// no later call could put in a path (spaces around it, bytes that are
// not UTF-8, a dot segment, a C1 control character) is refused by
// WithAccounts (ErrInvalidSession, naming no id), as one with a C0
// control character was: it was stored, and every background refresh
// of it refused before sending.
func TestWithAccountsRefusesUnusableIDs(t *testing.T) {
	t.Parallel()
	s := consentSession(time.Now())
	for _, bad := range []string{" enc!!a=", "enc!!a= ", "enc!!\xffa", "enc!!\uFFFDa", "..", "enc!!\u0085a"} {
		_, err := s.WithAccounts([]string{"enc!!ok=", bad}, nil)
		assert.ErrorIs(t, err, sca.ErrInvalidSession, "%q", bad)
		if err != nil {
			assert.NotContains(t, err.Error(), "enc!!")
		}
		_, err = s.WithAccounts(nil, []string{bad})
		assert.ErrorIs(t, err, sca.ErrInvalidSession, "%q", bad)
	}
	got, err := s.WithAccounts([]string{"enc!!a b="}, nil)
	require.NoError(t, err, "a space inside is taken")
	assert.Equal(t, []string{"enc!!a b="}, got.AccountIDs)
}
