package main

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, func(ctx context.Context, out io.Writer) error { return run(ctx, out, 20) })
	assert.Contains(t, text, "40 accounts to refresh")
	// Detection within 5 requests of the outage's start; the probe that
	// closes the breaker comes within its 5 s of the outage's end (1 min).
	assert.Contains(t, text, "+4s breaker closed -> open (5 failed requests)")
	m := regexp.MustCompile(`\+1m(\d+)s breaker half-open -> closed`).FindStringSubmatch(text)
	require.Len(t, m, 2, text)
	end, _ := strconv.Atoi(m[1])
	assert.LessOrEqual(t, end, 5, "the end within 5 s of the outage's")
	assert.Contains(t, text, "round 2: 0 accounts not refreshed", "every account refreshed once the bank is back")
	assert.Contains(t, text, "unavailable: 1 time(s)")
	assert.Regexp(t, `(?m)^  \S+ to \S+, \d+ failed request\(s\), the last at \S+$`, text)
}
