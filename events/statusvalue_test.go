package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
)

// A payment's transaction status is the bank's value: one outside the
// interface's list (payments.TransactionStatus.IsKnown) is free text the
// bank chose, up to client.MaxIDLength bytes through the payments
// package and any length handed to PaymentStatus directly, and may name
// the PSU. It reaches the event as OTHER, as a tppMessage code outside
// the list does (client.SafeCode), so that no bank text reaches a
// payload and a bank sending a new odd status at every poll makes one
// event, not one per poll. On the code before, the status was published
// verbatim: the planted name and number were in the payload, a 1 MiB
// status made a 1 MiB event, and 20 odd statuses made 20 events.
func TestPaymentStatusOutsideTheListIsOther(t *testing.T) {
	t.Parallel()
	const planted = "RJCT Kari Nordmann 01019912345 NO9386011117947"
	var datas []string
	em, err := events.NewEmitter(events.Handler(func(_ context.Context, e events.Envelope) error {
		datas = append(datas, string(e.Data))
		return nil
	}))
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, em.PaymentStatus(ctx, "req-1", "RCVD", "ACTC"))
	require.NoError(t, em.PaymentStatus(ctx, "req-1", "ACTC", planted))
	prev := planted
	for i := range 20 {
		next := fmt.Sprintf("odd status %d of the bank", i)
		require.NoError(t, em.PaymentStatus(ctx, "req-1", prev, next))
		prev = next
	}
	require.NoError(t, em.PaymentStatus(ctx, "req-1", prev, "ACSC"))
	require.NoError(t, em.PaymentStatus(ctx, "req-2", "ACTC", strings.Repeat("x", 1<<20)))
	require.Len(t, datas, 4, "RCVD to ACTC, ACTC to OTHER, OTHER to ACSC, and req-2's: %v", len(datas))
	assert.JSONEq(t, `{"payment":"req-1","from":"RCVD","to":"ACTC"}`, datas[0])
	assert.JSONEq(t, `{"payment":"req-1","from":"ACTC","to":"OTHER"}`, datas[1])
	assert.JSONEq(t, `{"payment":"req-1","from":"OTHER","to":"ACSC"}`, datas[2])
	assert.JSONEq(t, `{"payment":"req-2","from":"ACTC","to":"OTHER"}`, datas[3])
	for _, d := range datas {
		assert.NotContains(t, d, "Nordmann")
		assert.Less(t, len(d), 256)
	}
}
