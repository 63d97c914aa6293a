package journal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
)

// TestRecordedStatusBounded: a transactionStatus that is not the
// interface's form (1 to 4 ASCII letters) is recorded as
// journal.UnreadableStatus, from the answer to a resend that created the
// resource and from a status read alike, and the resolution stays
// (the bank answered); a 4-letter code is recorded as sent. The bank's
// text was recorded whole: 8 KiB of it, a line break included, in the
// entry, its printed forms and its JSON.
func TestRecordedStatusBounded(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	long := strings.Repeat("ACSC", 2048) + `\nforged log line`
	for _, tt := range []struct{ name, sent, want string }{
		{"long", long, journal.UnreadableStatus},
		{"five letters", "ACSCX", journal.UnreadableStatus},
		{"odd characters", `AC\u001b[`, journal.UnreadableStatus},
		{"a space", "ACS ", journal.UnreadableStatus},
		{"the interface's form", "ACSP", "ACSP"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newThingBank(t)
			c := b.client(t)
			j, _ := newJournal(t)
			e := inDoubt(t, b, c, j, fmt.Sprintf(`{"status":%q}`, tt.name))
			b.status.Store(&tt.sent)

			res, err := j.Resolve(ctx, c, e)
			require.NoError(t, err)
			require.Equal(t, journal.ResolvedCreated, res.Kind)
			assert.Equal(t, tt.want, res.Status)
			after, err := j.Entry(ctx, e.RequestID)
			require.NoError(t, err)
			require.NotNil(t, after.Resolution)
			assert.Equal(t, tt.want, after.Resolution.Status, "recorded")

			again, err := j.Resolve(ctx, c, after)
			require.NoError(t, err)
			require.Equal(t, journal.ResolvedStatus, again.Kind, "the bank answered a status")
			assert.Equal(t, tt.want, again.Status)
			after, err = j.Entry(ctx, e.RequestID)
			require.NoError(t, err)
			require.NotNil(t, after.Resolution)
			assert.Equal(t, tt.want, after.Resolution.Status, "recorded")

			js, err := json.Marshal(after)
			require.NoError(t, err)
			var logged bytes.Buffer
			slog.New(slog.NewJSONHandler(&logged, nil)).Info("m", "entry", after, "res", again)
			for name, form := range map[string]string{
				"json": string(js), "v": fmt.Sprintf("%v %+v %#v", after, after, again), "slog": logged.String(),
			} {
				assert.NotContains(t, form, "ACSCACSC", name)
				assert.NotContains(t, form, "forged", name)
				assert.Contains(t, form, tt.want, name)
			}
		})
	}
}

// TestStoredStatusReadBounded: a resolution an earlier release stored
// with the bank's status text whole is read bounded.
func TestStoredStatusReadBounded(t *testing.T) {
	t.Parallel()
	var r journal.Resolution
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"status","paymentId":"p1","status":"`+strings.Repeat("X", 10000)+`"}`), &r))
	assert.Equal(t, journal.UnreadableStatus, r.Status)
	assert.Equal(t, "p1", r.ID)
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"status","paymentId":"p1","status":"ACCP"}`), &r))
	assert.Equal(t, "ACCP", r.Status)
}
