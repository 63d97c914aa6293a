package store

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/childproc"
)

// Environment and sizes of the helper processes of
// TestFileStoreAcrossProcesses.
const (
	helperEnv     = "PSD2_STORE_FILESTORE_HELPER" // the store directory
	helperKeys    = 60                            // values to take
	helperAdds    = 40                            // counter increments per helper
	helperWorkers = 2                             // goroutines per helper
	counterKey    = "test/counter"
)

// takeKey is the key of the i-th value to take.
func takeKey(i int) string { return fmt.Sprintf("sca/pending/state-%03d", i) }

// TestHelperProcess is not a test: it is the body of the processes that
// TestFileStoreAcrossProcesses starts from the test binary. It prints
// "ready", waits for a line on stdin, then, with helperWorkers goroutines,
// takes every value it can and adds helperAdds to a counter with Update,
// and prints "taken <keys>" and "done".
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
			for i := range helperKeys {
				v, err := st.Take(t.Context(), takeKey(i))
				if err == nil {
					mu.Lock()
					taken = append(taken, string(v))
					mu.Unlock()
				} else {
					assert.ErrorIs(t, err, ErrNotStored)
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range helperAdds / helperWorkers {
				assert.NoError(t, st.Update(t.Context(), counterKey, func(old []byte, found bool) ([]byte, time.Duration, error) {
					n := 0
					if found {
						var err error
						if n, err = strconv.Atoi(string(old)); err != nil {
							return nil, 0, err
						}
					}
					return []byte(strconv.Itoa(n + 1)), 0, nil
				}))
			}
		}()
	}
	wg.Wait()
	fmt.Println("taken " + strings.Join(taken, ","))
	fmt.Println("done")
}

// TestFileStoreAcrossProcesses: two processes share one directory. Each
// value is taken exactly once, and no Update of a counter is lost.
func TestFileStoreAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	for i := range helperKeys {
		require.NoError(t, st.Put(ctx, takeKey(i), []byte(strconv.Itoa(i)), time.Hour))
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
	for i := range helperKeys {
		assert.Equal(t, 1, times[strconv.Itoa(i)], "value %d is taken exactly once", i)
	}
	assert.Len(t, times, helperKeys)
	t.Logf("takes per helper: %v", perHelper)

	got, err := st.Get(ctx, counterKey)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(2*helperAdds), string(got), "no update lost")
	for k, err := range st.Keys(ctx, "sca/pending/") {
		require.NoError(t, err)
		t.Errorf("key %q left after every value was taken", k)
	}
}
