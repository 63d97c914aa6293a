package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, run)
	assert.Contains(t, text, "SCA complete in PRIVATE context")
	assert.Contains(t, text, "Brukskonto (")
	assert.Contains(t, text, "Høyrentekonto (")
	// The savings account holds 100.00 NOK and has no recent history.
	assert.Contains(t, text, "booked     100.00 NOK")
	m := regexp.MustCompile(`(\d+) booked transactions in the last 30 days`).FindAllStringSubmatch(text, -1)
	require.Len(t, m, 2)
	assert.NotEqual(t, "0", m[0][1], "the current account has recent transactions")
	assert.Equal(t, "0", m[1][1])
}
