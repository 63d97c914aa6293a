package sca

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
)

func newFileStore(t *testing.T) *FileStore {
	t.Helper()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	return fs
}

// valueFiles lists the entries of a file store's directory other than its
// lock files.
func valueFiles(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []os.DirEntry
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), lockPrefix) {
			out = append(out, e)
		}
	}
	return out
}

// stores returns one store of each kind.
func stores(t *testing.T) map[string]Store {
	return map[string]Store{"memory": NewMemoryStore(), "file": newFileStore(t), "zero memory": &MemoryStore{}}
}

func TestStoreBasics(t *testing.T) {
	t.Parallel()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			_, err := st.Get(ctx, "k")
			require.ErrorIs(t, err, ErrNotFound)
			require.NoError(t, st.Delete(ctx, "k"), "deleting a missing key is not an error")

			v := []byte(`{"a":1}`)
			require.NoError(t, st.Put(ctx, "sca/session/user-1", v))
			v[0] = 'X' // the store keeps its own copy
			got, err := st.Get(ctx, "sca/session/user-1")
			require.NoError(t, err)
			assert.Equal(t, `{"a":1}`, string(got))

			require.NoError(t, st.Put(ctx, "sca/session/user-1", []byte("two")))
			got, err = st.Get(ctx, "sca/session/user-1")
			require.NoError(t, err)
			assert.Equal(t, "two", string(got))

			tk, ok := st.(Taker)
			require.True(t, ok)
			got, err = tk.Take(ctx, "sca/session/user-1")
			require.NoError(t, err)
			assert.Equal(t, "two", string(got))
			_, err = tk.Take(ctx, "sca/session/user-1")
			assert.ErrorIs(t, err, ErrNotFound)

			require.NoError(t, st.Put(ctx, "x", nil))
			require.NoError(t, st.Delete(ctx, "x"))
			_, err = st.Get(ctx, "x")
			assert.ErrorIs(t, err, ErrNotFound)

			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			assert.ErrorIs(t, st.Put(cancelled, "y", []byte("1")), context.Canceled)
			_, err = st.Get(cancelled, "y")
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
}

func TestStoreRefusesBadKeys(t *testing.T) {
	t.Parallel()
	bad := []string{"", "../etc/passwd", "a/../../b", "..", "/etc/passwd", `..\windows`, `a\b`, "a\x00b", "a\nb",
		strings.Repeat("k", maxKeyLen+1)}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			for _, k := range bad {
				assert.ErrorIs(t, st.Put(ctx, k, []byte("v")), ErrInvalidKey, "%q", k)
				_, err := st.Get(ctx, k)
				assert.ErrorIs(t, err, ErrInvalidKey, "%q", k)
				assert.ErrorIs(t, st.Delete(ctx, k), ErrInvalidKey, "%q", k)
				_, err = st.(Taker).Take(ctx, k)
				assert.ErrorIs(t, err, ErrInvalidKey, "%q", k)
				assert.ErrorIs(t, SaveSession(ctx, st, k, validSession()), ErrInvalidKey, "%q", k)
			}
			// Dots inside names are fine.
			require.NoError(t, st.Put(ctx, "a..b/c.d", []byte("v")))
		})
	}
	t.Run("file store writes only inside its directory", func(t *testing.T) {
		t.Parallel()
		parent := t.TempDir()
		fs, err := NewFileStore(filepath.Join(parent, "store"))
		require.NoError(t, err)
		require.Error(t, fs.Put(t.Context(), "../escaped", []byte("v")))
		require.NoError(t, fs.Put(t.Context(), "sca/session/x..y", []byte("v")), "\"..\" inside a name is fine")
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		require.Len(t, entries, 1, "nothing written next to the store")
		files := valueFiles(t, fs.Dir())
		require.NotEmpty(t, files)
		for _, f := range files {
			assert.NotContains(t, f.Name(), "/")
			assert.True(t, strings.HasSuffix(f.Name(), valueSuffix))
		}
	})
}

func validSession() *Session {
	return &Session{PSUID: okPSU, TPPSessionID: okSession, Context: Private, SCAAt: t0}
}

func TestFileStorePermissions(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	require.NoError(t, st.Put(t.Context(), "sca/session/user-1", []byte("secret")))
	fi, err := os.Stat(st.Dir())
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), fi.Mode().Perm(), "directory")
	entries, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	require.Len(t, entries, 2, "the value and its shard's lock file")
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), e.Name())
	}

	open := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(open, 0o700))
	require.NoError(t, os.Chmod(open, 0o755))
	_, err = NewFileStore(open)
	assert.ErrorIs(t, err, ErrUnsafeStore, "a directory others can read is refused")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = NewFileStore(file)
	assert.Error(t, err)
	_, err = NewFileStore("")
	assert.Error(t, err)
}

func TestFileStoreCrashMidWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "k", []byte("old value")))

	crash := errors.New("simulated crash")
	var tmpSeen string
	st.crashHook = func(tmp string) error {
		tmpSeen = tmp
		b, err := os.ReadFile(tmp)
		require.NoError(t, err)
		assert.Equal(t, "new value", string(b), "the new value goes to a temporary file first")
		got, err := st.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, "old value", string(got), "readers see the old value during the write")
		return crash
	}
	require.ErrorIs(t, st.Put(ctx, "k", []byte("new value")), crash)
	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "old value", string(got))
	_, err = os.Stat(tmpSeen)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the failed write's temporary file is removed")

	// A process killed mid-write leaves a half-written temporary file.
	st.crashHook = nil
	name, _ := st.name("k")
	leftover := filepath.Join(st.Dir(), tmpPrefix+name+"-12345")
	require.NoError(t, os.WriteFile(leftover, []byte("new va"), 0o600))
	reopened, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	got, err = reopened.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "old value", string(got), "the leftover is never read")
	_, err = os.Stat(leftover)
	require.NoError(t, err, "a fresh leftover may belong to a live writer in another process")

	old := time.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(leftover, old, old))
	_, err = NewFileStore(st.Dir())
	require.NoError(t, err)
	_, err = os.Stat(leftover)
	assert.ErrorIs(t, err, fs.ErrNotExist, "stale leftovers are cleaned up on open")

	require.NoError(t, reopened.Put(ctx, "k", []byte("new value")))
	got, err = st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "new value", string(got))
}

func TestStoreConcurrentWriters(t *testing.T) {
	t.Parallel()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			const writers, rounds = 8, 20
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						v := []byte(fmt.Sprintf("writer-%d-round-%02d-%s", w, r, strings.Repeat("x", 512)))
						assert.NoError(t, st.Put(ctx, "shared", v))
						assert.NoError(t, st.Put(ctx, fmt.Sprintf("own/%d", w), v))
						got, err := st.Get(ctx, "shared")
						if assert.NoError(t, err) {
							assert.True(t, strings.HasPrefix(string(got), "writer-") && len(got) == len(v), "never a torn value")
						}
					}
				}()
			}
			wg.Wait()
			for w := range writers {
				got, err := st.Get(ctx, fmt.Sprintf("own/%d", w))
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("writer-%d-round-%02d-", w, rounds-1), string(got[:len("writer-0-round-00-")]))
			}
			if fst, ok := st.(*FileStore); ok {
				assert.Len(t, valueFiles(t, fst.Dir()), writers+1, "no temporary file left behind")
			}
		})
	}
}

func TestTakePendingOnce(t *testing.T) {
	t.Parallel()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			p := pendingFor(okState)
			require.NoError(t, SavePending(ctx, st, p))
			var wins atomic.Int32
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := TakePending(ctx, st, okState)
					if err == nil {
						wins.Add(1)
						assert.Equal(t, p, got)
						return
					}
					assert.ErrorIs(t, err, ErrNoPending)
				}()
			}
			wg.Wait()
			assert.Equal(t, int32(1), wins.Load(), "a pending SCA is taken once")
			assert.ErrorIs(t, SavePending(ctx, st, nil), ErrNoPending)
			for _, forged := range []string{"", "../../etc/passwd", "a\\b", strings.Repeat("s", 300)} {
				_, err := TakePending(ctx, st, forged)
				assert.ErrorIs(t, err, ErrNoPending, "%q", forged)
			}
		})
	}
}

// getDeleteStore has no Take: TakePending falls back to Get and Delete.
type getDeleteStore struct{ m *MemoryStore }

func (s getDeleteStore) Get(ctx context.Context, k string) ([]byte, error) { return s.m.Get(ctx, k) }
func (s getDeleteStore) Put(ctx context.Context, k string, v []byte) error { return s.m.Put(ctx, k, v) }
func (s getDeleteStore) Delete(ctx context.Context, k string) error        { return s.m.Delete(ctx, k) }

func TestSessionHelpers(t *testing.T) {
	t.Parallel()
	for name, st := range map[string]Store{"file": newFileStore(t), "no taker": getDeleteStore{NewMemoryStore()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			_, err := LoadSession(ctx, st, "user-1")
			require.ErrorIs(t, err, ErrNotFound)
			s := validSession()
			require.NoError(t, SaveSession(ctx, st, "user-1", s))
			assert.Equal(t, "user-1", s.Key)
			got, err := LoadSession(ctx, st, "user-1")
			require.NoError(t, err)
			assert.True(t, s.SCAAt.Equal(got.SCAAt))
			got.SCAAt = s.SCAAt
			assert.Equal(t, s, got)
			require.ErrorIs(t, SaveSession(ctx, st, "user-2", &Session{PSUID: "13039319955"}), ErrInvalidSession)

			require.NoError(t, st.Put(ctx, sessionPrefix+"broken", []byte("{")))
			_, err = LoadSession(ctx, st, "broken")
			assert.Error(t, err)

			require.NoError(t, DeleteSession(ctx, st, "user-1"))
			_, err = LoadSession(ctx, st, "user-1")
			assert.ErrorIs(t, err, ErrNotFound)

			p := pendingFor(okState)
			require.NoError(t, SavePending(ctx, st, p))
			got2, err := TakePending(ctx, st, okState)
			require.NoError(t, err)
			assert.Equal(t, p.TPPSessionID, got2.TPPSessionID)
			_, err = TakePending(ctx, st, okState)
			assert.ErrorIs(t, err, ErrNoPending)
		})
	}
}

// The file store also keeps the accounts package's without-PSU budget, and
// the count survives reopening the store (a restart).
func TestFileStoreHoldsAccountsBudget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	now := t0
	clock := accounts.WithClock(func() time.Time { return now })
	key := accounts.BudgetKey{TPP: "tpp", Bank: "https://psd2.bank.example/api", AccountID: "enc!!abc", Endpoint: accounts.EndpointTransactions}

	b := accounts.NewBudget(accounts.BudgetStoreFromKV(st, ErrNotFound), clock)
	a, err := b.Remaining(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, accounts.DefaultBudgetLimit, a.Remaining)

	// Record three calls as the accounts package does (one JSON value).
	calls := []time.Time{now.Add(-3 * time.Hour), now.Add(-2 * time.Hour), now.Add(-time.Hour)}
	require.NoError(t, accounts.BudgetStoreFromKV(st, ErrNotFound).Update(ctx, key.String(),
		func([]time.Time) ([]time.Time, error) { return calls, nil }))

	reopened, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	a, err = accounts.NewBudget(accounts.BudgetStoreFromKV(reopened, ErrNotFound), clock).Remaining(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, accounts.DefaultBudgetLimit-3, a.Remaining)
	files, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	for _, f := range files {
		assert.NotContains(t, f.Name(), okPSU)
	}
}
