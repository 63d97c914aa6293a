package riverrefresh

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tppkit/psd2/pgstore/internal/pgretry"
)

// QueueStats is the state of one bank's queue: how many of its jobs are
// in each of River's states an on-call acts on, and whether it is
// paused. Completed jobs are not counted (River keeps them until its
// retention cleans them).
type QueueStats struct {
	// Bank is the bank's name (Config.Banks).
	Bank string `json:"bank"`
	// Available jobs wait for a worker; Running ones are being worked,
	// or were fetched ahead and wait in an engine (Config.FetchAhead),
	// or are done and wait for River's batched completion.
	Available int64 `json:"available"`
	Running   int64 `json:"running"`
	// Scheduled jobs wait for their time: snoozed (a pause, a budget
	// spent, a spacing) or enqueued ahead. Retryable ones failed an
	// attempt and wait for the next.
	Scheduled int64 `json:"scheduled"`
	Retryable int64 `json:"retryable"`
	// Discarded jobs ran out of attempts; Cancelled ones the engine ended
	// (Event "cancelled" or "discarded").
	Discarded int64 `json:"discarded"`
	Cancelled int64 `json:"cancelled"`
	// PausedAt is when the queue was paused (a bank's 429 with
	// Retry-After, or an operator); zero when it runs.
	PausedAt time.Time `json:"pausedAt,omitzero"`
}

// QueueStates are River's job states QueueStats counts, in its order.
var QueueStates = []string{"available", "running", "scheduled", "retryable", "discarded", "cancelled"}

// QueueStats counts each bank queue's jobs by state, and reads whether
// it is paused, in two statements, for every bank of the engine (sorted
// by name); a statement that never reached the server (an idle
// connection of the pool that died in a restart or a failover) runs
// again at once on another connection. The otel module exports them as
// the gauges psd2.refresh.queue.jobs (by psd2.bank and
// psd2.refresh.job_state) and psd2.refresh.queue.paused, read at each
// collection through its Gauges.Queues callback; this module does not
// import OpenTelemetry, so the TPP's program turns each QueueStats into
// an otel.QueueState (the comment of otel.QueueState has the few lines;
// pgstore/examples/refreshworkers does it in queues.go).
func (e *Engine) QueueStats(ctx context.Context) ([]QueueStats, error) {
	names := make([]string, 0, len(e.banks))
	for name := range e.banks {
		names = append(names, name)
	}
	slices.Sort(names)
	queues := make([]string, len(names))
	byQueue := make(map[string]*QueueStats, len(names))
	out := make([]QueueStats, len(names))
	for i, name := range names {
		queues[i] = queueOf(name)
		out[i].Bank = name
		byQueue[queues[i]] = &out[i]
	}
	jobs, queueTable := e.table("river_job"), e.table("river_queue")
	// Each read that met a dead connection (after a restart or a
	// failover) runs again at once on another (pgretry.Statement).
	err := pgretry.Statement(ctx, e.cfg.Pool, func() error {
		rows, err := e.cfg.Pool.Query(ctx, "SELECT queue, state::text, count(*) FROM "+jobs+
			" WHERE queue = ANY($1) AND state::text = ANY($2) GROUP BY queue, state", queues, QueueStates)
		if err != nil {
			return err
		}
		var queue, state string
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&queue, &state, &n}, func() error {
			s := byQueue[queue]
			if s == nil {
				return nil
			}
			switch state {
			case "available":
				s.Available = n
			case "running":
				s.Running = n
			case "scheduled":
				s.Scheduled = n
			case "retryable":
				s.Retryable = n
			case "discarded":
				s.Discarded = n
			case "cancelled":
				s.Cancelled = n
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("riverrefresh: queue stats: %w", err)
	}
	err = pgretry.Statement(ctx, e.cfg.Pool, func() error {
		rows, err := e.cfg.Pool.Query(ctx, "SELECT name, paused_at FROM "+queueTable+" WHERE name = ANY($1) AND paused_at IS NOT NULL", queues)
		if err != nil {
			return err
		}
		var queue string
		var paused time.Time
		_, err = pgx.ForEachRow(rows, []any{&queue, &paused}, func() error {
			if s := byQueue[queue]; s != nil {
				s.PausedAt = paused.UTC()
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("riverrefresh: queue stats: %w", err)
	}
	return out, nil
}

// table is River's table name, in the engine's schema, quoted.
func (e *Engine) table(name string) string {
	if e.cfg.Schema == "" {
		return pgx.Identifier{name}.Sanitize()
	}
	return pgx.Identifier{e.cfg.Schema, name}.Sanitize()
}
