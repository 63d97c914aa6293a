package sca

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/tppkit/psd2/store"
)

// ListSessions yields the sessions stored in st ([SaveSession]), in
// ascending order of their keys, each with its Key set. It reads one
// session at a time, so a TPP can go through any number of them (to build
// background refresh jobs, to find consents due for renewal) in flat
// memory.
//
// A session deleted while the iteration runs is skipped. A stored value
// that cannot be read as a valid session is yielded as an error (naming
// neither the key nor the value) and the iteration goes on with the next
// one; an error of the store itself ends it. Break out of the loop to stop
// early.
func ListSessions(ctx context.Context, st store.Store) iter.Seq2[*Session, error] {
	return func(yield func(*Session, error) bool) {
		if st == nil {
			yield(nil, errors.New("sca: ListSessions needs a store"))
			return
		}
		if err := checkStore(ctx, st); err != nil {
			yield(nil, err)
			return
		}
		for key, err := range st.Keys(ctx, sessionPrefix) {
			if err != nil {
				yield(nil, err)
				return
			}
			s, err := LoadSession(ctx, st, strings.TrimPrefix(key, sessionPrefix))
			switch {
			case errors.Is(err, store.ErrNotStored):
				continue
			case err != nil && ctx.Err() != nil:
				yield(nil, ctx.Err())
				return
			}
			if !yield(s, err) {
				return
			}
		}
	}
}

// Sessions yields the sessions the Manager's store holds, as
// [ListSessions] does.
func (m *Manager) Sessions(ctx context.Context) iter.Seq2[*Session, error] {
	if err := m.ready(); err != nil {
		return func(yield func(*Session, error) bool) { yield(nil, err) }
	}
	return ListSessions(ctx, m.st)
}
