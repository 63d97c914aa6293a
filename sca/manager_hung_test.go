package sca

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/hungstore"
)

// A hung database never holds a Manager's call for ever, even on a
// context without a deadline (a command-line program's, a background
// job's): each of its store calls gives up after the Manager's bound
// (storeWait; shorter here) with an error matching
// context.DeadlineExceeded, as the callback's calls already did
// (completeStoreWait). On the code before, each call waited on the store
// for as long as the caller's context, which had no end.
func TestHungStoreHoldsNoManagerCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background() // no deadline: only the store's bound ends a hung call
	calls := map[string]func(m *Manager) error{
		"Session": func(m *Manager) error {
			_, err := m.Session(ctx, "user-1")
			return err
		},
		"Prepare": func(m *Manager) error {
			_, err := m.Prepare(ctx, "user-1", nil)
			return err
		},
		"Begin": func(m *Manager) error {
			_, err := m.Begin(ctx, "user-1", nil)
			return err
		},
		"SCAValid": func(m *Manager) error {
			_, err := m.SCAValid(ctx, "user-1", t0)
			return err
		},
		"UseAgreement": func(m *Manager) error {
			_, err := m.UseAgreement(ctx, "user-1", "agreement-1")
			return err
		},
		"Sessions": func(m *Manager) error {
			for _, err := range m.Sessions(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := NewFlow(base, withNow(func() time.Time { return t0 }))
			require.NoError(t, err)
			st := hungstore.New(t, nil, "sca/")
			m, err := NewManager(f, st)
			require.NoError(t, err)
			SetStoreWait(m, 100*time.Millisecond)
			err = hungstore.Within(t, name, func() error { return call(m) })
			require.ErrorIs(t, err, context.DeadlineExceeded, "the store was given up on")
		})
	}
}
