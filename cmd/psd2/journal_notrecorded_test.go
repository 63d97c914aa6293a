package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// errResolutionLost is the failure of resolutionFailStore.
var errResolutionLost = errors.New("store down while recording the resolution")

// resolutionFailStore fails every write of a resolution to the journal
// entry under key, and only those: the resend's claim and its own entry
// are written, so the bank creates the payment, but the original entry
// never learns what became of it.
type resolutionFailStore struct {
	store.Store
	key string
}

func (s *resolutionFailStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if key != s.key {
		return s.Store.Update(ctx, key, fn)
	}
	return s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		v, ttl, err := fn(old, found)
		if err == nil && bytes.Contains(v, []byte(`"resolution"`)) {
			return nil, 0, errResolutionLost
		}
		return v, ttl, err
	})
}

// TestJournalResolveNotRecorded: psd2 journal resolve whose resend makes
// the payment at the bank, but whose journal cannot record it, prints
// what it learned (the payment's id, its approval link), says that the
// journal was not updated and how to record the finding by hand (and not
// to resolve again first), never says there is nothing to do, and exits
// non-zero; as text and as JSON.
func TestJournalResolveNotRecorded(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	fs, err := store.NewFileStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	for _, asJSON := range []bool{false, true} {
		id := inDoubt(t, s, creds, fs)
		st := &resolutionFailStore{Store: fs, key: "journal/entry/" + id}
		j, err := journal.New(st)
		require.NoError(t, err)
		en, err := j.Entry(t.Context(), id)
		require.NoError(t, err)
		c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
		require.NoError(t, err)
		before := len(s.Control().Payments())

		var out, errOut bytes.Buffer
		err = resolveEntry(t.Context(), &env{stdout: &out, stderr: &errOut, json: asJSON}, j, c, en, banks.Default(), time.Now())
		var failed failedError
		require.ErrorAs(t, err, &failed, "a resolve the journal did not record is no success: %s", out.String())
		assert.Contains(t, failed.msg, "journal was not updated")

		held := s.Control().Payments()
		require.Len(t, held, before+1, "the resend made the payment at the bank")
		paymentID := held[len(held)-1].ID
		require.NotEmpty(t, paymentID)

		text := out.String()
		if asJSON {
			var rep resolveReport
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep), text)
			assert.Equal(t, journal.ResolvedCreated, rep.Kind)
			assert.Equal(t, paymentID, rep.ID)
			assert.NotEmpty(t, rep.SCARedirect)
			assert.Contains(t, rep.Journal, "NOT UPDATED")
			assert.Contains(t, rep.NextStep, "psd2 journal settle")
			continue
		}
		assert.Contains(t, text, "Payment id: "+paymentID)
		assert.Contains(t, text, "scaRedirect: https://")
		assert.Contains(t, text, "JOURNAL NOT UPDATED")
		assert.Contains(t, text, "psd2 journal settle -by YOU -reason")
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "psd2 journal settle") {
				assert.Contains(t, l, paymentID, "the settle command carries the id")
			}
		}
		assert.Contains(t, text, "Do not run psd2 journal resolve on it before that")
		assert.NotContains(t, strings.ToLower(text), "nothing to do")

		// The journal indeed does not hold it: the entry is still in doubt.
		en, err = j.Entry(t.Context(), id)
		require.NoError(t, err)
		assert.True(t, en.InDoubt())
	}
}
