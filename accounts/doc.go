// Package accounts is the account information service for AISPs: the
// bank-offered consent, accounts, card accounts, balances, transactions
// (one page at a time or through a lazy iterator) and corporate
// agreements, with a client-side budget for calls made without the PSU
// present.
//
// A [Service] describes each call and sends it through a [client.Client];
// PSU and session headers are per-call [client.RequestOption]s.
//
//	svc, err := accounts.New(c)
//	if err != nil {
//		return err
//	}
//	consent, err := svc.StartConsent(ctx, client.WithRedirectURI(cb), client.WithTPPSessionID(sid))
//	// send the PSU to consent.SCARedirect(); the callback brings psu-id
//	accs, err := svc.List(ctx, nil, client.WithTPPSessionID(sid), client.WithRedirectURI(cb),
//		client.WithPSU(client.PSU{ID: psuID, IPAddress: ip}))
//
// # Consent and session
//
// The platform has no consent id. [Service.StartConsent]
// (POST /v1/bank-offered-consents) returns the link to the bank's
// authorisation page; after SCA the redirect brings psu-id and
// tpp-session-id, and every later call sends PSU-ID and TPP-Session-ID
// (docs/interface.md section 10 "Session model"). Accounts and card accounts can be listed
// only within the hour after SCA; the consent lasts sca.ConsentValidity
// (90 days by default; a per-bank fact, banks.Bank.ConsentValidity). The sca
// package parses the callback and keeps sessions.
//
// # Accounts and card accounts
//
// [Service.List], [Service.Get],
// [Service.Balances], [Service.CardAccounts], [Service.CardAccount],
// [Service.CardBalances]; corporate agreements with [Service.Agreements]
// (whose answer shape is an assumption, decoded in one place). Types:
// [Account] with its [CashAccountType], [CardAccount], [Balance] with its
// [BalanceType], [Agreement]; amounts are [money.Amount].
//
// # Transactions
//
// [Service.Transactions] returns one [TransactionsPage]
// (booked and pending [Transaction]s and the next link,
// [TransactionsPage.Next]); [Service.TransactionsAt] reads a stored next
// link, and [Service.NextTransactions] one that must be the same
// account's; [Service.TransactionsIter] is an iter.Seq2 that follows next
// links lazily, only to the bank's host, holding one page at a time.
// [Service.TransactionDetails] reads one booked entry by its id. The same
// exists for card accounts ([Service.CardTransactions],
// [Service.CardTransactionsAt], [Service.NextCardTransactions],
// [Service.CardTransactionsIter], [CardTransactionsPage],
// [CardTransaction]). Known issue (docs/interface.md section 8): with bookingStatus both
// or pending, the production platform returns all pending entries on every
// page, unfiltered by dateFrom, dateTo and limit; see [TransactionQuery].
//
// # Errors
//
// The bank's answers are [*client.Error]s matched with errors.Is:
// [client.ErrSCARequired] (an answer with a scaRedirect: send the PSU
// there), [client.ErrSCAExpired] (401, the SCA hour passed; the consent
// lives on), [client.ErrConsentExpired] (401, the consent ended),
// [client.ErrConsentUnknown] (403, the PSU revoked the consent),
// [client.ErrAccessExceeded] (429). This package adds
// [ErrCardAccountsNotSupported] (404 on the card account list) and
// [ErrBudgetExhausted].
//
// # The without-PSU budget
//
// A call without PSU-IP-Address acts without the PSU (docs/interface.md
// section 5.14); balances and transactions are then limited to 4 calls per
// account and endpoint in 24 hours (docs/interface.md section 8). The
// client counts such calls (each for 24 hours and a margin for clock
// differences, [BudgetClockMargin]) and refuses the fifth with a
// [*BudgetExhaustedError] (carrying RetryAt, when the next call is
// allowed) before it reaches the bank; [Service.Remaining] reports what is
// left and [Service.ResetBudget] forgets the count.
//
//   - The budget is the account's, not the PSU's: the bank counts the calls
//     on an account whoever they are made for, so two PSUs sharing a
//     corporate account share its 4 calls.
//   - What counts: Balances, Transactions, TransactionsAt and
//     NextTransactions (every page), TransactionDetails, and their card
//     equivalents. TransactionDetails counts within the transactions
//     list's 4 calls, not on a budget of its own: the platform says only
//     "4 a day" (docs/interface.md section 10), and sharing can only make
//     the SDK refuse early (see [Service.TransactionDetails]). docs/interface.md
//     section 8 names only accounts; card accounts count as well because
//     PSD2 (RTS article 36(5)) limits access without the PSU for every
//     payment account, and counting them can only make the SDK refuse
//     early, never earn a 429. Listing accounts, single account reads and
//     agreements do not count; calls with PSU-IP-Address never count.
//   - A call counts exactly when the client reports it was sent, whatever
//     the answer (a 429 or a transport error after sending counts too); a
//     call refused locally (an invalid option, a missing header, a foreign
//     link, the spent budget) or whose bytes never left does not. Each
//     attempt that may have reached the bank counts: a retry of the client
//     (after a 5xx, a 429 with a short Retry-After, a timeout) first
//     reserves one more call, and is not sent when the budget is spent;
//     the call then ends with the attempt's own answer.
//   - When the bank itself answers 429 ACCESS_EXCEEDED (calls the SDK did
//     not see), the budget is taken as spent from then on: until the time
//     the answer's Retry-After gives, else for the whole window.
//
// The counts live in the client's store ([client.WithStore]): every
// Service made on one client shares them, and clients of several replicas
// on one shared store (a file store, the PostgreSQL store) count the same
// calls. Each replica judges on its own clock whether a call, stamped
// with the clock of the replica that made it, still counts, so a call
// counts for the window and [BudgetClockMargin] (5 minutes): 4 calls in
// every 24 hours and 5 minutes. The replicas never spend more than the
// bank allows between them as long as their clocks differ by at most
// the margin, less the time a call takes to reach the bank (the bank's
// own clock does not matter: it measures its window alone); a replica
// whose clock runs further ahead can send a call the bank still counts,
// which the bank refuses with a 429 the budget then absorbs. One key per
// account holds the counts of both its endpoints; keys hash the account
// id ([client.Client.Scope] keeps TPPs and banks apart).
//
// Reserving ahead: [Service.Reserve] takes an account's balances and
// transactions calls in one atomic write of the store, all or none, and
// can claim the account for a round (a claim another holder meets is a
// [*ClaimedError]); calls made with the [Reservation] in their context
// ([WithReservation]) use it and write nothing more, so a background
// refresh of an account costs one durable write. Reserved calls count
// from the moment they are reserved, so the budget is never over-spent,
// across replicas or across a crash between the reservation and the
// call. Unused ones are given back by [Reservation.Release]; those of a
// holder that crashed expire by the window rule, as calls made.
//
// Slowing down: a 429 with Retry-After, other than the end of an
// account's budget (ACCESS_EXCEEDED with a Retry-After beyond a minute),
// pauses the bank for the process from the moment it arrives
// ([Service.PausedUntil]); a retry of a call without the PSU waits for
// the pause to end.
//
// Switches (docs/interface.md section 9): card account calls always send the x-accept-fix
// switches longer-names and
// cardaccount-switch-originalamount-and-transactionamount, so that card
// account names of up to 70 characters and the amount mapping documented
// on [CardTransaction] hold on every bank.
package accounts
