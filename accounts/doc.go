// Package accounts is the account information service for AISPs: the
// bank-offered consent, accounts, card accounts, balances, transactions
// (one page at a time or through a lazy iterator) and corporate
// agreements. Its calls made without the PSU present count against the
// client's without-PSU budget (package budget).
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
// [ErrCardAccountsNotSupported] (404 on the card account list); the
// budget's refusal before sending is [budget.ErrExhausted]. Every read
// answers 200 (docs/interface.md section 10 "Paths"); another 2xx status,
// a 204 without a body included, is a [*client.UnexpectedStatusError]
// ([client.ErrUnexpectedStatus]), never an empty list or page.
//
// # The without-PSU budget
//
// A call without PSU-IP-Address acts without the PSU (docs/interface.md
// section 5.14); balances and transactions are then limited to 4 calls per
// account and endpoint in 24 hours (docs/interface.md section 8). The
// Service only reads: its counted calls consult the client's budget
// ([budget.Of]), which counts them, refuses the fifth with a
// [*budget.ExhaustedError] before it reaches the bank, and pauses the bank
// after a 429 with Retry-After. What counts: Balances, Transactions,
// TransactionsAt and NextTransactions (every page), TransactionDetails
// (within the transactions list's 4 calls), and their card equivalents;
// listing accounts, single account reads and agreements do not, and
// calls with PSU-IP-Address never do. Calls made with a
// [budget.Reservation]'s option use its calls. The rules (when a call
// counts, replicas, clock differences, reserving ahead, the bank's
// pause) are package budget's.
//
// Switches (docs/interface.md section 9): card account calls always send the x-accept-fix
// switches longer-names and
// cardaccount-switch-originalamount-and-transactionamount, so that card
// account names of up to 70 characters and the amount mapping documented
// on [CardTransaction] hold on every bank.
package accounts
