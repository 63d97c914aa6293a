package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/internal/boundedfile"
	"github.com/tppkit/psd2/sandbox"
)

// maxSeedFile bounds the seed file sandbox seed reads (as the
// emulator's control API bounds a seed's body).
const maxSeedFile = 32 << 20

// maxCredentialFile bounds a certificate, key, PKCS#12 or CA file (a
// certificate chain is a few KiB, a CA bundle some hundreds).
const maxCredentialFile = 1 << 20

// maxRequestBodyFile bounds the body file psd2 sign reads: the
// interface's requests are small, and a bank reads no more of an answer
// (the client's limit) than this.
const maxRequestBodyFile = 4 << 20

// readBounded reads the file at path, refusing one larger than limit
// bytes (a device or a mistaken file would otherwise be read whole).
func readBounded(path string, limit int64) ([]byte, error) {
	return boundedfile.Read(path, limit)
}

// readAtMost reads r to its end, but no more than limit bytes: tooLarge
// says r held more (what was read is then cut short).
func readAtMost(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	return data, int64(len(data)) > limit, err
}

// seedShape shows the seed file's form in usage messages.
const seedShape = `[{"customerNumber":..., "customerType":"PRIVATE"|"CORPORATE", "customerName":..., ` +
	`"accounts":[{"currency":"NOK", "name":..., "balance":1000, "transactions":[{"bookingDate":"2026-01-02", "transactionAmount":{"amount":-100,"currency":"NOK"}, ...}]}]}]`

// seedCustomer is one customer of a seed file: the body of
// POST /v1/sandbox/customers with the customer's accounts.
type seedCustomer struct {
	sandbox.NewCustomer
	Accounts []seedAccount `json:"accounts,omitempty"`
}

// seedAccount is one account of a seed customer: the body of
// POST /v1/sandbox/accounts (the customer is the one it is listed under)
// with the account's transactions.
type seedAccount struct {
	sandbox.NewAccount
	Transactions []sandbox.Transaction `json:"transactions,omitempty"`
}

// decodeSeed reads a seed file: a JSON list of seedCustomer, nothing
// after it. A key no entry takes (a misspelt "acounts") is refused,
// naming it, as the control API's seed refuses one: dropped, it made a
// customer without its accounts, or an account without its
// transactions, and the command succeeded.
func decodeSeed(data []byte) ([]seedCustomer, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var seed []seedCustomer
	if err := dec.Decode(&seed); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after the list of customers")
	}
	return seed, nil
}

// seedReport is what sandbox seed made: the customers' ids and counts
// (the accounts' ids are not printed).
type seedReport struct {
	// Created are the ids of the customers made, CreatedEntries their
	// entries in the file (0-based), in the same order.
	Created        []string `json:"created"`
	CreatedEntries []int    `json:"createdEntries"`
	// Skipped are the entries of the file (0-based) whose customer the
	// sandbox has already with as many accounts as the entry gives (or
	// more): neither it nor its accounts were made again. The accounts
	// are counted, not compared, and their transactions are not read.
	Skipped []int `json:"skipped"`
	// Completed are the entries whose customer the sandbox has already
	// without any account (an earlier run that stopped after making it):
	// their accounts, and the accounts' transactions, were made now.
	Completed    []int `json:"completed"`
	Accounts     int   `json:"accounts"`
	Transactions int   `json:"transactions"`
	// Unverified are the entries whose customer the sandbox has with
	// some but fewer accounts than the entry gives: nothing was made
	// for them (the command exits non-zero).
	Unverified []int `json:"unverified,omitempty"`
	// Stopped is set when the seed stopped part-way: what was made
	// before (above) stays in the sandbox.
	Stopped *seedStop `json:"stopped,omitempty"`
}

// seedStop is where a seed stopped, and why.
type seedStop struct {
	// Entry is the entry of the file whose request failed; Account the
	// account of it, when the failure was one of its accounts or their
	// transactions.
	Entry   int  `json:"entry"`
	Account *int `json:"account,omitempty"`
	// CustomerMade reports that the entry's customer exists (made now,
	// or there before) without all its accounts: a re-run names it and
	// makes nothing for it; reset the sandbox and seed again.
	CustomerMade bool   `json:"customerMade"`
	Error        string `json:"error"`
}

// seedSandbox creates each customer, then its accounts, then each
// account's transactions, with the sandbox package's mock-data calls.
// Two entries with one customer number are refused before anything is
// made. A customer whose customer number the sandbox has already is
// skipped when it has as many accounts as its entry gives, so that
// seeding twice makes nothing twice; when it has none (an earlier run
// stopped after the customer), its accounts are made now; when it has
// some but fewer, which of them are there cannot be told: nothing is
// made for it, the other entries are seeded, and the error names each
// such entry. It stops at the first refusal, naming the entry; what was
// made before stays (reset clears it), and the report returned with the
// error says what that is (rep.Stopped says where it stopped).
func seedSandbox(ctx context.Context, s *sandbox.Service, seed []seedCustomer) (seedReport, error) {
	rep := seedReport{Created: []string{}, CreatedEntries: []int{}, Skipped: []int{}, Completed: []int{}}
	first := map[string]int{}
	for i := range seed {
		n := seed[i].CustomerNumber
		if n == "" {
			continue
		}
		if j, ok := first[n]; ok {
			return rep, fmt.Errorf("entries %d and %d of the file have one customer number, %s: give each customer once", j, i, n)
		}
		first[n] = i
	}
	have, err := s.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true})
	if err != nil {
		return rep, fmt.Errorf("listing the sandbox's customers: %w", err)
	}
	exists := map[string]sandbox.Customer{}
	for _, cu := range have {
		exists[cu.CustomerNumber] = cu
	}
	var unverified []string
	for i := range seed {
		var cu *sandbox.Customer
		if n := seed[i].CustomerNumber; n != "" {
			if old, ok := exists[n]; ok {
				got, want := len(old.Accounts), len(seed[i].Accounts)
				switch {
				case got >= want:
					rep.Skipped = append(rep.Skipped, i)
					continue
				case got > 0:
					rep.Unverified = append(rep.Unverified, i)
					unverified = append(unverified, fmt.Sprintf("entry %d (customer %s) has %d of its %d accounts in the sandbox: "+
						"which are missing cannot be told, none made", i, n, got, want))
					continue
				}
				cu = &old
				rep.Completed = append(rep.Completed, i)
			}
		}
		if cu == nil {
			cu, err = s.CreateCustomer(ctx, &seed[i].NewCustomer)
			if err != nil {
				rep.Stopped = &seedStop{Entry: i, Error: err.Error()}
				return rep, fmt.Errorf("customer %d: %w", i, err)
			}
			rep.Created = append(rep.Created, cu.CustomerID)
			rep.CreatedEntries = append(rep.CreatedEntries, i)
		}
		for j := range seed[i].Accounts {
			a := &seed[i].Accounts[j]
			if a.CustomerID == "" && a.CustomerNumber == "" {
				a.CustomerID = cu.CustomerID
			}
			acc, err := s.CreateAccount(ctx, &a.NewAccount)
			if err != nil {
				rep.Stopped = &seedStop{Entry: i, Account: &j, CustomerMade: true, Error: err.Error()}
				return rep, fmt.Errorf("customer %d, account %d: %w", i, j, err)
			}
			rep.Accounts++
			if len(a.Transactions) == 0 {
				continue
			}
			if err := s.CreateTransactions(ctx, acc.ResourceID, a.Transactions); err != nil {
				rep.Stopped = &seedStop{Entry: i, Account: &j, CustomerMade: true, Error: err.Error()}
				return rep, fmt.Errorf("customer %d, account %d, transactions: %w", i, j, err)
			}
			rep.Transactions += len(a.Transactions)
		}
	}
	if len(unverified) > 0 {
		return rep, fmt.Errorf("seeded the rest (created %d customer(s), %d account(s), %d transaction(s)), but: %s; "+
			"reset the sandbox (psd2 sandbox reset) and seed again, or delete those customers first",
			len(rep.Created), rep.Accounts, rep.Transactions, strings.Join(unverified, "; "))
	}
	return rep, nil
}

// printSeed prints what sandbox seed made; for a seed that stopped
// part-way, which customers it made before, and where it stopped.
func printSeed(w io.Writer, rep seedReport) {
	if rep.Stopped != nil {
		where := fmt.Sprintf("entry %d", rep.Stopped.Entry)
		if rep.Stopped.Account != nil {
			where += fmt.Sprintf(", account %d", *rep.Stopped.Account)
		}
		fmt.Fprintf(w, "STOPPED PART-WAY at %s of the file (%s); made before it stopped, and still in the sandbox: ", where, rep.Stopped.Error)
	}
	fmt.Fprintf(w, "created %d customer(s)", len(rep.Created))
	if len(rep.Created) > 0 {
		fmt.Fprintf(w, " (entries %s of the file; customer ids %s)", entryList(rep.CreatedEntries), strings.Join(rep.Created, ", "))
	}
	fmt.Fprintf(w, ", %d account(s), %d transaction(s)", rep.Accounts, rep.Transactions)
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "; skipped %d customer(s) the sandbox has already (entries %s of the file), each with as many accounts as its entry (their transactions not read)", len(rep.Skipped), entryList(rep.Skipped))
	}
	if len(rep.Completed) > 0 {
		fmt.Fprintf(w, "; made the accounts of %d customer(s) the sandbox had without any (entries %s of the file)", len(rep.Completed), entryList(rep.Completed))
	}
	if len(rep.Unverified) > 0 {
		fmt.Fprintf(w, "; made nothing for %d customer(s) the sandbox has with fewer accounts than their entries (entries %s of the file)", len(rep.Unverified), entryList(rep.Unverified))
	}
	fmt.Fprintln(w)
	switch {
	case rep.Stopped == nil:
	case rep.Stopped.CustomerMade:
		fmt.Fprintf(w, "Entry %d's customer is in the sandbox without all its accounts: a re-run names it and makes nothing for it; psd2 sandbox reset, then seed again. The entries after it were not seeded.\n", rep.Stopped.Entry)
	default:
		fmt.Fprintf(w, "Entry %d's customer was not made (unless its request reached the sandbox without an answer: psd2 sandbox list shows it); it and the entries after it were not seeded: a re-run seeds them.\n", rep.Stopped.Entry)
	}
}

// entryList is a list of entries of the file: "0, 2, 5".
func entryList(entries []int) string {
	s := make([]string, len(entries))
	for i, n := range entries {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
