package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// entryReadFailStore fails every Get of the journal entry under key once
// fail is set: the entry can be updated, not read back.
type entryReadFailStore struct {
	store.Store
	key  string
	fail atomic.Bool
}

func (s *entryReadFailStore) Get(ctx context.Context, key string) ([]byte, error) {
	if key == s.key && s.fail.Load() {
		return nil, errors.New("store down while reading the entry back")
	}
	return s.Store.Get(ctx, key)
}

// A resolve whose resend outlived its claim finds a person's settlement
// in force (ErrConflict), and then cannot read the entry back. psd2
// journal resolve still prints what the resend found, says a person
// settled the entry, and exits non-zero. On the code before it panicked
// (the report named the person's reason from the entry read before the
// resolve, which had no resolution), and what the resend found was
// never printed.
func TestJournalResolveConflictNotReadBack(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, _, _, _ := tppFiles(t)
	fs, err := store.NewFileStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	id := inDoubt(t, s, creds, fs)
	st := &entryReadFailStore{Store: fs, key: "journal/entry/" + id}
	clock := testtpp.NewClock(time.Now())
	jc, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st), client.WithClock(clock.Now))
	require.NoError(t, err)
	j, err := journal.New(st, journal.WithClient(jc))
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	en, err := j.Entry(ctx, id)
	require.NoError(t, err)

	// The bank holds the resend 5 s, then creates the payment.
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultHang, Delay: 5 * time.Second, Method: http.MethodPost, PathPrefix: "/v1/payments/", Count: 1})
	var out, errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- resolveEntry(ctx, &env{stdout: &out, stderr: &errOut}, j, c, en, banks.Default(), time.Now())
	}()
	require.Eventually(t, func() bool {
		e, err := j.Entry(ctx, id)
		return err == nil && e.Claimed(clock.Now()) != nil
	}, 3*time.Second, 10*time.Millisecond, "the resend claims the entry")
	// The claim runs out (the journal's clock, and the leases on the
	// store's), and a person settles the entry meanwhile.
	clock.Add(c.LongestCall() + time.Hour)
	require.NoError(t, fs.Delete(ctx, "journal/claim/"+id))
	require.NoError(t, fs.Delete(ctx, "journal/flight/"+id))
	_, err = j.SettleByPerson(ctx, id, "ops-anna", "bank support finds nothing")
	require.NoError(t, err)
	st.fail.Store(true)

	err = <-done
	t.Logf("stdout: %s\nstderr: %s\nerr: %v", out.String(), errOut.String(), err)
	var failed failedError
	require.ErrorAs(t, err, &failed, "a conflict is no success")
	assert.Contains(t, out.String(), "Payment id: ", "what the resend found is printed")
	assert.Contains(t, out.String(), "CONFLICT")
	assert.Contains(t, out.String(), "JOURNAL NOT READ BACK")
}
