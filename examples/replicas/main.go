// Command replicas runs two "replicas" of one TPP's service against the
// embedded emulator, each with its own client of one shared database:
// an SCA started on one replica is completed by the callback on the
// other, the 4-calls-a-day budget of an account is spent by both
// together, and a payment whose outcome one replica lost is resolved by
// the other from the payment journal.
//
// The core module carries no database driver, so the shared database
// here is a store.FileStore in a temporary directory (two FileStores on
// one directory are two clients, as two processes would be). With
// PostgreSQL, the same program is among pgstore's example programs (a
// module of their own):
//
//	cd pgstore/examples && PSD2_TEST_POSTGRES='host=/run/postgresql dbname=tpp' go run ./replicas
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/internal/testkit/replicademo"
	"github.com/tppkit/psd2/store"
)

func main() {
	if os.Getenv("PSD2_TEST_POSTGRES") == "" {
		fmt.Println("PSD2_TEST_POSTGRES is unset: the shared database is a file store in a temporary directory")
	} else {
		fmt.Println("PSD2_TEST_POSTGRES is set, but this module has no PostgreSQL driver: the shared database is a file store in a temporary directory (cd pgstore/examples && go run ./replicas uses PostgreSQL)")
	}
	demo.Main("replicas", run)
}

// run is the example on a file store in a temporary directory.
func run(ctx context.Context, out io.Writer) error {
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
