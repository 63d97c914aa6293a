// Command replicas is the replicas example of the core module
// (examples/replicas) on PostgreSQL: two "replicas" of one TPP's service,
// each with its own connection pool to one database, against the
// embedded emulator. An SCA started on one replica is completed by the
// callback on the other, the 4-calls-a-day budget of an account is spent
// by both together, and a payment whose outcome one replica lost is
// resolved by the other from the payment journal.
//
// It reads the server from PSD2_TEST_POSTGRES (a pgx connection string)
// and works in a schema of its own, dropped at the end. Without the
// variable it says so and uses a store.FileStore in a temporary directory
// instead.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tppkit/psd2/internal/testkit/replicademo"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/store"
)

func main() {
	if err := run(context.Background(), os.Stdout, os.Getenv("PSD2_TEST_POSTGRES")); err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		os.Exit(1)
	}
}

// run runs the example on the PostgreSQL server of conn, or on a file
// store when conn is empty.
func run(ctx context.Context, out io.Writer, conn string) error {
	if conn == "" {
		fmt.Fprintln(out, "PSD2_TEST_POSTGRES is unset: the shared database is a file store in a temporary directory")
		dir, err := os.MkdirTemp("", "psd2-replicas-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		return replicademo.Run(ctx, out, replicademo.Database{
			Name: "a file store",
			Open: func(context.Context) (store.Store, error) { return store.NewFileStore(filepath.Join(dir, "db")) },
		})
	}

	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	schema := "replicas_example_" + hex.EncodeToString(b[:])
	defer dropSchema(conn, schema)
	var opened []*pgstore.Store
	defer func() {
		for _, st := range opened {
			st.Close()
		}
	}()
	return replicademo.Run(ctx, out, replicademo.Database{
		Name: "one PostgreSQL database",
		Open: func(ctx context.Context) (store.Store, error) {
			st, err := pgstore.Open(ctx, conn, pgstore.WithSchema(schema))
			if err != nil {
				return nil, err
			}
			opened = append(opened, st)
			// Every replica migrates at start-up; the advisory lock makes
			// that safe.
			return st, st.Migrate(ctx)
		},
	})
}

// dropSchema removes the example's schema and everything in it.
func dropSchema(conn, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicas: dropping the example's schema:", err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		fmt.Fprintln(os.Stderr, "replicas: dropping the example's schema:", err)
	}
}
