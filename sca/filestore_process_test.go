package sca

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/childproc"
)

// Environment and sizes of the helper processes of
// TestFileStoreAcrossProcesses.
const (
	helperEnv     = "PSD2_SCA_FILESTORE_HELPER" // the store directory
	helperStates  = 60                          // pending SCAs to take
	helperAdds    = 40                          // counter increments per helper
	helperWorkers = 2                           // goroutines per helper
	counterKey    = "test/counter"
)

// pendingState is the state of the i-th pending SCA of the test.
func pendingState(i int) string { return fmt.Sprintf("state-%03d", i) }

// TestHelperProcess is not a test: it is the body of the processes that
// TestFileStoreAcrossProcesses starts from the test binary. It prints
// "ready", waits for a line on stdin, then, with helperWorkers goroutines,
// takes every pending SCA it can and adds helperAdds to a counter with
// Update, and prints "taken <states>" and "done".
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // run as an ordinary test: nothing to do
	}
	st, err := NewFileStore(dir)
	require.NoError(t, err)
	fmt.Println("ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)

	var (
		mu    sync.Mutex
		taken []string
		wg    sync.WaitGroup
	)
	for range helperWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range helperStates {
				p, err := TakePending(t.Context(), st, pendingState(i))
				if err == nil {
					mu.Lock()
					taken = append(taken, p.State)
					mu.Unlock()
				} else {
					assert.ErrorIs(t, err, ErrNoPending)
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range helperAdds / helperWorkers {
				assert.NoError(t, st.Update(t.Context(), counterKey, func(old []byte, found bool) ([]byte, error) {
					n := 0
					if found {
						var err error
						if n, err = strconv.Atoi(string(old)); err != nil {
							return nil, err
						}
					}
					return []byte(strconv.Itoa(n + 1)), nil
				}))
			}
		}()
	}
	wg.Wait()
	fmt.Println("taken " + strings.Join(taken, ","))
	fmt.Println("done")
}

// TestFileStoreAcrossProcesses: two processes share one directory. Each
// pending SCA is taken exactly once, and no Update of a counter is lost.
func TestFileStoreAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	for i := range helperStates {
		require.NoError(t, SavePending(ctx, st, pendingFor(pendingState(i))))
	}

	hs := childproc.Start(t, 2, "TestHelperProcess", helperEnv+"="+st.Dir())
	for _, h := range hs {
		_, err := io.WriteString(h.Stdin, "go\n")
		require.NoError(t, err)
	}
	times := map[string]int{}
	perHelper := make([]int, len(hs))
	for i, h := range hs {
		line := strings.TrimPrefix(h.Line(t, "taken "), "taken ")
		for s := range strings.SplitSeq(line, ",") {
			if s != "" {
				times[s]++
				perHelper[i]++
			}
		}
		require.Equal(t, "done", h.Line(t, "done"))
		require.NoError(t, h.Cmd.Wait(), "helper %d", i)
	}
	for i := range helperStates {
		assert.Equal(t, 1, times[pendingState(i)], "pending SCA %d is taken exactly once", i)
	}
	assert.Len(t, times, helperStates)
	t.Logf("takes per helper: %v", perHelper)

	got, err := st.Get(ctx, counterKey)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(2*helperAdds), string(got), "no update lost")
}
