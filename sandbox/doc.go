// Package sandbox calls the sandbox's mock-data operations under
// /v1/sandbox (docs/interface.md section 1.4, 1.5, 2.8, 4.4, 4.5; docs/interface.md section 10 "Paths"):
// reset the sandbox, list, create and delete customers, and create mock
// accounts, card accounts, transactions and corporate agreements. These
// operations exist only in the sandbox environment.
//
// # Reset
//
// [Service.Initialize] restores the default data — private
// customers 13039319955 and 12085592767 (2 accounts and a card account
// each) and corporate customers 18129215603 and 20079518612 (2 accounts
// each, with agreements). Its path is an assumption kept in
// [InitializePath].
//
// # Customers
//
// [Service.Customers] lists them ([CustomersQuery] includes
// accounts and agreements); [Service.CreateCustomer] and
// [Service.DeleteCustomer] add and remove one. The customerNumber is what
// the PSU types at the sandbox SCA page.
//
// # Mock data
//
// [Service.CreateAccount], [Service.CreateCardAccount],
// [Service.CreateTransactions], [Service.CreateCardTransactions] and
// [Service.CreateAgreement] seed data for the account information calls.
// Amounts in mock data are JSON numbers ([Amount]).
//
// # Assumptions
//
// The reset path ([InitializePath]), the body of a new
// customer ([NewCustomer], the field names of docs/interface.md section 2.8) and the
// bodies of mock accounts, card accounts and transactions (the types in
// accounts.go, the account information fields plus bookingStatus) are not
// published; each is written down once, on its type, and matches the
// sandbox/emulator package.
//
// # Checks
//
// Every Create call checks its body before sending it, and the
// calls taking an id check it can be one path segment. A broken rule
// sends nothing and returns a [*client.ValidationError] (errors.Is
// client.ErrValidation) whose Field is the JSON path ("customerNumber",
// "[1].remittanceInformationUnstructured", "engagements[0].roles") and whose
// message shows no value, so no customer number, name or account number.
// Text fields (names, products, remittance and card details, account
// references) must be valid UTF-8 without a character the bank cannot
// process: an emoji or pictograph, or anything outside the Basic
// Multilingual Plane, which the bank answers with 400 (docs/interface.md
// sections 1.6 and 7; the rule of package payments).
//
// # Answers
//
// Every call goes through the [client.Client] given to [New]: signed,
// with X-Request-ID, and returning a *client.Error for a non-2xx answer.
// Each succeeds only with the status docs/interface.md section 10 "Paths"
// names for it: [Service.Customers] and [Service.Customer] 200, the
// Create calls 201, [Service.DeleteCustomer] 204; another 2xx is a
// [*client.UnexpectedStatusError]. The reset's status is not published:
// any 2xx is its success. A created account or card account comes back
// with every member the sandbox sends (balances, a card's creditLimit and
// relatedAccount, the sandbox's accountName, customerNumber and
// creditLine).
package sandbox
