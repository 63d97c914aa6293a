package main

import (
	"context"
	"encoding/binary"
	"hash/crc64"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestReconcileOfALaterReleasesState: a state a later release wrote (a
// replica upgraded first, in a rolling upgrade) is no corrupt state: psd2
// reconcile exits 3 saying a later release wrote it and to upgrade, never
// that it is corrupt (whose remedy, Forget, loses the account's tracked
// payments). Before, it said "corrupt state: unknown version".
func TestReconcileOfALaterReleasesState(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	key := "reconcile/account/" + string(reconcileAccount)
	require.NoError(t, st.Update(context.Background(), key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		require.True(t, found)
		b := append([]byte(nil), old...)
		b[0] = 0x7f // a far later form, its header's checksum made anew
		n, k := binary.Uvarint(b[1:])
		end := 1 + k + int(n)
		binary.BigEndian.PutUint64(b[end:end+8], crc64.Checksum(b[:end], crc64.MakeTable(crc64.ECMA)))
		return b, 0, nil
	}))

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	assert.Equal(t, exitRuntime, code, out)
	assert.Contains(t, errOut, "later release")
	assert.Contains(t, errOut, "upgrade psd2")
	assert.NotContains(t, errOut, "corrupt")
	assert.NotContains(t, out, "payment(s)", "no list, no count")
}
