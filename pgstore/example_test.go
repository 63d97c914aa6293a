package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

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
