package pgstore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// envOutboxChild names the schema a re-executed test binary consumes the
// outbox of, as the consumer that is killed (TestOutboxCrashChild).
const envOutboxChild = "PSD2_OUTBOX_CHILD_SCHEMA"

// outboxEvent is the i-th event of a test.
func outboxEvent(t testing.TB, i int) events.Envelope {
	t.Helper()
	env, err := events.Wrap(events.PaymentStatusChanged{Payment: fmt.Sprintf("req-%04d", i), From: "RCVD", To: "ACSC"}, time.Now())
	require.NoError(t, err)
	return env
}

// recordIn returns a handler that records each event in the received
// table, in the consumer's transaction: what commits there was delivered.
func recordIn(schema, consumer string, after func(n int)) pgstore.OutboxHandler {
	t := pgx.Identifier{schema, "received"}.Sanitize()
	n := 0
	return func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
		if _, err := e.Event(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+t+` (id, consumer) VALUES ($1, $2)`, e.ID, consumer); err != nil {
			return err
		}
		n++
		if after != nil {
			after(n)
		}
		return nil
	}
}

// TestOutboxCrashChild is the consumer TestOutboxExactlyOnce kills: run
// only as a child process, it takes a batch, records 10 of its events,
// says so on stdout and waits to be killed before it commits.
func TestOutboxCrashChild(t *testing.T) {
	schema := os.Getenv(envOutboxChild)
	if schema == "" {
		// TestMain leaves it out of a normal run: here, it was asked for
		// by name.
		if os.Getenv("CI") == "true" {
			t.Fatal("TestOutboxCrashChild runs only as the child process of TestOutboxExactlyOnce")
		}
		t.Skip("the child process of TestOutboxExactlyOnce")
	}
	st, err := pgstore.Open(context.Background(), pgtest.Conn(t), pgstore.WithSchema(schema))
	require.NoError(t, err)
	_, err = st.Outbox().Consume(context.Background(), 50, recordIn(schema, "child", func(n int) {
		if n == 10 {
			fmt.Println("MID-BATCH")
			os.Stdout.Sync()
			select {} // killed here, its transaction open
		}
	}))
	t.Fatalf("not killed: %v", err)
}

// TestOutboxExactlyOnce publishes events (each twice) while two consumers
// on pools of their own take them, after a third consumer, a child
// process, was killed with SIGKILL in the middle of its batch: every
// event is delivered, none twice.
func TestOutboxExactlyOnce(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 4)
	ctx := t.Context()
	pool := pgtest.Pool(t, 2)
	_, err := pool.Exec(ctx, `CREATE TABLE `+pgx.Identifier{schema, "received"}.Sanitize()+` (id text NOT NULL, consumer text NOT NULL)`)
	require.NoError(t, err)
	ob := st.Outbox()
	const total = 400
	for i := range total / 2 {
		require.NoError(t, ob.Publish(ctx, outboxEvent(t, i)))
	}

	// The consumer that dies mid-batch.
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envOutboxChild+"="+schema, pgtest.Env+"="+pgtest.Conn(t))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	mid := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "MID-BATCH") {
			mid = true
			break
		}
	}
	require.True(t, mid, "the child reached the middle of its batch")
	require.NoError(t, cmd.Process.Kill()) // SIGKILL
	_ = cmd.Wait()

	// Two consumers and a publisher, side by side; every event is
	// published twice.
	var wg sync.WaitGroup
	pubDone := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pubDone)
		for i := total / 2; i < total; i++ {
			assert.NoError(t, ob.Publish(ctx, outboxEvent(t, i)))
			assert.NoError(t, ob.Publish(ctx, outboxEvent(t, i-total/2)))
		}
	}()
	var perConsumer [2]atomic.Int64
	for c := range 2 {
		cst := newStore(t, schema, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cob := cst.Outbox()
			h := recordIn(schema, fmt.Sprint("consumer-", c), nil)
			published := false
			for {
				n, err := cob.Consume(ctx, 7, h)
				if !assert.NoError(t, err) {
					return
				}
				perConsumer[c].Add(int64(n))
				if n > 0 {
					continue
				}
				if published {
					return // nothing pending after the last publication
				}
				select {
				case <-pubDone:
					published = true
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
	}
	wg.Wait()

	var rows, distinct, child int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE consumer = 'child') FROM `+
		pgx.Identifier{schema, "received"}.Sanitize()).Scan(&rows, &distinct, &child))
	pending, all, err := ob.Pending(ctx)
	require.NoError(t, err)
	lost, duplicated := total-distinct, rows-distinct
	t.Logf("outbox: %d events published twice each, %d delivered (consumer 0: %d, consumer 1: %d, killed child: %d committed), lost %d, duplicated %d",
		total, rows, perConsumer[0].Load(), perConsumer[1].Load(), child, lost, duplicated)
	assert.Zero(t, child, "the killed consumer committed nothing")
	assert.Zero(t, lost, "lost")
	assert.Zero(t, duplicated, "duplicated")
	assert.Zero(t, pending)
	assert.EqualValues(t, total, all, "a second publication of an event adds nothing")
	assert.Positive(t, perConsumer[0].Load())
	assert.Positive(t, perConsumer[1].Load())
}

// TestOutboxHandlerErrorSkipsEvent checks that an event whose handler
// fails stays pending, while those before and after it (of other keys)
// are delivered; it is taken again after its pause (none here).
func TestOutboxHandlerErrorSkipsEvent(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0))
	ctx := t.Context()
	ob := st.Outbox()
	for i := range 5 {
		require.NoError(t, ob.Publish(ctx, outboxEvent(t, i)))
	}
	var seen []string
	n, err := ob.Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		if e.ID == outboxEvent(t, 2).ID {
			return fmt.Errorf("mailer down")
		}
		seen = append(seen, e.ID)
		return nil
	})
	require.ErrorContains(t, err, "mailer down")
	var he *pgstore.HandlerError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, pgstore.HandlerError{ID: outboxEvent(t, 2).ID, Kind: events.KindPaymentStatusChanged, Attempt: 1, Err: he.Err}, *he)
	assert.Equal(t, 4, n)
	pending, _, err := ob.Pending(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, pending)
	var again []string
	n, err = ob.Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		again = append(again, e.ID)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{outboxEvent(t, 2).ID}, again)
	assert.NotContains(t, seen, again[0])

	pruned, err := ob.Prune(ctx, 0)
	require.NoError(t, err)
	assert.EqualValues(t, 5, pruned)
}

// TestOutboxAsEmitterSink wires an events.Emitter to the outbox.
func TestOutboxAsEmitterSink(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 2)
	ctx := t.Context()
	em, err := events.NewEmitter(st.Outbox(), events.WithStore(st))
	require.NoError(t, err)
	require.NoError(t, em.Consent(ctx, "consent-1", time.Now().Add(-time.Hour)))
	require.NoError(t, em.Consent(ctx, "consent-1", time.Now().Add(-time.Hour)))
	var got []events.Event
	_, err = st.Outbox().Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		ev, err := e.Event()
		got = append(got, ev)
		return err
	})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.IsType(t, events.ConsentExpired{}, got[0])
}
