// Package riverrefresh runs the background refresh of package refresh on
// River (github.com/riverqueue/river), a job queue on PostgreSQL, for a
// TPP that runs several replicas: one job per account and round,
// distributed over every replica's workers, each bank with a queue and a
// worker limit of its own.
//
// Each replica makes an [Engine] with the same [Config]: the pool of
// River's tables, and per bank an accounts.Service on a client whose
// store is shared by every replica (the pgstore Store) and the store of
// the bank's PSU sessions. [Engine.Migrate] creates River's tables (every
// replica may call it at start: a PostgreSQL advisory lock serialises the
// calls); [Engine.Start] starts the engine.
//
//   - Scheduling: an engine with Config.Schedule enqueues every
//     Config.ScheduleEvery the current round of each bank (River's
//     leader, whichever engine River elects, inserts the schedule job,
//     and an engine with Schedule inserts it too when it starts, one per
//     bank all the same; an engine with Schedule runs it): a job per
//     account and card account
//     remembered by a stored
//     session (sca.SaveSession, refresh.Remember) whose consent has not
//     ended. Rounds are Config.Spacing long (refresh.DefaultSpacing: 4 a
//     day); a job is unique per account and round, so any number of
//     replicas enqueue each round once ([Engine.Enqueue]). A schedule
//     job that can never run (its arguments do not decode, its bank is
//     no longer one of the engine's) ends at once through River's
//     JobCancel, never retried.
//   - Working: an engine with Config.Work runs the jobs with the step of
//     package refresh (refresh.Refresher.Refresh; one code path): the
//     account's calls are reserved, and the account claimed for the
//     round, in one write of the shared store before the first call. The
//     result goes to Config.Handle (a refresh.Result: keep its Cursor);
//     its outcome maps onto River: done completes the job; budget
//     exhausted (or not due yet, or claimed by another job) snoozes it
//     until the time the next call is allowed; reconnect needed and
//     refused end it for good through River's JobCancel, never retried
//     (an [Event] "cancelled" or "discarded"; so does a job that can
//     never run: undecodable arguments, an unknown bank, an invalid
//     session key, a stored session gone, undecodable or invalid); the
//     bank's pause (a 429 with Retry-After, at most client.RetryAfterCap:
//     the budget's, budget.Budget.PausedUntil, shared by every replica)
//     pauses the bank's queue until it ends (an Event, and any engine
//     resumes it within about two seconds of the end; an engine started
//     after every engine stopped during the pause resumes the queue River
//     kept paused, from the pause's end the engines recorded in the
//     client's store, key "riverrefresh/paused/" and the bank) and
//     snoozes the job; another transient failure is retried with
//     River's backoff, but no sooner than the bank said (a 5xx's
//     Retry-After, within client.RetryAfterCap and an hour).
//     The job's refresh.Job is made once, with refresh.NewJob, when the
//     job runs; the engine's times are on the budget's clock
//     (budget.Budget.Now).
//   - Fetching: a bank's queue fetches jobs at most every
//     Config.FetchCooldown (DefaultFetchCooldown, 20 ms; River's default
//     is 100 ms) and polls for them every Config.FetchPollInterval
//     (DefaultFetchPollInterval, 250 ms; River's is 1 s) besides River's
//     notice of each insert. A refresh job takes tens of milliseconds:
//     with River's cooldown a worker slot freed would wait up to 100 ms
//     for its next job, about a job's own time. River fetches only for
//     free slots, and a slot that frees during a fetch waits for the
//     next job's end: the engine takes Config.FetchAhead jobs more
//     (DefaultFetchAhead, 8) and runs Workers of them at once, so a
//     worker that ends starts a job at hand while River fetches, and
//     each fetch brings several jobs. The
//     bounds are checked by [New] (a [ConfigError]). River completes jobs in batches (every
//     250 ms, or at once when 100 wait) after the worker's slot is free;
//     River has no setting for it.
//   - Crash: River rescues the job of a worker that died
//     (Config.RescueAfter) and runs it again elsewhere. Its claim names
//     the River job, so the new run may take the round; the calls the
//     dead worker reserved or made stay counted in the budget. A worker
//     that died after Config.Handle had the result but before River
//     recorded the job done leaves the account refreshed: when Prepare
//     gives the cursor Handle kept (as a TPP does), the new run finds it
//     refreshed in this round and completes without a call. Keep the
//     cursors where every replica reads them (the shared store, a
//     table).
//   - Privacy: a job's arguments ([Args]) name the session by its store
//     key and the account by budget.Key, a hash of its id; the
//     errors River records name the outcome and the bank's status and
//     code, one of the interface's codes or "OTHER" (client.SafeCode),
//     or, for a failed Config.Prepare, its error's type only. No
//     account id, IBAN, BBAN, PSU-ID or text of the bank's reaches
//     River's tables.
//   - Retention: River's job cleaner, on River's leader, deletes a
//     finished job after Config.CompletedJobRetentionPeriod (twice
//     Spacing: 12 hours), CancelledJobRetentionPeriod (24 hours) or
//     DiscardedJobRetentionPeriod (7 days), each at least Spacing: a job
//     is unique per account and round, whatever its end, while River
//     keeps it, so no account is enqueued twice in a round. The
//     scheduler sweeps the expired values of the banks' stores every
//     Config.CleanupEvery (1 hour; [Engine.Cleanup], pgstore's
//     Store.Cleanup). The store holds one budget row per account
//     (overwritten each round, expiring when its last call stops
//     counting); River's table about retention/Spacing jobs per account:
//     both stay bounded round after round.
//
// River's web UI (riverqueue.com/riverui) shows the queues and every
// waiting, snoozed, retried, cancelled and discarded job; give it
// [Engine.Client]'s pool. [Engine.QueueStats] counts each bank queue's
// jobs by state and reads its pause, for metrics: the otel module
// exports them as psd2.refresh.queue.jobs and psd2.refresh.queue.paused
// (otel.Gauges.Queues).
package riverrefresh
