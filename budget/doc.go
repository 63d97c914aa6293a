// Package budget is the without-PSU call budget of a client: per TPP,
// bank and account, the balances and transactions calls made without the
// PSU present, which the bank limits to 4 per account and endpoint in 24
// hours (docs/interface.md section 8), kept in the client's store; the
// reservations a background refresh takes ahead; and the bank's request
// to slow down.
//
// A client has one [Budget] with one limit, whatever the number of
// services made on it: [Of] returns it (made with the default limit the
// first time), [New] makes it with another limit ([WithLimit]) before
// the services. Package accounts declares its counted calls with
// [Budget.Counted], so the client runs the budget around each of them;
// accounts only reads, and never counts by itself.
//
//	b := budget.Of(c)                     // or budget.New(c, budget.WithLimit(...))
//	ais, err := accounts.New(c)           // counts against b
//	left, err := b.Remaining(ctx, accountID, budget.Balances)
//
// # What counts
//
// A call without PSU-IP-Address acts without the PSU (docs/interface.md
// section 5.14). The budget counts such calls (each for 24 hours and a
// margin for clock differences, [ClockMargin]) and refuses the fifth with
// an [*ExhaustedError] (carrying RetryAt, when the next call is allowed)
// before it reaches the bank; [Budget.Remaining] reports what is left and
// [Budget.Reset] forgets the count.
//
//   - The budget is the account's, not the PSU's: the bank counts the calls
//     on an account whoever they are made for, so two PSUs sharing a
//     corporate account share its 4 calls.
//   - What counts: accounts' Balances, Transactions, TransactionsAt and
//     NextTransactions (every page), TransactionDetails, and their card
//     equivalents. TransactionDetails counts within the transactions
//     list's 4 calls, not on a budget of its own: the platform says only
//     "4 a day" (docs/interface.md section 10), and sharing can only make
//     the SDK refuse early. docs/interface.md section 8 names only
//     accounts; card accounts count as well ([CardBalances],
//     [CardTransactions]) because PSD2 (RTS article 36(5)) limits access
//     without the PSU for every payment account, and counting them can
//     only make the SDK refuse early, never earn a 429. Listing accounts,
//     single account reads and agreements do not count; calls with
//     PSU-IP-Address never count.
//   - A call counts exactly when the client reports it was sent, whatever
//     the answer (a 429 or a transport error after sending counts too); a
//     call refused locally (an invalid option, a missing header, a foreign
//     link, the spent budget) or whose bytes never left does not. Each
//     attempt that may have reached the bank counts, a 5xx answer
//     included (the safe reading of "calls"). So a counted call is never
//     retried blindly: after a 5xx, a timeout or a connection lost once
//     the request left, the client does not retry it, and the call ends
//     with that answer for its scheduler (River's backoff, the
//     refresher's next pass) to try later; one blip costs at most one
//     call. After a 429 with a Retry-After the client honours, a retry
//     first reserves one more call, and is sent only when the endpoint
//     then still has [RetryReserve] calls left for the next round.
//   - When the bank itself answers 429 ACCESS_EXCEEDED without a
//     Retry-After, or with one of a window or more (calls the SDK did not
//     see), the budget is taken as spent from then on: until the time the
//     answer's Retry-After gives and [ClockMargin], else for the whole
//     window and the margin. With a shorter Retry-After the code is a
//     rate limit ([Budget.RateLimit]): one of a minute or less pauses the
//     bank for the wait and spends nothing; a longer one is the account's
//     own, and the account's endpoint is held in its ledger in the store
//     until the Retry-After and the margin, so that no replica on the
//     store, no process started since and no other caller, nor a call
//     made with the calls of the refused call's own [Reservation], sends
//     it again before the bank allows it; after it, only the calls made
//     count (the reservation's unused calls are still given back by
//     [Reservation.Release]). A call made with the calls another
//     Reservation took before the answer (another replica's) is counted
//     already and does not read the ledger: it may still go out.
//
// # Replicas and clocks
//
// The counts live in the client's store (client.WithStore): every service
// made on one client shares them, and clients of several replicas on one
// shared store (a file store, the PostgreSQL store) count the same calls.
// Each replica judges on its own clock whether a call, stamped with the
// clock of the replica that made it, still counts, so a call counts for
// the window and [ClockMargin] (5 minutes): 4 calls in every 24 hours and
// 5 minutes. The replicas never spend more than the bank allows between
// them as long as their clocks differ by at most the margin, less the
// time a call takes to reach the bank (the bank's own clock does not
// matter: it measures its window alone); a replica whose clock runs
// further ahead can send a call the bank still counts, which the bank
// refuses with a 429 the budget then absorbs. A call stamped more than
// a window and the margin ahead of the clock that reads it (a replica's
// clock far ahead, a garbled value) is read, and written back, as made
// that far ahead: it holds the account's endpoint for two windows and
// margins at most, never for ever. One key per account holds
// the counts of both its endpoints; keys hash the account id ([Key]), and
// client.Client.Scope keeps TPPs and banks apart. The keys keep the
// prefix of the budget's first home, package accounts
// ("accounts/budget/"), and the same value: counts stored before the move
// are read as they are.
//
// # Reserving ahead
//
// [Budget.Reserve] takes an account's balances and transactions calls in
// one atomic write of the store, all or none, and can claim the account
// for a round (a claim another holder meets is a [*ClaimedError]); calls
// made with the [Reservation]'s request option ([Reservation.Option]) use
// it and write nothing more, so a background refresh of an account costs
// one durable write. Reserved calls count from the moment they are
// reserved, so the budget is never over-spent, across replicas or across
// a crash between the reservation and the call. Unused ones are given
// back by [Reservation.Release]; those of a holder that crashed expire by
// the window rule, as calls made.
//
// # Slowing down
//
// A 429 with Retry-After, other than the end of an account's budget
// (ACCESS_EXCEEDED with a Retry-After of a window or more), pauses the bank
// from the moment it arrives ([Budget.PausedUntil]): the pause is a field
// of the budget, seen at once by every service of the client, and kept
// in the client's store, so that every client on a shared store sees it
// within a second. The store keeps the pause's end on its writer's clock
// and its wait: a replica holds it for the wait on its own clock from
// when it reads it, and at most until the end and [ClockMargin], so that
// a clock that differs from the writer's by up to the margin neither
// calls the bank during the pause nor holds it longer than its own length
// again (a 1 s pause costs a replica at most 1 s more, not the margin).
// A retry of a call without the PSU waits for the pause
// to end; package refresh waits before each call, and a job engine pauses
// its queue until the pause ends.
package budget
