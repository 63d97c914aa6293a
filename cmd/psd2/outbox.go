package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tppkit/psd2/pgstore"
)

// outboxUsage is the usage line of psd2 outbox.
const outboxUsage = "(list | retry ID... | retry -all | discard ID) -store POSTGRES-URL [-schema NAME] [-limit N]"

// envStore names the variable -store falls back to, so that a password
// in the connection string need not be on the command line.
const envStore = "PSD2_STORE"

// outboxReport is what psd2 outbox list prints. More is set when
// -limit cut the list: Stats.Dead counts them all.
type outboxReport struct {
	Stats       pgstore.OutboxStats  `json:"stats"`
	DeadLetters []pgstore.DeadLetter `json:"deadLetters"`
	More        bool                 `json:"more,omitempty"`
}

// outboxResult is what retry and discard print.
type outboxResult struct {
	Retried   []string `json:"retried,omitempty"`
	Discarded []string `json:"discarded,omitempty"`
	Count     int64    `json:"count"`
}

func runOutbox(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "retry" && args[0] != "discard") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(e.stderr, "Usage: psd2 outbox %s\n", outboxUsage)
			return nil
		}
		return usagef("want a subcommand: list, retry or discard")
	}
	sub := args[0]
	fs := e.flags("outbox "+sub, outboxUsage)
	conn, schema := new(string), new(string)
	settingVar(fs, conn, "store", "", "PostgreSQL connection string (URL or key=value) of the pgstore holding the outbox")
	settingVar(fs, schema, "schema", pgstore.DefaultSchema, "the pgstore's schema")
	waitS := new(string)
	registerStoreWait(fs, waitS)
	limit := fs.Int("limit", 100, fmt.Sprintf("list: at most this many dead letters (1 to %d)", pgstore.MaxDeadLetters))
	all := fs.Bool("all", false, "retry: every dead letter")
	if err := parse(fs, args[1:], sub != "list"); err != nil {
		return err
	}
	switch {
	case sub == "list" && (*limit < 1 || *limit > pgstore.MaxDeadLetters):
		return usagef("-limit %d: want 1 to %d", *limit, pgstore.MaxDeadLetters)
	case sub == "retry" && *all && fs.NArg() > 0:
		return usagef("retry takes IDs or -all, not both")
	case sub == "retry" && !*all && fs.NArg() == 0:
		return usagef("retry takes the IDs of dead letters (psd2 outbox list shows them), or -all")
	case sub == "discard" && fs.NArg() != 1:
		return usagef("discard takes one ID (psd2 outbox list shows them)")
	}
	wait, err := parseStoreWait(*waitS)
	if err != nil {
		return err
	}
	ob, done, err := openOutbox(ctx, *conn, *schema, wait)
	if err != nil {
		return err
	}
	defer done()
	// Each call to the outbox waits at most wait.
	call := func(f func(ctx context.Context) error) error {
		ctx, end := waiting(ctx, wait)
		return end(f(ctx))
	}
	switch sub {
	case "list":
		var stats pgstore.OutboxStats
		var dead []pgstore.DeadLetter
		if err := call(func(ctx context.Context) (err error) { stats, dead, err = ob.List(ctx, *limit); return err }); err != nil {
			return err
		}
		return listDeadLetters(e, stats, dead)
	case "discard":
		if err := call(func(ctx context.Context) error { return ob.Discard(ctx, fs.Arg(0)) }); err != nil {
			return deadLetterError(err, fs.Arg(0))
		}
		res := outboxResult{Discarded: []string{fs.Arg(0)}, Count: 1}
		return e.emit(res, func(w io.Writer) {
			fmt.Fprintf(w, "discarded %s: it will never be delivered; the later events of its subject go on\n", fs.Arg(0))
		})
	}
	var res outboxResult
	if *all {
		if err := call(func(ctx context.Context) (err error) { res.Count, err = ob.RetryAll(ctx); return err }); err != nil {
			return err
		}
	} else {
		for _, id := range fs.Args() {
			if err := call(func(ctx context.Context) error { return ob.Retry(ctx, id) }); err != nil {
				if len(res.Retried) > 0 {
					fmt.Fprintf(e.stderr, "retried before the error: %s\n", strings.Join(res.Retried, " "))
				}
				return deadLetterError(err, id)
			}
			res.Retried = append(res.Retried, id)
			res.Count++
		}
	}
	return e.emit(res, func(w io.Writer) {
		fmt.Fprintf(w, "%d dead letter(s) pending again, with a fresh set of attempts: the next consumer takes them, then the events they held\n", res.Count)
	})
}

// openOutbox opens the outbox of the pgstore at conn (or $PSD2_STORE)
// in schema, and refuses a database or schema that holds none.
func openOutbox(ctx context.Context, conn, schema string, wait time.Duration) (*pgstore.Outbox, func(), error) {
	if conn == "" {
		conn = os.Getenv(envStore)
	}
	if conn == "" {
		return nil, nil, usagef("give -store, the PostgreSQL connection string of the pgstore (or set %s)", envStore)
	}
	if kindOf(conn) != storePostgres {
		// Never quote it: it may hold a password.
		return nil, nil, usagef("-store is not a PostgreSQL connection string (postgres://... or key=value): the outbox lives in a pgstore, not in a file store")
	}
	st, err := openPgstore(ctx, conn, schema, wait, outboxVersion)
	if err != nil {
		return nil, nil, err
	}
	return st.Outbox(), st.Close, nil
}

// outboxVersion is the pgstore schema version that has dead letters
// (migration 0003).
const outboxVersion = 3

// deadLetterError says in words that id is no dead letter.
func deadLetterError(err error, id string) error {
	if errors.Is(err, pgstore.ErrNotDeadLetter) {
		return fmt.Errorf("no dead letter with ID %s (psd2 outbox list shows them; a pending or delivered event needs nothing)", id)
	}
	return err
}

// noEventNote is said when the outbox holds no event at all.
const noEventNote = "note: this outbox holds no event at all (none pending, dead or delivered): either the service publishes no events to it, " +
	"or every one was delivered and pruned, or -store and -schema are not the service's (check them before reading this as no dead letters)"

// listDeadLetters prints the outbox's counts and up to limit dead
// letters, read at one moment (Outbox.List): the counts and the letters
// listed agree.
func listDeadLetters(e *env, stats pgstore.OutboxStats, dead []pgstore.DeadLetter) error {
	rep := outboxReport{Stats: stats, DeadLetters: dead, More: int64(len(dead)) < stats.Dead}
	if stats.Pending == 0 && stats.Dead == 0 && stats.Delivered == 0 && len(dead) == 0 {
		fmt.Fprintln(e.stderr, noEventNote)
	}
	return e.emit(rep, func(w io.Writer) {
		if len(dead) > 0 {
			fmt.Fprintf(w, "%-32s  %-24s  %8s  %-20s  %5s\n", "ID", "KIND", "ATTEMPTS", "FAILED", "HOLDS")
		}
		for _, d := range dead {
			fmt.Fprintf(w, "%-32s  %-24s  %8d  %-20s  %5d\n", d.ID, d.Kind, d.Attempts, d.FailedAt.Format(time.RFC3339), d.Holds)
			if d.Reason != "" {
				fmt.Fprintf(w, "  refused, never given to a handler: %s\n", d.Reason)
			}
		}
		fmt.Fprintf(w, "%d dead letter(s)", stats.Dead)
		if rep.More {
			fmt.Fprintf(w, " (%d shown: raise -limit)", len(dead))
		}
		var holds int64
		for _, d := range dead {
			holds += d.Holds
		}
		switch {
		case holds > 0 && rep.More:
			// Those not shown may hold more.
			fmt.Fprintf(w, ", the shown ones holding %d later event(s) of their subjects", holds)
		case holds > 0:
			fmt.Fprintf(w, ", holding %d later event(s) of their subjects", holds)
		}
		fmt.Fprintf(w, "; %d pending, %d of them retrying; %d delivered\n", stats.Pending, stats.Retrying, stats.Delivered)
		if stats.Dead > 0 {
			fmt.Fprintln(w, "Once the handler can take them: psd2 outbox retry ID... (or -all). An event no handler will ever take: psd2 outbox discard ID.")
		}
	})
}
