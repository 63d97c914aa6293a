package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/childproc"
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

// Environment of the helper process of TestFileStoreWriterKilledMidWrite.
const (
	writerEnv    = "PSD2_STORE_FILESTORE_WRITER" // the store directory
	writerRunEnv = "PSD2_STORE_FILESTORE_WRITER_RUN"
)

// killKeys are the keys the killed writers replace.
var killKeys = []string{"kill/a", "kill/b", "kill/c"}

// TestWriterProcess is not a test: it is the body of the processes that
// TestFileStoreWriterKilledMidWrite starts and kills. It prints "ready",
// then replaces the values of killKeys with mixValues, with Update and
// Put in turn, until it is killed; it prints "writing" once it replaced
// each key once.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		return // run as an ordinary test: nothing to do
	}
	run, err := strconv.Atoi(os.Getenv(writerRunEnv))
	require.NoError(t, err)
	st, err := NewFileStore(dir)
	require.NoError(t, err)
	fmt.Println("ready")
	for i := run * 1_000_000; ; i++ {
		if i == run*1_000_000+len(killKeys) {
			fmt.Println("writing")
		}
		k := killKeys[i%len(killKeys)]
		if i%2 == 0 {
			require.NoError(t, st.Put(t.Context(), k, mixValue(k, i), 0))
			continue
		}
		require.NoError(t, st.Update(t.Context(), k, func(old []byte, found bool) ([]byte, time.Duration, error) {
			require.True(t, found)
			require.NoError(t, checkMixValue(k, old))
			return mixValue(k, i), 0, nil
		}))
	}
}

// TestFileStoreWriterKilledMidWrite: a process replacing values is killed
// (SIGKILL) at a random point, several times. Readers of this process see
// only whole values while it writes; after each kill every key holds a
// whole value, the old or the new, its lock is free again, and the
// leftovers of the killed writer are never read as values.
func TestFileStoreWriterKilledMidWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	for _, k := range killKeys {
		require.NoError(t, st.Put(ctx, k, mixValue(k, 0), 0))
	}
	written := map[string]bool{}
	for run := 1; run <= 4; run++ {
		hs := childproc.Start(t, 1, "TestWriterProcess", writerEnv+"="+st.Dir(), writerRunEnv+"="+strconv.Itoa(run))
		require.Equal(t, "writing", hs[0].Line(t, "writing"))
		stop := make(chan struct{})
		readers := readMixWhile(t, st, killKeys, stop, nil)
		time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
		require.NoError(t, hs[0].Cmd.Process.Kill())
		_ = hs[0].Cmd.Wait()
		close(stop)
		readers.Wait()

		for _, k := range killKeys {
			b, err := st.Get(ctx, k)
			require.NoError(t, err)
			require.NoError(t, checkMixValue(k, b), "after kill %d", run)
			if !bytes.Equal(b, mixValue(k, 0)) {
				written[k] = true
			}
			// The killed writer's lock is free: this Update does not wait.
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = st.Update(lctx, k, func(old []byte, found bool) ([]byte, time.Duration, error) {
				return old, 0, checkMixValue(k, old)
			})
			cancel()
			require.NoError(t, err)
		}
	}
	assert.Len(t, written, len(killKeys), "the killed writers replaced every key")

	reopened, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	var keys []string
	for k, err := range reopened.Keys(ctx, "") {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	assert.Equal(t, killKeys, keys, "leftover temporary files are not values")
	for _, k := range killKeys {
		b, err := reopened.Get(ctx, k)
		require.NoError(t, err)
		require.NoError(t, checkMixValue(k, b))
	}
}
