package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorMessagesBounded: an error answer's *Error keeps the first
// MaxMessages of its tppMessages (they are shown; the interface's
// answers carry a few); before, the thousands a 64 KiB body can list
// were all kept. ClipMessages gives a copy when it cuts, so the rest is
// not held, and the list itself when there are no more.
func TestErrorMessagesBounded(t *testing.T) {
	t.Parallel()
	msgs := make([]string, 3000)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"category":"ERROR","code":"C%d"}`, i)
	}
	e := newError("x.Get", 400, "rid", nil, []byte(`{"tppMessages":[`+strings.Join(msgs, ",")+`]}`))
	require.Len(t, e.Messages, MaxMessages)
	assert.Equal(t, "C0", e.Messages[0].Code)
	assert.True(t, e.HasCode("C1"))
	assert.False(t, e.HasCode(fmt.Sprint("C", MaxMessages)))

	few := make([]TPPMessage, MaxMessages)
	assert.Same(t, &few[0], &ClipMessages(few)[0])
	many := make([]TPPMessage, MaxMessages+1)
	cut := ClipMessages(many)
	assert.Len(t, cut, MaxMessages)
	assert.Equal(t, MaxMessages, cap(cut))
	assert.NotSame(t, &many[0], &cut[0])
}
