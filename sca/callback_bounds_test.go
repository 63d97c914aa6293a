package sca

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestCallbackFailureBounded: the values of a failure redirect are held
// to what the interface says they are. Its message, free text that is
// only shown, is cut to client.MaxTextLength characters as the bank's
// other text for the PSU is (a callback URL of 8 KiB kept almost as much
// of it in the CallbackError), and its status is an HTTP status, three
// digits from 100 to 599 as the client takes a status code: 999, 600,
// "+401" and "0401" were taken as the bank's status.
func TestCallbackFailureBounded(t *testing.T) {
	t.Parallel()
	f, err := NewFlow(base, withNow(func() time.Time { return t0.Add(time.Minute) }))
	require.NoError(t, err)

	long := strings.Repeat("Avbrutt ", 500)
	_, err = f.ParseCallback(pendingFor(failState), cb("state", failState, "status", "401", "code", "SCA_INVALID",
		"message", url.QueryEscape(long)))
	var ce *CallbackError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, client.MaxTextLength, utf8.RuneCountInString(ce.Message))
	assert.True(t, strings.HasSuffix(ce.Message, "…"))
	assert.Equal(t, 401, ce.Status)

	for _, status := range []string{"100", "401", "599"} {
		_, err := f.ParseCallback(pendingFor(failState), cb("state", failState, "status", status))
		require.True(t, errors.As(err, &ce), status)
	}
	for _, status := range []string{"600", "999", "099", "+401", "0401", "40 ", "4e2"} {
		_, err := f.ParseCallback(pendingFor(failState), cb("state", failState, "status", url.QueryEscape(status), "code", "SCA_INVALID"))
		assert.ErrorIs(t, err, ErrMalformedCallback, status)
	}
}
