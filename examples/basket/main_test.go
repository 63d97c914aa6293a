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
	assert.Equal(t, `payment 1: 500.00 NOK from Høyrentekonto, RCVD
payment 2: 200.00 NOK from Brukskonto, RCVD
payment 3: 300.00 NOK from Brukskonto, RCVD
basket of 3 payments: RCVD
after one SCA the basket is ACTC
after batch run 1:
  payment 1: ACCP (waiting for funds; the next batch tries again)
  payment 2: ACSC
  payment 3: ACSC
after batch run 2:
  payment 1: ACSC
  payment 2: ACSC
  payment 3: ACSC
`, out.String())
}
