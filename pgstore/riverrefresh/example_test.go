package riverrefresh_test

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"os"
	"os/signal"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// Every replica of the TPP's service runs the same engine: it works the
// bank's jobs and, as River's leader when elected, enqueues each round.
// The cursors are kept in the shared store here; a TPP keeps them with
// the account's transactions.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	st, err := pgstore.New(pool)
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	creds, err := signing.LoadPEM([]byte(os.Getenv("TPP_CERT")), []byte(os.Getenv("TPP_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New("https://psd2.bank.example/api", creds, client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		log.Fatal(err)
	}
	ais, err := accounts.New(c)
	if err != nil {
		log.Fatal(err)
	}
	cursorKey := func(j *refresh.Job) string { return "tpp/cursor/" + budget.Key(j.AccountID(), j.Card()) }
	e, err := riverrefresh.New(riverrefresh.Config{
		Pool: pool, Work: true, Schedule: true,
		Banks: map[string]riverrefresh.Bank{"examplebank": {Service: ais, Sessions: st, Workers: 8}},
		Prepare: func(ctx context.Context, _ string, j *refresh.Job) error {
			raw, err := st.Get(ctx, cursorKey(j))
			if errors.Is(err, store.ErrNotStored) {
				return nil
			}
			if err != nil {
				return err
			}
			return json.Unmarshal(raw, &j.Cursor)
		},
		Handle: func(ctx context.Context, _ string, res refresh.Result) {
			if res.Outcome != refresh.Done {
				return // River snoozes, retries or cancels the job
			}
			// Store res.Booked and res.Balances, then the cursor.
			if raw, err := json.Marshal(res.Cursor); err == nil {
				_ = st.Put(ctx, cursorKey(&res.Job), raw, 0)
			}
		},
		Event: func(ev riverrefresh.Event) { log.Printf("refresh %s: %s", ev.Bank, ev.Kind) },
		// River middleware, such as River's OpenTelemetry middleware
		// (pgstore/examples/refreshworkers wires it):
		// Middleware: []rivertype.Middleware{otelriver.NewMiddleware(nil)},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := e.Migrate(ctx); err != nil { // every replica may, at start
		log.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		log.Fatal(err)
	}
	<-ctx.Done()
	_ = e.Stop(context.Background())
}
