package sca

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrNotFound is returned by a Store's Get and Take for a key it does not
// hold, and by [LoadSession] when no session is stored.
var ErrNotFound = errors.New("sca: not found")

// maxKeyLen bounds store keys.
const maxKeyLen = 1024

// Store keeps small values by a key the TPP chooses. It holds PSU
// sessions ([SaveSession]), pending SCAs ([SavePending]) and anything else
// an SDK package needs to survive restarts (for example the accounts
// package's without-PSU call budget). Implementations must be safe for
// concurrent use; Get returns ErrNotFound (possibly wrapped) for a missing
// key; Delete of a missing key is not an error.
//
// [MemoryStore] and [FileStore] are provided; a database or a key-value
// service fits behind the same three methods.
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
}

// Taker is implemented by stores that can get and delete a key in one
// atomic step. [TakePending] uses it so that a pending SCA is completed by
// one callback only, even when several servers share the store; without
// it, TakePending falls back to Get then Delete.
type Taker interface {
	Take(ctx context.Context, key string) ([]byte, error)
}

// Key prefixes of the typed helpers, so that sessions, pending SCAs and
// other values share one store without clashing.
const (
	sessionPrefix = "sca/session/"
	pendingPrefix = "sca/pending/"
)

// ErrInvalidKey is returned for a store key that is empty, longer than
// 1024 bytes, or looks like a path escaping the store: a ".." element, a
// leading "/", a backslash or a control character. The check is in
// checkKey, the one place all stores and helpers use. Keys are otherwise
// free text such as "sca/session/user-42".
var ErrInvalidKey = errors.New("sca: invalid store key")

func checkKey(key string) error {
	if key == "" || len(key) > maxKeyLen {
		return fmt.Errorf("%w: must have 1 to %d bytes", ErrInvalidKey, maxKeyLen)
	}
	if strings.HasPrefix(key, "/") || strings.ContainsRune(key, '\\') || !headerSafe(key) {
		return fmt.Errorf("%w: absolute, backslash or control character", ErrInvalidKey)
	}
	for _, el := range strings.Split(key, "/") {
		if el == ".." {
			return fmt.Errorf("%w: path traversal", ErrInvalidKey)
		}
	}
	return nil
}

// SaveSession stores s under key (the TPP's key for the PSU, e.g. its user
// id) in its storage form ([Session.MarshalBinary], every field in clear)
// and sets s.Key. It replaces the PSU's earlier session: call it only
// when a new SCA completed (docs/interface.md section 3), as [Manager.Complete] does.
func SaveSession(ctx context.Context, st Store, key string, s *Session) error {
	if err := checkKey(key); err != nil {
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
	if err := st.Put(ctx, sessionPrefix+key, b); err != nil {
		return err
	}
	s.Key = key
	return nil
}

// LoadSession returns the session stored under key, or an error matching
// ErrNotFound.
func LoadSession(ctx context.Context, st Store, key string) (*Session, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	b, err := st.Get(ctx, sessionPrefix+key)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := s.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("sca: decoding stored session: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.Key = key
	return &s, nil
}

// DeleteSession removes the session stored under key (for example when the
// bank answered 403 CONSENT_UNKNOWN: the PSU revoked consent).
func DeleteSession(ctx context.Context, st Store, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return st.Delete(ctx, sessionPrefix+key)
}

// SavePending stores p under its state, in its storage form
// ([Pending.MarshalBinary], every field in clear), where [TakePending]
// finds it when the callback arrives.
func SavePending(ctx context.Context, st Store, p *Pending) error {
	if p == nil || p.State == "" || len(p.State) > maxParamLen {
		return ErrNoPending
	}
	b, err := p.MarshalBinary()
	if err != nil {
		return fmt.Errorf("sca: encoding pending SCA: %w", err)
	}
	return st.Put(ctx, pendingPrefix+p.State, b)
}

// TakePending removes and returns the pending SCA saved under state, so
// that it can be completed once. It returns an error matching ErrNoPending
// when there is none (unknown state, or already taken: a replay).
func TakePending(ctx context.Context, st Store, state string) (*Pending, error) {
	if state == "" || len(state) > maxParamLen {
		return nil, ErrNoPending
	}
	key := pendingPrefix + state
	var (
		b   []byte
		err error
	)
	if t, ok := st.(Taker); ok {
		b, err = t.Take(ctx, key)
	} else if b, err = st.Get(ctx, key); err == nil {
		err = st.Delete(ctx, key)
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalidKey) {
		// A state no SaveSession could have written is simply unknown.
		return nil, ErrNoPending
	}
	if err != nil {
		return nil, err
	}
	var p Pending
	if err := p.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("sca: decoding pending SCA: %w", err)
	}
	return &p, nil
}

// MemoryStore is a Store in memory, for tests and single-process TPPs
// that accept losing sessions on restart. The zero value is ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Get returns a copy of the value under key, or ErrNotFound.
func (s *MemoryStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, ErrNotFound
	}
	return slices.Clone(v), nil
}

// Put stores a copy of value under key.
func (s *MemoryStore) Put(ctx context.Context, key string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = slices.Clone(value)
	return nil
}

// Delete removes key; a missing key is not an error.
func (s *MemoryStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Take removes key and returns its value, or ErrNotFound, atomically.
func (s *MemoryStore) Take(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, ErrNotFound
	}
	delete(s.m, key)
	return v, nil
}
