package store

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// TestHugeTTL: a ttl far in the future (math.MaxInt64, 300 years)
// keeps the value, as a ttl above zero lets the store forget it only after
// that long.
func TestHugeTTL(t *testing.T) {
	for _, ttl := range []time.Duration{math.MaxInt64, 250 * 365 * 24 * time.Hour} {
		for name, st := range map[string]Store{"memory": NewMemoryStore(), "file": newFileStore(t)} {
			ctx := t.Context()
			if err := st.Put(ctx, "k", []byte("v"), ttl); err != nil {
				t.Fatalf("%s: Put: %v", name, err)
			}
			if v, err := st.Get(ctx, "k"); err != nil || string(v) != "v" {
				t.Errorf("%s: ttl %v: Get = %q, %v; want v", name, ttl, v, err)
			}
			if err := st.Update(ctx, "u", func([]byte, bool) ([]byte, time.Duration, error) { return []byte("v"), ttl, nil }); err != nil {
				t.Fatalf("%s: Update: %v", name, err)
			}
			if v, err := st.Get(ctx, "u"); err != nil || string(v) != "v" {
				t.Errorf("%s: Update ttl %v: Get = %q, %v; want v", name, ttl, v, err)
			}
		}
	}
}

// TestUpdatePanicReleasesLock: a fn that panics (recovered by the
// caller, as net/http does) must not leave the key's lock held.
func TestUpdatePanicReleasesLock(t *testing.T) {
	for name, st := range map[string]Store{"memory": NewMemoryStore(), "file": newFileStore(t)} {
		func() {
			defer func() { _ = recover() }()
			_ = st.Update(t.Context(), "k", func([]byte, bool) ([]byte, time.Duration, error) { panic("fn") })
		}()
		done := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			done <- st.Put(ctx, "k", []byte("v"), 0)
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: Put after a panicking Update: %v", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: Put after a panicking Update still waits for the key's lock after 5s", name)
		}
	}
}

// TestUpdateEchoEmpty: fn returning old unchanged keeps an empty
// value (old must not be nil when found).
func TestUpdateEchoEmpty(t *testing.T) {
	for name, st := range map[string]Store{"memory": NewMemoryStore(), "file": newFileStore(t)} {
		ctx := t.Context()
		if err := st.Put(ctx, "k", []byte{}, 0); err != nil {
			t.Fatal(err)
		}
		if err := st.Update(ctx, "k", func(old []byte, found bool) ([]byte, time.Duration, error) {
			if found && old == nil {
				t.Errorf("%s: fn got a nil old value for a stored empty value", name)
			}
			return old, 0, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "k"); errors.Is(err, ErrNotStored) {
			t.Errorf("%s: echoing an empty value in Update deleted it", name)
		}
	}
}

// TestCheckKeyC1Controls: CheckKey promises printable keys without
// control characters; the C1 controls U+0080..U+009F (NEL, CSI) are
// control characters (unicode.IsControl) and were accepted.
func TestCheckKeyC1Controls(t *testing.T) {
	for _, k := range []string{"a\u0085b", "a\u009bb", "a\u0080"} {
		if err := CheckKey(k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("CheckKey(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
}
