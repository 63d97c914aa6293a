package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestObserveIsARefreshHook: Observe is the delta hook refresh takes,
// as the package documentation says.
func TestObserveIsARefreshHook(t *testing.T) {
	t.Parallel()
	_, c := testtpp.Emulator(t)
	r, err := reconcile.New(store.NewMemoryStore())
	require.NoError(t, err)
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	_, err = refresh.New(svc, refresh.WithSync(s), refresh.WithDeltaHook(r.Observe))
	require.NoError(t, err)
}
