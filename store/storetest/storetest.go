// Package storetest checks an implementation of [store.Store] against
// the interface's contract. Any store passes it by calling one function
// from its tests, the SDK's own ([store.MemoryStore], [store.FileStore],
// the PostgreSQL store of module github.com/tppkit/psd2/pgstore) and a
// user's own (Redis, DynamoDB, ...):
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return mystore.Open(t, addr) })
//	}
//
// The SDK keeps every kind of shared state (PSU sessions and pending SCAs
// of package sca, the without-PSU budget of package accounts, the payment
// journal of package payments) in the one [store.Store] interface, so one
// suite covers them all: take-once is what completes a pending SCA once;
// an atomic Update with a cap is what keeps two replicas from both taking
// the last budget call; Put, Update and Keys seen from a second client are
// what lets another replica resolve a journal entry. Both races run
// between two independent clients of one backing store.
//
// [Run] covers Get, Put (with and without a time to live), Delete, Take,
// Update (create, replace, delete, error, ttl), Keys (prefix, byte order,
// early stop, expired keys), invalid keys, value limits, cancelled
// contexts, and the races. Every test writes below a prefix of its own,
// random per run, so a persistent backing store (a database) may be
// reused between runs and shared by parallel tests.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/store"
)

// expiryWait bounds how long the suite waits for a value with a short ttl
// to expire.
const expiryWait = 20 * time.Second

// shortTTL is the time to live of the values the suite lets expire.
const shortTTL = 300 * time.Millisecond

// Run checks the stores open returns against the contract of
// [store.Store]. open is called once or twice per test, each time with
// that test's t: two calls must return two independent clients of the
// same backing store (two FileStores on one directory, two connection
// pools on one database, the same MemoryStore twice), so that the races
// run between clients as between replicas. open may register cleanups
// with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	run := randomPrefix(t)
	tests := []struct {
		name string
		fn   func(t *testing.T, a, b store.Store, prefix string)
	}{
		{"Missing", testMissing},
		{"PutGet", testPutGet},
		{"Delete", testDelete},
		{"Take", testTake},
		{"Update", testUpdate},
		{"TTL", testTTL},
		{"FarTTL", testFarTTL},
		{"UpdatePanic", testUpdatePanic},
		{"Keys", testKeys},
		{"InvalidKeys", testInvalidKeys},
		{"ValueLimit", testValueLimit},
		{"Cancelled", testCancelled},
		{"RaceTakeOnce", testRaceTakeOnce},
		{"RaceLastBudgetCall", testRaceLastBudgetCall},
		{"RaceNoLostUpdate", testRaceNoLostUpdate},
		{"Journal", testJournal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := open(t), open(t)
			if a == nil || b == nil {
				t.Fatal("storetest: open returned a nil store")
			}
			tc.fn(t, a, b, run+tc.name+"/")
		})
	}
}

// randomPrefix returns "storetest/<16 hex digits>/".
func randomPrefix(t *testing.T) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return "storetest/" + hex.EncodeToString(b[:]) + "/"
}

// get returns the value under key and whether there is one, failing the
// test on any error other than ErrNotStored.
func get(t *testing.T, st store.Store, key string) ([]byte, bool) {
	t.Helper()
	v, err := st.Get(t.Context(), key)
	if errors.Is(err, store.ErrNotStored) {
		if v != nil {
			t.Errorf("Get(%q): ErrNotStored with a value", key)
		}
		return nil, false
	}
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return v, true
}

// wantValue fails the test unless key holds want.
func wantValue(t *testing.T, st store.Store, key, want, what string) {
	t.Helper()
	v, ok := get(t, st, key)
	if !ok {
		t.Errorf("%s: Get(%q): not stored, want %q", what, key, want)
		return
	}
	if string(v) != want {
		t.Errorf("%s: Get(%q) = %q, want %q", what, key, v, want)
	}
}

// wantMissing fails the test unless key holds nothing.
func wantMissing(t *testing.T, st store.Store, key, what string) {
	t.Helper()
	if v, ok := get(t, st, key); ok {
		t.Errorf("%s: Get(%q) = %q, want ErrNotStored", what, key, v)
	}
}

func put(t *testing.T, st store.Store, key, value string, ttl time.Duration) {
	t.Helper()
	if err := st.Put(t.Context(), key, []byte(value), ttl); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

// keys collects Keys(prefix).
func keys(t *testing.T, st store.Store, prefix string) []string {
	t.Helper()
	var out []string
	for k, err := range st.Keys(t.Context(), prefix) {
		if err != nil {
			t.Fatalf("Keys(%q): %v", prefix, err)
		}
		out = append(out, k)
	}
	return out
}

func testMissing(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "never-written"
	wantMissing(t, a, k, "a key never written")
	if v, err := a.Take(ctx, k); !errors.Is(err, store.ErrNotStored) {
		t.Errorf("Take of a missing key = %q, %v; want ErrNotStored", v, err)
	}
	if err := a.Delete(ctx, k); err != nil {
		t.Errorf("Delete of a missing key: %v; want nil", err)
	}
	if ks := keys(t, b, p); len(ks) != 0 {
		t.Errorf("Keys of an empty prefix = %q", ks)
	}
}

func testPutGet(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "sca/session/user-1"
	in := []byte(`{"psuId":"x"}`)
	if err := a.Put(ctx, k, in, 0); err != nil {
		t.Fatalf("Put: %v", err)
	}
	in[0] = 'X' // the store keeps its own copy
	wantValue(t, a, k, `{"psuId":"x"}`, "the writer reads its value")
	wantValue(t, b, k, `{"psuId":"x"}`, "the other client reads it")
	if v, ok := get(t, a, k); ok && len(v) > 0 {
		v[0] = 'Y' // a returned value is the caller's
		wantValue(t, a, k, `{"psuId":"x"}`, "changing a returned value changes nothing")
	}

	put(t, b, k, "second", 0)
	wantValue(t, a, k, "second", "Put replaces the value, across clients")

	empty := p + "empty"
	put(t, a, empty, "", 0)
	if v, ok := get(t, b, empty); !ok || len(v) != 0 {
		t.Errorf("an empty value: Get = %q, %v; want empty and stored", v, ok)
	}
	if err := a.Put(ctx, p+"nil", nil, 0); err != nil {
		t.Errorf("Put of a nil value: %v", err)
	} else if v, ok := get(t, b, p+"nil"); !ok || len(v) != 0 {
		t.Errorf("a nil value: Get = %q, %v; want empty and stored", v, ok)
	}

	all := make([]byte, 256*4)
	for i := range all {
		all[i] = byte(i)
	}
	bin := p + "binary"
	if err := a.Put(ctx, bin, all, 0); err != nil {
		t.Fatalf("Put of binary: %v", err)
	}
	if v, _ := get(t, b, bin); !bytes.Equal(v, all) {
		t.Errorf("a value with every byte value comes back changed (%d bytes)", len(v))
	}

	// Keys are byte strings: similar keys are distinct.
	for _, k := range []string{p + "Case", p + "case", p + "case ", p + "cäse", p + "a b/c:d@e%f_g"} {
		put(t, a, k, k, 0)
	}
	for _, k := range []string{p + "Case", p + "case", p + "case ", p + "cäse", p + "a b/c:d@e%f_g"} {
		wantValue(t, b, k, k, "distinct keys")
	}
}

func testDelete(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "k"
	put(t, a, k, "v", 0)
	if err := b.Delete(ctx, k); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantMissing(t, a, k, "after Delete by the other client")
	if err := b.Delete(ctx, k); err != nil {
		t.Errorf("second Delete: %v", err)
	}
	put(t, a, k, "again", 0)
	wantValue(t, b, k, "again", "a deleted key can be written again")
}

func testTake(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "sca/pending/state"
	put(t, a, k, "pending", time.Hour)
	v, err := b.Take(ctx, k)
	if err != nil || string(v) != "pending" {
		t.Fatalf("Take = %q, %v; want the value", v, err)
	}
	if v, err := a.Take(ctx, k); !errors.Is(err, store.ErrNotStored) {
		t.Errorf("second Take = %q, %v; want ErrNotStored", v, err)
	}
	wantMissing(t, a, k, "after Take")
	if ks := keys(t, a, p); len(ks) != 0 {
		t.Errorf("Keys after Take = %q", ks)
	}
}

func testUpdate(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "accounts/budget/x"
	type step struct {
		name      string
		st        store.Store
		ret       []byte
		err       error
		wantOld   string
		wantFound bool
		want      string // "-": missing
	}
	boom := errors.New("storetest: fn's error")
	steps := []step{
		{name: "missing, nil keeps it missing", st: a, ret: nil, want: "-"},
		{name: "create", st: a, ret: []byte("1"), want: "1"},
		{name: "replace from the other client", st: b, ret: []byte("2"), wantOld: "1", wantFound: true, want: "2"},
		{name: "an error changes nothing", st: a, ret: []byte("3"), err: boom, wantOld: "2", wantFound: true, want: "2"},
		{name: "same value", st: b, ret: []byte("2"), wantOld: "2", wantFound: true, want: "2"},
		{name: "empty value is stored", st: a, ret: []byte{}, wantOld: "2", wantFound: true, want: ""},
		{name: "nil deletes", st: b, ret: nil, wantOld: "", wantFound: true, want: "-"},
		{name: "an error on a missing key changes nothing", st: a, ret: []byte("x"), err: boom, want: "-"},
	}
	for _, s := range steps {
		var calls atomic.Int32
		err := s.st.Update(ctx, k, func(old []byte, found bool) ([]byte, time.Duration, error) {
			calls.Add(1)
			if string(old) != s.wantOld || found != s.wantFound {
				t.Errorf("%s: fn got (%q, %v), want (%q, %v)", s.name, old, found, s.wantOld, s.wantFound)
			}
			return s.ret, 0, s.err
		})
		switch {
		case s.err != nil && !errors.Is(err, s.err):
			t.Errorf("%s: Update = %v, want fn's error", s.name, err)
		case s.err == nil && err != nil:
			t.Fatalf("%s: Update: %v", s.name, err)
		}
		if calls.Load() < 1 {
			t.Errorf("%s: fn was not called", s.name)
		}
		if s.want == "-" {
			wantMissing(t, a, k, s.name)
		} else {
			wantValue(t, a, k, s.want, s.name)
		}
	}

	// fn gets its own copy of the old value.
	put(t, a, k, "abc", 0)
	if err := b.Update(ctx, k, func(old []byte, _ bool) ([]byte, time.Duration, error) {
		if len(old) > 0 {
			old[0] = 'X'
		}
		return nil, 0, boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Update: %v", err)
	}
	wantValue(t, a, k, "abc", "fn changing old changes nothing")
}

// waitExpired polls until key holds nothing, failing after expiryWait.
func waitExpired(t *testing.T, st store.Store, key string) {
	t.Helper()
	deadline := time.Now().Add(expiryWait)
	for {
		if _, ok := get(t, st, key); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q with ttl %v still stored after %v", key, shortTTL, expiryWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testTTL(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	long, short := p+"long", p+"short"
	put(t, a, long, "long", time.Hour)
	put(t, a, short, "short", shortTTL)
	put(t, a, p+"forever", "forever", 0)
	wantValue(t, b, long, "long", "a value within its ttl")
	waitExpired(t, b, short)
	if v, err := a.Take(ctx, short); !errors.Is(err, store.ErrNotStored) {
		t.Errorf("Take of an expired value = %q, %v; want ErrNotStored", v, err)
	}
	if err := a.Update(ctx, short, func(old []byte, found bool) ([]byte, time.Duration, error) {
		if found || len(old) != 0 {
			t.Errorf("Update of an expired value: fn got (%q, %v), want nothing", old, found)
		}
		return nil, 0, nil
	}); err != nil {
		t.Errorf("Update: %v", err)
	}
	if ks := keys(t, b, p); !slices.Equal(ks, []string{p + "forever", long}) {
		t.Errorf("Keys = %q, want the live keys only", ks)
	}

	// Put and Update set the ttl anew: 0 keeps a value that had one.
	reset, upd := p+"reset", p+"update"
	put(t, a, reset, "1", shortTTL)
	put(t, b, reset, "2", 0)
	put(t, a, upd, "1", shortTTL)
	if err := b.Update(ctx, upd, func([]byte, bool) ([]byte, time.Duration, error) { return []byte("2"), 0, nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	ttlUpd := p + "update-ttl"
	put(t, a, ttlUpd, "1", 0)
	if err := b.Update(ctx, ttlUpd, func([]byte, bool) ([]byte, time.Duration, error) { return []byte("2"), shortTTL, nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	waitExpired(t, a, ttlUpd) // Update gave it a ttl
	time.Sleep(2 * shortTTL)
	wantValue(t, a, reset, "2", "Put with ttl 0 after a ttl")
	wantValue(t, a, upd, "2", "Update with ttl 0 after a ttl")
	// An expired key can be written again.
	put(t, b, short, "again", time.Hour)
	wantValue(t, a, short, "again", "an expired key written again")
}

// testFarTTL: a ttl far in the future (the longest time.Duration, some
// 292 years, and 250 years, past the int64 Unix nanoseconds of 2262)
// keeps the value: a store must not overflow its expiry into the past.
func testFarTTL(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	for i, ttl := range []time.Duration{math.MaxInt64, 250 * 365 * 24 * time.Hour} {
		k, u := p+"put"+strconv.Itoa(i), p+"update"+strconv.Itoa(i)
		put(t, a, k, "v", ttl)
		wantValue(t, b, k, "v", fmt.Sprintf("Put with ttl %v", ttl))
		if err := a.Update(ctx, u, func([]byte, bool) ([]byte, time.Duration, error) { return []byte("v"), ttl, nil }); err != nil {
			t.Fatalf("Update: %v", err)
		}
		wantValue(t, b, u, "v", fmt.Sprintf("Update with ttl %v", ttl))
	}
}

// testUpdatePanic: an fn that panics, recovered by the caller (as net/http
// recovers a handler's panic), leaves the key usable: the store released
// its lock, and the value is unchanged.
func testUpdatePanic(t *testing.T, a, b store.Store, p string) {
	k := p + "k"
	put(t, a, k, "v", 0)
	func() {
		defer func() { _ = recover() }()
		_ = a.Update(t.Context(), k, func([]byte, bool) ([]byte, time.Duration, error) { panic("storetest: fn panics") })
		t.Error("Update did not pass fn's panic on")
	}()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := a.Update(ctx, k, func(old []byte, _ bool) ([]byte, time.Duration, error) { return append(old, '2'), 0, nil })
		if err == nil {
			err = b.Put(ctx, k+"x", []byte("x"), 0)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Update after a panicking Update: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Update after a panicking Update still waits after 15s: the key's lock was not released")
	}
	wantValue(t, b, k, "v2", "a panicking fn changes nothing")
}

func testKeys(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	written := []string{"p/b", "p/a", "p/ab", "p/B", "p/_x", "p/%x", "p/é", "p/~", "p/a/b/c", "p", "q/a", "pa"}
	for _, k := range written {
		put(t, a, p+k, k, 0)
	}
	want := func(prefix string) []string {
		var out []string
		for _, k := range written {
			if strings.HasPrefix(p+k, prefix) {
				out = append(out, p+k)
			}
		}
		slices.Sort(out) // byte order
		return out
	}
	// Prefixes are byte strings too: "p/\xc3" (the first byte of "é")
	// is a prefix of "p/é"; a prefix no key can start with (a NUL, a
	// byte never in UTF-8, a character CheckKey refuses) yields nothing,
	// and no error.
	for _, prefix := range []string{p + "p/", p + "p", p + "p/a", p + "p/_", p + "p/%", p + "q/", p + "r", p,
		p + "p/\xc3", p + "p/\xc3\xa9", p + "p/\xc3\xa8", p + "p/\xe2", p + "p/\x00", p + "p/\xff", p + "p/\n", p + "p/\xc3a"} {
		if got := keys(t, b, prefix); !slices.Equal(got, want(prefix)) {
			t.Errorf("Keys(%q) = %q, want %q (ascending bytes; _ and %% are no wildcards)", prefix, got, want(prefix))
		}
	}
	n := 0
	for _, err := range b.Keys(ctx, p) {
		if err != nil {
			t.Fatalf("Keys: %v", err)
		}
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("Keys yielded %d keys before break, want 2", n)
	}
}

func testInvalidKeys(t *testing.T, a, _ store.Store, p string) {
	ctx := t.Context()
	bad := []string{"", "../etc/passwd", p + "a/../../b", "..", "/etc/passwd", `..\windows`, p + `a\b`,
		p + "a\x00b", p + "a\nb", p + "a\x7fb", p + "bad\xffutf8", strings.Repeat("k", store.MaxKeyLen+1)}
	for _, k := range bad {
		if err := a.Put(ctx, k, []byte("v"), 0); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := a.Get(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Get(%q) = %v, want ErrInvalidKey", k, err)
		}
		if err := a.Delete(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := a.Take(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Take(%q) = %v, want ErrInvalidKey", k, err)
		}
		err := a.Update(ctx, k, func([]byte, bool) ([]byte, time.Duration, error) {
			t.Errorf("Update(%q) ran fn", k)
			return []byte("v"), 0, nil
		})
		if !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Update(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// Dots inside names and the longest key are fine.
	put(t, a, p+"a..b/c.d", "v", 0)
	longest := p + strings.Repeat("k", store.MaxKeyLen-len(p))
	put(t, a, longest, "v", 0)
	wantValue(t, a, longest, "v", "a key of MaxKeyLen bytes")
}

func testValueLimit(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	k := p + "big"
	big := bytes.Repeat([]byte{0xa5}, store.MaxValueLen)
	if err := a.Put(ctx, k, big, 0); err != nil {
		t.Fatalf("Put of MaxValueLen bytes: %v", err)
	}
	if v, _ := get(t, b, k); !bytes.Equal(v, big) {
		t.Errorf("a value of MaxValueLen bytes comes back with %d bytes", len(v))
	}
	tooBig := append(big, 0)
	if err := a.Put(ctx, k, tooBig, 0); !errors.Is(err, store.ErrValueTooLarge) {
		t.Errorf("Put of MaxValueLen+1 bytes = %v, want ErrValueTooLarge", err)
	}
	if err := a.Put(ctx, p+"new", tooBig, 0); !errors.Is(err, store.ErrValueTooLarge) {
		t.Errorf("Put of MaxValueLen+1 bytes = %v, want ErrValueTooLarge", err)
	}
	wantMissing(t, b, p+"new", "a refused Put writes nothing")
	put(t, a, p+"small", "small", 0)
	err := b.Update(ctx, p+"small", func([]byte, bool) ([]byte, time.Duration, error) { return tooBig, 0, nil })
	if !errors.Is(err, store.ErrValueTooLarge) {
		t.Errorf("Update to MaxValueLen+1 bytes = %v, want ErrValueTooLarge", err)
	}
	wantValue(t, a, p+"small", "small", "a refused Update changes nothing")
}

func testCancelled(t *testing.T, a, _ store.Store, p string) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	k := p + "k"
	put(t, a, p+"there", "v", 0)
	if err := a.Put(ctx, k, []byte("v"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Put = %v, want context.Canceled", err)
	}
	wantMissing(t, a, k, "a cancelled Put writes nothing")
	if _, err := a.Get(ctx, p+"there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get = %v, want context.Canceled", err)
	}
	if err := a.Delete(ctx, p+"there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete = %v, want context.Canceled", err)
	}
	if _, err := a.Take(ctx, p+"there"); !errors.Is(err, context.Canceled) {
		t.Errorf("Take = %v, want context.Canceled", err)
	}
	if err := a.Update(ctx, p+"there", func([]byte, bool) ([]byte, time.Duration, error) {
		return nil, 0, nil
	}); !errors.Is(err, context.Canceled) {
		t.Errorf("Update = %v, want context.Canceled", err)
	}
	wantValue(t, a, p+"there", "v", "cancelled calls change nothing")
	var errs int
	for _, err := range a.Keys(ctx, p) {
		if err == nil {
			t.Error("Keys with a cancelled context yielded a key")
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Keys = %v, want context.Canceled", err)
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("Keys with a cancelled context yielded %d errors, want 1", errs)
	}
}

// testRaceTakeOnce: goroutines of two clients take the same keys; each
// key is taken exactly once (a pending SCA completed by one callback).
func testRaceTakeOnce(t *testing.T, a, b store.Store, p string) {
	const nKeys, perClient = 8, 8
	for i := range nKeys {
		put(t, a, p+strconv.Itoa(i), strconv.Itoa(i), time.Hour)
	}
	var (
		wins [nKeys]atomic.Int32
		wg   sync.WaitGroup
	)
	start := make(chan struct{})
	for _, st := range []store.Store{a, b} {
		for range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range nKeys {
					v, err := st.Take(t.Context(), p+strconv.Itoa(i))
					switch {
					case errors.Is(err, store.ErrNotStored):
					case err != nil:
						t.Errorf("Take: %v", err)
					case string(v) != strconv.Itoa(i):
						t.Errorf("Take(%d) = %q", i, v)
					default:
						wins[i].Add(1)
					}
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	for i := range nKeys {
		if n := wins[i].Load(); n != 1 {
			t.Errorf("key %d taken %d times by %d goroutines of two clients, want exactly once", i, n, 2*perClient)
		}
	}
}

// testRaceLastBudgetCall: goroutines of two clients spend a budget kept
// as a counter with a cap, as package accounts does: exactly cap calls
// are granted, never more, and the stored count says so.
func testRaceLastBudgetCall(t *testing.T, a, b store.Store, p string) {
	const (
		limit     = 24
		perClient = 12
		attempts  = 4 // per goroutine: 2*12*4 = 96 attempts for 24 calls
	)
	k := p + "accounts/budget/race"
	errSpent := errors.New("storetest: budget spent")
	var (
		granted atomic.Int32
		wg      sync.WaitGroup
	)
	start := make(chan struct{})
	for _, st := range []store.Store{a, b} {
		for range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range attempts {
					err := st.Update(t.Context(), k, func(old []byte, found bool) ([]byte, time.Duration, error) {
						n := 0
						if found {
							var err error
							if n, err = strconv.Atoi(string(old)); err != nil {
								return nil, 0, err
							}
						}
						if n >= limit {
							return nil, 0, errSpent
						}
						return []byte(strconv.Itoa(n + 1)), time.Hour, nil
					})
					switch {
					case err == nil:
						granted.Add(1)
					case errors.Is(err, errSpent):
					default:
						t.Errorf("Update: %v", err)
					}
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	if n := granted.Load(); n != limit {
		t.Errorf("%d calls granted by two clients for a budget of %d: want exactly the budget", n, limit)
	}
	wantValue(t, b, k, strconv.Itoa(limit), "the stored count")
}

// testRaceNoLostUpdate: increments from goroutines of two clients, some
// also Putting and Taking other keys, are all counted.
func testRaceNoLostUpdate(t *testing.T, a, b store.Store, p string) {
	const perClient, adds = 6, 8
	k := p + "counter"
	var wg sync.WaitGroup
	for c, st := range []store.Store{a, b} {
		for g := range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				other := fmt.Sprintf("%sother/%d/%d", p, c, g)
				for range adds {
					err := st.Update(t.Context(), k, func(old []byte, _ bool) ([]byte, time.Duration, error) {
						n, _ := strconv.Atoi(string(old))
						return []byte(strconv.Itoa(n + 1)), 0, nil
					})
					if err != nil {
						t.Errorf("Update: %v", err)
					}
					if err := st.Put(t.Context(), other, []byte("x"), 0); err != nil {
						t.Errorf("Put: %v", err)
					}
					if _, err := st.Take(t.Context(), other); err != nil {
						t.Errorf("Take of its own key: %v", err)
					}
				}
			}()
		}
	}
	wg.Wait()
	wantValue(t, a, k, strconv.Itoa(2*perClient*adds), "no increment lost")
}

// testJournal: what package payments does with the store. One client
// records intents and outcomes; the other (a new replica after a crash)
// lists the entries without an outcome and records their resolution,
// which the first then sees.
func testJournal(t *testing.T, a, b store.Store, p string) {
	ctx := t.Context()
	for i := range 5 {
		put(t, a, fmt.Sprintf("%spayments/journal/req-%d", p, i), "intent", 0)
	}
	for i := range 3 {
		if err := a.Update(ctx, fmt.Sprintf("%spayments/journal/req-%d", p, i), func(old []byte, found bool) ([]byte, time.Duration, error) {
			if !found {
				return nil, 0, errors.New("storetest: intent missing")
			}
			return append(old, "+created"...), 0, nil
		}); err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	var inDoubt []string
	for _, k := range keys(t, b, p+"payments/journal/") {
		if v, _ := get(t, b, k); string(v) == "intent" {
			inDoubt = append(inDoubt, k)
		}
	}
	want := []string{p + "payments/journal/req-3", p + "payments/journal/req-4"}
	if !slices.Equal(inDoubt, want) {
		t.Fatalf("entries without an outcome seen by the other client = %q, want %q", inDoubt, want)
	}
	for _, k := range inDoubt {
		if err := b.Update(ctx, k, func(old []byte, _ bool) ([]byte, time.Duration, error) {
			return append(old, "+resolved"...), 0, nil
		}); err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	wantValue(t, a, want[0], "intent+resolved", "the resolution seen by the first client")
}
