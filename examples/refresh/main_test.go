package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/refresh"
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
	// Rounds refresh.DefaultSpacing apart (about 6 hours); the 5th, forced
	// 4 hours after the 4th, refused until the first call stops counting:
	// 24 hours and the budget's clock margin after it.
	round4 := 3 * refresh.DefaultSpacing
	assert.Regexp(t, regexp.QuoteMeta(fmt.Sprintf("round 4 at +%s: done, 2 calls", round4.Round(time.Minute))), text)
	assert.Regexp(t, regexp.QuoteMeta(fmt.Sprintf("round 5 at +%s: refused locally, 0 calls sent; next call allowed at ",
		(round4+4*time.Hour).Round(time.Minute)))+`\S+ `+regexp.QuoteMeta(fmt.Sprintf("(+%s)",
		budget.DefaultWindow+budget.ClockMargin)), text)
}
