package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, run)
	assert.Contains(t, text, "payment created: RCVD, fee 2.00 EUR\n")
	assert.Contains(t, text, "status after SCA: ACTC\n")
	assert.Contains(t, text, "status after the batch: ACSC (final: true)\n")
	// 25.00 EUR at the sandbox's 11.50 NOK.
	assert.Contains(t, text, "(287.50 less)\n")
	assert.Contains(t, text, "-287.50 NOK Beispiel GmbH\n")
	assert.Equal(t, 6, strings.Count(text, "\n"))
}
