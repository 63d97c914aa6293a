package main

import (
	"context"
	"io"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, func(ctx context.Context, out io.Writer) error { return run(ctx, out, 20) })
	assert.Contains(t, text, "seeded 20 PSUs with 80 accounts")
	assert.Contains(t, text, "progress: 80/80 accounts")
	assert.Regexp(t, `refreshed 80 accounts in \S+: 15\d calls`, text)
	outcome := func(name string) string {
		m := regexp.MustCompile(`(?m)^  ` + name + ` +(\d+)`).FindStringSubmatch(text)
		require.Len(t, m, 2, name)
		return m[1]
	}
	// One PSU revoked (4 accounts), one account's bank fails.
	assert.Equal(t, "75", outcome("done"))
	assert.Equal(t, "4", outcome("reconnect needed"))
	assert.Equal(t, "1", outcome("transient"))
	assert.Equal(t, "0", outcome("budget exhausted"))
	assert.Equal(t, "0", outcome("refused"))
	assert.Regexp(t, `round 4 at \+18h0m0s: done, 2 calls`, text)
	assert.Regexp(t, `round 5 at \+22h0m0s: refused locally, 0 calls sent; next call allowed at \S+ \(\+24h0m0s\)`, text)
}
