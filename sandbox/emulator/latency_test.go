package emulator

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestLatencyDistribution: the draws of a slow bank have the median and
// 99th percentile asked for (10,000 draws of a seeded source), a P99
// below P50 gives a fixed delay, and no draw passes maxLatency.
func TestLatencyDistribution(t *testing.T) {
	t.Parallel()
	l := Latency{P50: 200 * time.Millisecond, P99: 2 * time.Second}
	assert.Equal(t, l.P50, l.draw(0))
	assert.InDelta(t, float64(l.P99), float64(l.draw(z99)), float64(time.Microsecond))

	rng := rand.New(rand.NewPCG(1, 2))
	draws := make([]time.Duration, 10_000)
	for i := range draws {
		draws[i] = l.draw(rng.NormFloat64())
	}
	slices.Sort(draws)
	assert.InEpsilon(t, float64(l.P50), float64(draws[5_000]), 0.05)
	assert.InEpsilon(t, float64(l.P99), float64(draws[9_900]), 0.15)

	fixed := Latency{P50: time.Second, P99: time.Millisecond}
	assert.Equal(t, time.Second, fixed.draw(3))
	assert.Equal(t, maxLatency, Latency{P50: time.Minute, P99: time.Hour}.draw(10))
	assert.Equal(t, time.Duration(0), Latency{}.draw(1))
}

func TestOutageKindNames(t *testing.T) {
	t.Parallel()
	for k := OutageRefused; k <= lastOutage; k++ {
		got, err := ParseOutageKind(k.String())
		assert.NoError(t, err)
		assert.Equal(t, k, got)
	}
	got, err := ParseOutageKind("503")
	assert.NoError(t, err)
	assert.Equal(t, OutageUnavailable, got)
	_, err = ParseOutageKind("down")
	assert.Error(t, err)
	assert.Equal(t, "OutageKind(9)", OutageKind(9).String())
}
