package journal_test

import (
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
)

// One damaged entry does not hide the payments in doubt after it:
// InDoubt and Entries yield it as an *UnreadableEntryError naming its
// request id, in its place, and go on with the next entries. A consumer
// that stops at the first error sees no more than before.
func TestUnreadableEntryDoesNotHideTheRest(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)
	var ids []string
	for _, body := range []string{`{"a":1}`, `{"b":1}`, `{"c":1}`} {
		ids = append(ids, inDoubt(t, b, c, j, body).RequestID)
	}
	damaged := ids[0]
	if ids[1] < damaged {
		damaged = ids[1] // not the last in key order: entries follow it
	}
	require.NoError(t, st.Put(ctx, "journal/entry/"+damaged, []byte(`{"intent":`), 0))

	for name, seq := range map[string]iter.Seq2[journal.Entry, error]{"InDoubt": j.InDoubt(ctx), "Entries": j.Entries(ctx)} {
		var yielded, unreadable []string
		for e, err := range seq {
			var ue *journal.UnreadableEntryError
			if errors.As(err, &ue) {
				unreadable = append(unreadable, ue.RequestID)
				continue
			}
			require.NoError(t, err)
			yielded = append(yielded, e.RequestID)
		}
		assert.Equal(t, []string{damaged}, unreadable, name)
		assert.Len(t, yielded, len(ids)-1, name)
		assert.NotContains(t, yielded, damaged, name)
	}

	// The error matches both sentinels and says which entry.
	for _, err := range j.InDoubt(ctx) {
		if err == nil {
			continue
		}
		assert.ErrorIs(t, err, journal.ErrEntryUnreadable)
		assert.ErrorIs(t, err, journal.ErrJournal)
		assert.Contains(t, err.Error(), damaged)
		break
	}
	_, err := j.Entry(ctx, damaged)
	require.ErrorIs(t, err, journal.ErrEntryUnreadable)
}
