package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out))
	assert.Equal(t, `Høyrentekonto holds 100.00 NOK
payment created: RCVD, no fee (own accounts)
status before SCA: not readable yet (404: true)
status after SCA: ACTC (final: false)
status after the batch: ACSC (final: true, funds unavailable: false)
Høyrentekonto holds 250.00 NOK
`, out.String())
}
