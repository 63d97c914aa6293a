package sca

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keysByShard returns two keys of one shard and one key of another.
func keysByShard(st *FileStore) (a, sameShard, otherShard string) {
	_, shardA := st.name("key-0")
	a = "key-0"
	for i := 1; sameShard == "" || otherShard == ""; i++ {
		k := fmt.Sprintf("key-%d", i)
		if _, sh := st.name(k); sh == shardA && sameShard == "" {
			sameShard = k
		} else if sh != shardA && otherShard == "" {
			otherShard = k
		}
	}
	return a, sameShard, otherShard
}

// While an Update of one key is in progress, keys of other shards are
// written (nothing waits on the running Update's fsync), and a key of the
// same shard waits for it.
func TestFileStoreLocksPerShard(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	a, same, other := keysByShard(st)

	entered, release := make(chan struct{}), make(chan struct{})
	var (
		mu    sync.Mutex
		order []string
	)
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	doneA := make(chan error, 1)
	go func() {
		doneA <- st.Update(ctx, a, func([]byte, bool) ([]byte, error) {
			close(entered)
			<-release
			record("a written")
			return []byte("a"), nil
		})
	}()
	<-entered

	// Another shard goes ahead while a's Update holds its lock. Should it
	// wait, the guard below ends the test instead of hanging it.
	doneOther := make(chan error, 1)
	go func() { doneOther <- st.Put(ctx, other, []byte("other")) }()
	select {
	case err := <-doneOther:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("a Put of another shard waited for a running Update")
	}

	doneSame := make(chan error, 1)
	go func() {
		doneSame <- st.Update(ctx, same, func([]byte, bool) ([]byte, error) {
			record("same-shard read")
			return []byte("s"), nil
		})
	}()
	close(release)
	require.NoError(t, <-doneA)
	require.NoError(t, <-doneSame)
	assert.Equal(t, []string{"a written", "same-shard read"}, order, "a key of the same shard waits for the lock")
	got, err := st.Get(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, "other", string(got))
}

func TestFileStoreUpdate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	boom := fmt.Errorf("boom")
	steps := []struct {
		name      string
		ret       []byte
		err       error
		wantOld   string
		wantFound bool
		want      string // after the step; "-" for missing
	}{
		{name: "missing, nil keeps it missing", ret: nil, want: "-"},
		{name: "create", ret: []byte("1"), want: "1"},
		{name: "replace", ret: []byte("2"), wantOld: "1", wantFound: true, want: "2"},
		{name: "error changes nothing", ret: []byte("3"), err: boom, wantOld: "2", wantFound: true, want: "2"},
		{name: "same value", ret: []byte("2"), wantOld: "2", wantFound: true, want: "2"},
		{name: "empty value is stored", ret: []byte{}, wantOld: "2", wantFound: true, want: ""},
		{name: "nil deletes", ret: nil, wantOld: "", wantFound: true, want: "-"},
	}
	for _, s := range steps {
		err := st.Update(ctx, "k", func(old []byte, found bool) ([]byte, error) {
			assert.Equal(t, s.wantOld, string(old), s.name)
			assert.Equal(t, s.wantFound, found, s.name)
			return s.ret, s.err
		})
		if s.err != nil {
			require.ErrorIs(t, err, s.err, s.name)
		} else {
			require.NoError(t, err, s.name)
		}
		got, err := st.Get(ctx, "k")
		if s.want == "-" {
			require.ErrorIs(t, err, ErrNotFound, s.name)
			continue
		}
		require.NoError(t, err, s.name)
		assert.Equal(t, s.want, string(got), s.name)
	}
	assert.Len(t, valueFiles(t, st.Dir()), 0, "no temporary file left behind")
	assert.ErrorIs(t, st.Update(ctx, "../x", func([]byte, bool) ([]byte, error) { return nil, nil }), ErrInvalidKey)
}
