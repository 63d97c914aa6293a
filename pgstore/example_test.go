package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
)

// Open a store on the TPP's database, migrate it (every replica may do
// so at start-up), and hand it to the SDK: client.WithStore(st) for the
// budget, sca.NewManager(flow, st) for sessions and pending SCAs,
// journal.New(st, journal.WithClient(c)) for the journal. The example needs a server
// (DATABASE_URL), so it is compiled but not run by go test.
func Example() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		log.Fatal(err)
	}

	// A pending SCA saved by one replica is taken by exactly one other.
	if err := st.Put(ctx, "sca/pending/state-1", []byte(`{"key":"user-42"}`), 15*time.Minute); err != nil {
		log.Fatal(err)
	}
	v, err := st.Take(ctx, "sca/pending/state-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(v))
}

// Consume the outbox on every replica, count each attempt by outcome
// (the observer is the seam for an OpenTelemetry counter and for logging
// the handler's errors), and let an operator list and retry the events
// the handler refused every time (psd2 outbox list, psd2 outbox retry).
// Compiled, not run: it needs a server.
func ExampleOutbox_DeadLetters() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"),
		pgstore.WithOutboxMaxAttempts(pgstore.DefaultMaxAttempts),
		pgstore.WithOutboxObserver(func(_ context.Context, a pgstore.OutboxAttempt) {
			if a.Err != nil {
				log.Printf("event %s (%s), attempt %d: %s: %v", a.ID, a.Kind, a.Attempt, a.Outcome, a.Err)
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ob := st.Outbox()
	go func() {
		_ = ob.Run(ctx, 50, time.Second, func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
			ev, err := e.Event()
			if err != nil {
				return err // an unknown kind: a dead letter after its attempts
			}
			_, err = tx.Exec(ctx, `INSERT INTO tpp_inbox (event_id, kind) VALUES ($1, $2)`, e.ID, string(ev.Kind()))
			return err
		})
	}()

	s, err := ob.Stats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if s.Dead > 0 {
		dead, err := ob.DeadLetters(ctx, 100)
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range dead {
			fmt.Printf("%s %s: %d attempts, holds %d\n", d.ID, d.Kind, d.Attempts, d.Holds)
			if err := ob.Retry(ctx, d.ID); err != nil {
				log.Fatal(err)
			}
		}
	}
}
