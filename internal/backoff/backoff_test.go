package backoff_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/internal/backoff"
)

func TestExp(t *testing.T) {
	t.Parallel()
	base, ceil := 200*time.Millisecond, 5*time.Second
	for n, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second} {
		assert.Equal(t, want, backoff.Exp(n, base, ceil), "n=%d", n)
	}
	for _, n := range []int{40, 61, 62, 63, 1000, math.MaxInt, -1} {
		assert.Equal(t, ceil, backoff.Exp(n, base, ceil), "n=%d: capped, never overflowed", n)
	}
}

func TestJitter(t *testing.T) {
	t.Parallel()
	d := time.Second
	seen := map[time.Duration]bool{}
	for range 200 {
		j := backoff.Jitter(d)
		assert.GreaterOrEqual(t, j, d/2)
		assert.LessOrEqual(t, j, d)
		seen[j] = true
	}
	assert.Greater(t, len(seen), 1, "the waits differ")
	assert.Equal(t, time.Duration(1), backoff.Jitter(1))
	assert.Equal(t, time.Duration(0), backoff.Jitter(0))
}

func TestSleep(t *testing.T) {
	t.Parallel()
	assert.True(t, backoff.Sleep(t.Context(), time.Millisecond))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.False(t, backoff.Sleep(ctx, 0), "an ended context wins over a timer that is over")
	ctx, cancel = context.WithCancel(t.Context())
	go cancel()
	assert.False(t, backoff.Sleep(ctx, time.Hour))
}
