package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
	Created []string `json:"created"`
	// Skipped are the entries of the file (0-based) whose customer the
	// sandbox has already: neither it nor its accounts were made again.
	Skipped      []int `json:"skipped"`
	Accounts     int   `json:"accounts"`
	Transactions int   `json:"transactions"`
}

// seedSandbox creates each customer, then its accounts, then each
// account's transactions, with the sandbox package's mock-data calls. A
// customer whose customer number the sandbox has already is skipped with
// its accounts, so that seeding twice makes nothing twice. It stops at
// the first refusal, naming the entry; what was made before stays (reset
// clears it).
func seedSandbox(ctx context.Context, s *sandbox.Service, seed []seedCustomer) (seedReport, error) {
	rep := seedReport{Created: []string{}, Skipped: []int{}}
	have, err := s.Customers(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("listing the sandbox's customers: %w", err)
	}
	exists := map[string]bool{}
	for _, cu := range have {
		exists[cu.CustomerNumber] = true
	}
	for i := range seed {
		if n := seed[i].CustomerNumber; n != "" && exists[n] {
			rep.Skipped = append(rep.Skipped, i)
			continue
		}
		cu, err := s.CreateCustomer(ctx, &seed[i].NewCustomer)
		if err != nil {
			return rep, fmt.Errorf("customer %d: %w", i, err)
		}
		rep.Created = append(rep.Created, cu.CustomerID)
		for j := range seed[i].Accounts {
			a := &seed[i].Accounts[j]
			if a.CustomerID == "" && a.CustomerNumber == "" {
				a.CustomerID = cu.CustomerID
			}
			acc, err := s.CreateAccount(ctx, &a.NewAccount)
			if err != nil {
				return rep, fmt.Errorf("customer %d, account %d: %w", i, j, err)
			}
			rep.Accounts++
			if len(a.Transactions) == 0 {
				continue
			}
			if err := s.CreateTransactions(ctx, acc.ResourceID, a.Transactions); err != nil {
				return rep, fmt.Errorf("customer %d, account %d, transactions: %w", i, j, err)
			}
			rep.Transactions += len(a.Transactions)
		}
	}
	return rep, nil
}
