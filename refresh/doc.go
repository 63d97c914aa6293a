// Package refresh is an AISP's background job: it refreshes the balances
// and new transactions of every consented account, without the PSU,
// within the bank's without-PSU budget of 4 calls per account and
// endpoint in 24 hours (docs/interface.md section 8), as fast as the
// requests can be signed.
//
// # Remembering the accounts
//
// The bank lists a PSU's accounts only within
// the hour after SCA (docs/interface.md section 3). [Remember] lists them
// then and returns the session with their ids (sca.Session.AccountIDs,
// CardAccountIDs); store it with sca.SaveSession. The session also knows
// when its consent ends (sca.Session.ConsentExpiresAt, 90 days after the
// SCA) and tells when it is due for renewal
// (sca.Session.ConsentRenewalDue).
//
// # Jobs
//
// A [Job] is one account (or card account) of one session, asking for
// balances, transactions, or [Both]. [NewJob] makes one and checks it
// once: a valid session (sca.Session.Validate) and an account its consent
// covers; [JobsFrom] makes the jobs of every stored session
// (sca.Manager.Sessions), lazily, each session checked once for all its
// accounts. A job keeps what its calls need, so running it visits package
// sca no more; a job engine makes its jobs the same way, once, from what
// it stored (the pgstore module's riverrefresh, from a River job).
//
// # What is new
//
// The transaction sync (package txsync) alone says what is new: with
// [WithSync] each complete read is applied to it, and [Result.Sync]
// carries its added, changed and removed entries under keys the SDK
// keeps, true even when a bank changes a booked entry's id or books a
// pending entry under another id and amount; link each consent's
// accounts to it first (txsync's Syncer.Link, right after [Remember]).
// [Result.Booked] and Pending hold every entry read. The job's [Cursor]
// keeps only what the spacing of the day's calls needs: when the account
// was last refreshed. The pages are read through the accounts iterator
// (accounts.Service.TransactionsIter), the one txsync reads with too.
//
// # Running
//
// [Refresher.Run] takes the jobs as workers become free
// ([WithWorkers], by default one per core) and yields each account's
// [Result] as soon as it is done, so memory stays flat for any number of
// accounts. Each result has exactly one [Outcome]:
//
//   - [Done]: balances and transactions read; keep the new Cursor.
//   - [BudgetExhausted]: the budget does not allow the call now; RetryAt
//     says when it will. The refresher checks the budget before spending:
//     a job needing balances and transactions reserves a call of both in
//     one write before it starts, and each further call is reserved
//     before it is sent, so no call is ever spent that the budget does
//     not allow.
//   - [ReconnectNeeded]: the consent expired or was revoked, or the bank
//     asks for SCA; the PSU must give consent again.
//   - [Transient]: 5xx, a timeout or a failed connection, after the
//     client's retries (client.RetryPolicy), or a 429 asking to slow down.
//   - [Refused]: another refusal of the bank (a 4xx) or an invalid job
//     (one not made with [NewJob], an unknown Want): refused before
//     sending, since the bank's refusal could cost a call of the budget;
//     or a read whose pages held more entries than one job reads
//     ([ErrReadTooLarge]), never taken for a whole one.
//
// # Spreading the day's calls
//
// A job for an account refreshed less than
// [DefaultSpacing] ago (24 hours and the budget's 5-minute margin for
// clock differences, over 4 calls: about 6 hours; [WithSpacing]) is not
// sent: it ends [BudgetExhausted] with [Result.Deferred] and the time it
// is due, unless the job is forced ([Job.Force]). Running the job list
// every hour then refreshes each account about every 6 hours, 4 times a
// day, instead of spending its 4 calls at once.
//
// # Slowing down
//
// A 429 with Retry-After that is not the account's budget, and a 429
// ACCESS_EXCEEDED whose Retry-After is a minute or less, pause the bank
// (budget.Budget.PausedUntil: the pause is the client's budget's, kept in
// its store, so shared by every Refresher and service of the client and
// by every client on a shared store) from the moment the answer arrives,
// whether or not the client then retries that call itself. No call of a
// job goes out during the pause: its reservation, and then each of its
// calls, waits for the pause's end up to [WithMaxWait]
// (budget.ReserveRequest.MaxWait); a longer pause ends the jobs that meet
// it [Transient] at once, with [ErrPaused] and the time to come back. The
// budget's own 429 (ACCESS_EXCEEDED with a long or no Retry-After) ends
// only that account's job, [BudgetExhausted]; an ACCESS_EXCEEDED whose
// Retry-After is longer than a minute but shorter than the budget's
// window ends it [Transient], RetryAt the Retry-After and
// budget.ClockMargin, and the budget holds the account's endpoint until
// then on every replica of the store. While the bank's circuit breaker
// is open a job sends nothing and ends [Transient] with
// client.ErrBankUnavailable, RetryAt its next probe.
//
// Each job of [Refresher.Run] is bounded by [WithJobTimeout]
// ([DefaultJobTimeout], 10 minutes): a bank or a store that stops
// answering ends the job [Transient] and frees its worker.
//
// # Watching
//
// [WithProgress] is called with the counts of done, waiting and
// failed accounts after each result; [WithLogger] logs outcomes to
// log/slog (without it the Refresher logs nothing); [WithRounds] reports
// each due job's [Round] (its class, when it was planned and when it
// started) for metrics, such as the otel module's refresh rounds. None
// ever shows an account id, PSU-ID or session id, and neither do the
// printed forms of [Job] and [Result].
//
// # Replicas
//
// The budget lives in the client's store (client.WithStore):
// give every replica of the TPP's service a client on one shared store (a
// file store on a shared disk, the PostgreSQL store) and their refreshes
// count one budget. Before its first call, a job reserves its calls
// (balances and the first page of transactions) and claims the account
// until the spacing has passed, in one atomic write of the store
// (budget.Budget.Reserve; the calls carry the reservation as a request
// option, budget.Reservation.Option): one durable write per account
// refresh, and
// replicas that run the same jobs refresh each account once per round. A
// replica that meets another's claim ends the job [BudgetExhausted] with
// [Result.Deferred], an error matching budget.ErrClaimed and RetryAt
// when the claim ends, without a call. A job that does not end [Done]
// gives back the calls it did not use and the claim in one more write,
// so that the next run can try the account again; after a crash between
// the reservation and the call, the reserved calls count until they
// expire by the window rule, and the claim holds until the spacing has
// passed (a job engine that runs the job again gives the same
// [Job.Claim], and may go on at once). [Refresher.Refresh] is the step of
// one account, for a job engine that distributes the jobs itself, such
// as the River engine of the pgstore module (package riverrefresh); it
// only orchestrates: the job was checked when it was made, the budget
// admits and counts its calls, accounts reads the pages, txsync judges
// what is new. Forced jobs and a spacing of 0 claim nothing.
package refresh
