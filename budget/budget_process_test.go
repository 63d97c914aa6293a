package budget_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/childproc"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/store"
)

// Environment of the helper processes of TestBudgetAcrossProcesses.
const (
	helperEnv    = "PSD2_BUDGET_HELPER" // the store directory
	helperBank   = "PSD2_BUDGET_BANK"   // the bank's base URL
	helperLimit  = 20                   // budget limit of the test
	helperCalls  = 30                   // calls each helper tries
	helperWorker = 3                    // goroutines per helper
)

// TestHelperProcess is not a test: it is the body of the processes that
// TestBudgetAcrossProcesses starts from the test binary. It spends the
// budget of one account, kept in a store.FileStore (the client's store),
// against the parent's bank.
// Protocol: it prints "ready", waits for a line on stdin, then calls and
// prints "result <granted> <refused>".
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // run as an ordinary test: nothing to do
	}
	fs, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(os.Getenv(helperBank), testtpp.Credentials(t, "Accounts test TPP"),
		client.WithHTTPClient(&http.Client{}), client.WithRetryPolicy(client.RetryPolicy{}), client.WithStore(fs))
	require.NoError(t, err)
	svc := newService(t, c, budget.WithLimit(helperLimit, budget.DefaultWindow))

	fmt.Println("ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)

	var granted, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range helperWorker {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < helperCalls; i += helperWorker {
				_, err := svc.Balances(t.Context(), acc1, psuAbsent()...)
				switch {
				case err == nil:
					granted.Add(1)
				case errors.Is(err, budget.ErrExhausted):
					refused.Add(1)
				default:
					t.Errorf("balances: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("result %d %d\n", granted.Load(), refused.Load())
}

// TestBudgetAcrossProcesses: two processes spend one account's budget
// kept in one FileStore directory; together they are granted exactly the
// limit, and only those calls reach the bank.
func TestBudgetAcrossProcesses(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	dir := filepath.Join(t.TempDir(), "store")
	_, err := store.NewFileStore(dir)
	require.NoError(t, err)

	hs := childproc.Start(t, 2, "TestHelperProcess", helperEnv+"="+dir, helperBank+"="+bank.srv.URL+"/api")
	for _, h := range hs {
		_, err := io.WriteString(h.Stdin, "go\n")
		require.NoError(t, err)
	}
	var granted, refused int
	for i, h := range hs {
		f := strings.Fields(h.Line(t, "result "))
		require.Len(t, f, 3)
		g, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		r, err := strconv.Atoi(f[2])
		require.NoError(t, err)
		granted += g
		refused += r
		require.NoError(t, h.Cmd.Wait(), "helper %d", i)
	}
	assert.Equal(t, helperLimit, granted, "granted calls across both processes")
	assert.Equal(t, 2*helperCalls-helperLimit, refused)
	assert.Equal(t, int64(helperLimit), bank.balances.Load(), "calls that reached the bank")

	// The store agrees: nothing is left of the budget.
	fs, err := store.NewFileStore(dir)
	require.NoError(t, err)
	svc := newService(t, bank.client(t, client.WithStore(fs)), budget.WithLimit(helperLimit, budget.DefaultWindow))
	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Remaining)
}
