package journal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// leaseTTLs is a store that records the ttl of every in-flight lease put.
type leaseTTLs struct {
	*store.MemoryStore
	mu   sync.Mutex
	ttls []time.Duration
}

func (s *leaseTTLs) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if strings.HasPrefix(key, "journal/flight/") {
		s.mu.Lock()
		s.ttls = append(s.ttls, ttl)
		s.mu.Unlock()
	}
	return s.MemoryStore.Put(ctx, key, value, ttl)
}

// A writer whose clock steps back while its create is on its way (an NTP
// step, a clock reset) records the unknown outcome at a time before the
// entry's own creation. The in-flight lease it then writes must still end
// when the bank is taken to be done with the create, counted from the
// entry's creation (the in-flight time, or its own bound): a ttl computed
// as "done minus now" on the stepped clock would hold the entry for the
// whole step (a year here), and no replica could resolve or settle it.
func TestUnknownOutcomeLeaseBoundedWhenWriterClockStepsBack(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var back atomic.Int64 // how far the writer's clock has stepped back
	b := &thingBank{seen: map[string]bool{}}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			back.Store(int64(365 * 24 * time.Hour))
		}
		b.serve(w, r)
	}))
	t.Cleanup(b.srv.Close)
	c := b.client(t, client.WithClock(func() time.Time { return time.Now().Add(-time.Duration(back.Load())) }))
	st := &leaseTTLs{MemoryStore: store.NewMemoryStore()}
	j, err := journal.New(st, journal.WithClient(c))
	require.NoError(t, err)

	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(ctx, c, j, id, `{"clock":"stepped back"}`), client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	require.Equal(t, journal.OutcomeUnknown, e.Outcome)

	bound := max(journal.DefaultInFlight, e.Until.Sub(e.Created))
	st.mu.Lock()
	defer st.mu.Unlock()
	require.NotEmpty(t, st.ttls)
	for _, ttl := range st.ttls {
		assert.LessOrEqual(t, ttl, bound, "an in-flight lease outlives the in-flight time and the entry's bound")
	}
}
