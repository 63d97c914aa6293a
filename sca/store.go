package sca

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// Key prefixes of the typed helpers, so that sessions, pending SCAs and
// other values (the accounts budget, the payments journal) share one
// [store.Store] without clashing.
const (
	sessionPrefix = "sca/session/"
	pendingPrefix = "sca/pending/"
)

// maxKeyLen bounds the TPP's session keys: with sessionPrefix, a key
// fits in store.MaxKeyLen.
const maxKeyLen = store.MaxKeyLen - len(sessionPrefix)

// pendingGrace is how long a pending SCA is kept in the store after it
// expired, so that a late callback is told [ErrPendingExpired] rather
// than [ErrNoPending], and replicas whose clocks differ by minutes agree.
// Past it, the store forgets the pending SCA on its own.
const pendingGrace = time.Hour

// ErrUndecodableSession: the value stored under a session key does not
// decode as a session (it was not written by [SaveSession], or the store
// corrupted it). [LoadSession] wraps the decoder's error in it. Reading
// it again gives the same error: the PSU must go through SCA again, and
// a background job that needs the session can end for good.
var ErrUndecodableSession = errors.New("sca: the stored session does not decode")

// checkStore refuses a nil context or a nil store before the store is
// touched: a *client.ValidationError naming ctx or store, never a panic.
func checkStore(ctx context.Context, st store.Store) error {
	switch {
	case ctx == nil:
		return &client.ValidationError{Field: "ctx", Reason: "nil context"}
	case st == nil:
		return &client.ValidationError{Field: "store", Reason: "no store"}
	}
	return nil
}

// checkSessionKey refuses a session key that [store.CheckKey] refuses,
// alone or behind its prefix.
func checkSessionKey(key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	return store.CheckKey(sessionPrefix + key)
}

// SaveSession stores s under key (the TPP's key for the PSU, e.g. its user
// id: an opaque id, since the key is not secret to the store's readers and
// the River engine writes it into its jobs' arguments) in its storage form ([Session.MarshalBinary], every field in clear)
// and sets s.Key. It replaces the PSU's earlier session: call it only
// when a new SCA completed (docs/interface.md section 3), as [Manager.HandlerFor] does.
// A key [store.CheckKey] refuses gives an error matching
// [store.ErrInvalidKey].
func SaveSession(ctx context.Context, st store.Store, key string, s *Session) error {
	if err := checkStore(ctx, st); err != nil {
		return err
	}
	if err := checkSessionKey(key); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	c := *s
	c.Key = key
	b, err := c.MarshalBinary()
	if err != nil {
		return fmt.Errorf("sca: encoding session: %w", err)
	}
	if err := st.Put(ctx, sessionPrefix+key, b, 0); err != nil {
		return err
	}
	s.Key = key
	return nil
}

// LoadSession returns the session stored under key, or an error matching
// [store.ErrNotStored]. A stored value that does not decode gives an error
// matching [ErrUndecodableSession], one that is not a valid session an
// error matching [ErrInvalidSession].
func LoadSession(ctx context.Context, st store.Store, key string) (*Session, error) {
	if err := checkStore(ctx, st); err != nil {
		return nil, err
	}
	if err := checkSessionKey(key); err != nil {
		return nil, err
	}
	b, err := st.Get(ctx, sessionPrefix+key)
	if err != nil {
		return nil, err
	}
	return decodeSession(b, key)
}

// decodeSession reads a stored session as [LoadSession] does.
func decodeSession(b []byte, key string) (*Session, error) {
	var s Session
	if err := s.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUndecodableSession, err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.Key = key
	return &s, nil
}

// updateSession replaces the session stored under key in one atomic
// read-modify-write ([store.Store] Update), so that a session another
// replica stores meanwhile (a callback completing, an agreement chosen)
// is never overwritten by one computed from the session it replaced. fn
// gets the stored session, or nil and the error [LoadSession] would give
// (matching store.ErrNotStored, [ErrUndecodableSession] or
// [ErrInvalidSession]), and returns the session to store, or an error
// that leaves the stored one as it was. fn may run more than once.
func updateSession(ctx context.Context, st store.Store, key string, fn func(prev *Session, loadErr error) (*Session, error)) (*Session, error) {
	if err := checkStore(ctx, st); err != nil {
		return nil, err
	}
	if err := checkSessionKey(key); err != nil {
		return nil, err
	}
	var out *Session
	err := st.Update(ctx, sessionPrefix+key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		out = nil
		prev, loadErr := (*Session)(nil), error(store.ErrNotStored)
		if found {
			prev, loadErr = decodeSession(old, key)
		}
		next, err := fn(prev, loadErr)
		if err != nil {
			return nil, 0, err
		}
		if err := next.Validate(); err != nil {
			return nil, 0, err
		}
		c := *next
		c.Key = key
		b, err := c.MarshalBinary()
		if err != nil {
			return nil, 0, fmt.Errorf("sca: encoding session: %w", err)
		}
		out = &c
		return b, 0, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// deleteSession removes the session stored under key (for example when the
// bank answered 403 CONSENT_UNKNOWN: the PSU revoked consent).
func deleteSession(ctx context.Context, st store.Store, key string) error {
	if err := checkStore(ctx, st); err != nil {
		return err
	}
	if err := checkSessionKey(key); err != nil {
		return err
	}
	return st.Delete(ctx, sessionPrefix+key)
}

// pendingTTL is how long the store keeps p: its validity (ExpiresAt
// after CreatedAt, [DefaultPendingTTL] when either is unset) and
// pendingGrace. It is measured from the pending SCA's own times, not the
// wall clock, so that a Flow with its own clock saves what it started.
func pendingTTL(p *Pending) time.Duration {
	valid := DefaultPendingTTL
	if !p.CreatedAt.IsZero() && p.ExpiresAt.After(p.CreatedAt) {
		valid = p.ExpiresAt.Sub(p.CreatedAt)
	}
	return valid + pendingGrace
}

// savePending stores p under its state, in its storage form
// ([Pending.MarshalBinary], every field in clear), where [takePending]
// finds it when the callback arrives. The store forgets it an hour after
// it expired, so a PSU who never returns leaves nothing behind.
func savePending(ctx context.Context, st store.Store, p *Pending) error {
	b, err := pendingForm(ctx, st, p)
	if err != nil {
		return err
	}
	return st.Put(ctx, pendingPrefix+p.State, b, pendingTTL(p))
}

// pendingForm checks st and p as every write of a pending SCA does, and
// returns p's storage form.
func pendingForm(ctx context.Context, st store.Store, p *Pending) ([]byte, error) {
	if err := checkStore(ctx, st); err != nil {
		return nil, err
	}
	if p == nil || p.State == "" || len(p.State) > maxParamLen {
		return nil, ErrNoPending
	}
	b, err := p.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("sca: encoding pending SCA: %w", err)
	}
	return b, nil
}

// errPendingUsed is the error of a [Prepared.Redirect] whose pending SCA,
// saved by an earlier Redirect, is no longer stored: a callback took it
// (its state is used up) or the store forgot it after it expired.
var errPendingUsed = fmt.Errorf("sca: the pending SCA of this call was completed or has expired; prepare the call again: %w", ErrReplayed)

// resavePending saves p again, as [savePending] does, only while the
// store still holds it: a state a callback took is never usable again.
// It returns an error matching [ErrReplayed] when p is no longer stored.
func resavePending(ctx context.Context, st store.Store, p *Pending) error {
	b, err := pendingForm(ctx, st, p)
	if err != nil {
		return err
	}
	return st.Update(ctx, pendingPrefix+p.State, func(_ []byte, found bool) ([]byte, time.Duration, error) {
		if !found {
			return nil, 0, errPendingUsed
		}
		return b, pendingTTL(p), nil
	})
}

// pendingStored reports, as [resavePending] does, an error matching
// [ErrReplayed] when p is no longer stored, without writing it.
func pendingStored(ctx context.Context, st store.Store, p *Pending) error {
	if _, err := pendingForm(ctx, st, p); err != nil {
		return err
	}
	_, err := st.Get(ctx, pendingPrefix+p.State)
	if errors.Is(err, store.ErrNotStored) {
		return errPendingUsed
	}
	return err
}

// takePending removes and returns the pending SCA saved under state, so
// that it can be completed once, also when several replicas share the
// store ([store.Store.Take] is take-once). It returns an error matching
// ErrNoPending when there is none (unknown state, already taken: a
// replay, or forgotten by the store after it expired), or when the stored
// one does not decode (it is taken all the same).
func takePending(ctx context.Context, st store.Store, state string) (*Pending, error) {
	if err := checkStore(ctx, st); err != nil {
		return nil, err
	}
	if state == "" || len(state) > maxParamLen {
		return nil, ErrNoPending
	}
	b, err := st.Take(ctx, pendingPrefix+state)
	if errors.Is(err, store.ErrNotStored) || errors.Is(err, store.ErrInvalidKey) {
		// A state no savePending could have written is simply unknown.
		return nil, ErrNoPending
	}
	if err != nil {
		return nil, err
	}
	var p Pending
	if err := p.UnmarshalBinary(b); err != nil {
		// Taken, and nothing usable was stored: the callback can never
		// complete, as for an unknown state.
		return nil, fmt.Errorf("%w: the stored pending SCA does not decode: %w", ErrNoPending, err)
	}
	return &p, nil
}
