package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
)

// psd2 outbox list --json says when -limit cut the dead letters, as the
// text does ("(1 shown: raise -limit)") and as psd2 reconcile's "more":
// a script that reads deadLetters alone does not take the first -limit
// for all of them. On the code before the JSON had no such member.
func TestOutboxListJSONSaysWhenLimitCut(t *testing.T) {
	conn := testPostgres(t)
	st, schema := outboxSchema(t, conn, pgstore.WithOutboxMaxAttempts(1))
	ctx := t.Context()
	ob := st.Outbox()
	for i := range 2 {
		env, err := events.Wrap(events.PaymentStatusChanged{Payment: fmt.Sprint("pay-", i), From: "RCVD", To: "ACTC"}, time.Now())
		require.NoError(t, err)
		require.NoError(t, ob.Publish(ctx, env))
	}
	for range 10 {
		n, err := ob.Consume(ctx, 10, func(context.Context, pgx.Tx, events.Envelope) error { return errors.New("refused") })
		if n == 0 && err == nil {
			break
		}
	}
	args := []string{"outbox", "list", "--json", "-store", conn, "-schema", schema}
	for limit, more := range map[string]bool{"1": true, "2": false} {
		out, errOut, code := psd2(t, append(args, "-limit", limit)...)
		require.Equal(t, exitOK, code, errOut)
		var rep map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		var got bool
		if raw, ok := rep["more"]; ok {
			require.NoError(t, json.Unmarshal(raw, &got))
		}
		assert.Equal(t, more, got, "-limit %s: %s", limit, out)
	}
}
