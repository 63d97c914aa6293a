package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, run)
	assert.Contains(t, text, "SCA complete in CORPORATE context, PSU-Corporate-ID set: true")
	assert.Contains(t, text, "2 agreements:")
	assert.Contains(t, text, "the bank asks for SCA (true)")
	// The first agreement covers both accounts, the second only the first.
	before, after, ok := strings.Cut(text, "switching to")
	require.True(t, ok)
	assert.Contains(t, before, "2 accounts under the agreement:")
	assert.Contains(t, after, "1 accounts under the agreement:")
}
