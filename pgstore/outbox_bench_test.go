package pgstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// BenchmarkOutboxDelivery publishes 1000 events per op and drains them
// with two consumers on pools of their own (batches of 50), reporting
// published and delivered events per second.
func BenchmarkOutboxDelivery(b *testing.B) {
	schema := pgtest.Schema(b)
	st := newStore(b, schema, 4)
	ob := st.Outbox()
	c1, c2 := newStore(b, schema, 2).Outbox(), newStore(b, schema, 2).Outbox()
	ctx := context.Background()
	const per = 1000
	var pubTime, drainTime time.Duration
	next := 0
	for b.Loop() {
		t0 := time.Now()
		for range per {
			require.NoError(b, ob.Publish(ctx, outboxEvent(b, next)))
			next++
		}
		t1 := time.Now()
		var wg sync.WaitGroup
		for _, c := range []*pgstore.Outbox{c1, c2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					n, err := c.Consume(ctx, 50, func(context.Context, pgx.Tx, events.Envelope) error { return nil })
					if err != nil {
						b.Error(err)
						return
					}
					if n == 0 {
						return
					}
				}
			}()
		}
		wg.Wait()
		pubTime += t1.Sub(t0)
		drainTime += time.Since(t1)
	}
	pending, _, err := ob.Pending(ctx)
	require.NoError(b, err)
	require.Zero(b, pending)
	b.ReportMetric(float64(next)/pubTime.Seconds(), "published/s")
	b.ReportMetric(float64(next)/drainTime.Seconds(), "delivered/s")
}
