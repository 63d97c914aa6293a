package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/browser"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// Keys the PSUs' sessions are stored under in the walk-through's store. A
// TPP would use its own user ids.
const (
	privateKey   = "private-psu"
	corporateKey = "corporate-psu"
)

// defaultCorporate is the sandbox's first default corporate customer
// (docs/interface.md section 10 "Session model"), used only when the sandbox listing names
// no corporate customer.
const defaultCorporate = "18129215603"

// present is the PSU's request data while the PSU is actively using the
// TPP (docs/interface.md section 5.14). 192.0.2.10 is a documentation address (RFC 5737):
// a TPP sends its user's real address.
var present = &client.PSU{IPAddress: "192.0.2.10"}

// walk holds what the steps share.
type walk struct {
	r        *reporter
	bank     bank
	c        *client.Client
	sessions *sca.Manager
	ais      *accounts.Service
	journal  *journal.Journal // every payment and basket create, before it is sent

	reset     bool               // reset the sandbox first
	run       string             // this run's id, in every payment's remittance (see newRunID)
	customer  string             // the private PSU's sandbox customer number
	corporate string             // a corporate customer's number, from the sandbox listing
	accounts  []accounts.Account // the private PSU's accounts
}

// run opens the bank (the emulator, or a real sandbox with cfg), walks
// through every step and prints one line per step and a summary. It returns
// an error naming the first failed step.
func run(ctx context.Context, cfg config, out io.Writer) (*result, error) {
	r := newReporter(out)
	var (
		b           bank
		c           *client.Client
		redirectURI string
		err         error
	)
	if cfg.live() {
		b, c, redirectURI, err = openLive(r, cfg)
	} else {
		b, c, redirectURI, err = openEmulator(r, cfg)
	}
	if err != nil {
		return &r.res, r.summary()
	}
	defer b.close()

	ais, err := accounts.New(c)
	if err != nil {
		_ = r.step("services", func() (string, error) { return "", err })
		return &r.res, r.summary()
	}
	w := &walk{r: r, bank: b, c: c, ais: ais, customer: cfg.customer, reset: !cfg.noReset, run: newRunID()}
	if w.customer == "" {
		w.customer = defaultCustomer
	}
	// With the client, the flow starts an SCA itself where a bank's
	// answer carries only a startAuthorisation link.
	flow, err := sca.NewFlow(redirectURI, sca.WithClient(c))
	if err == nil {
		w.sessions, err = sca.NewManager(flow, store.NewMemoryStore())
	}
	if err != nil {
		_ = r.step("SCA flow", func() (string, error) { return "", err })
		return &r.res, r.summary()
	}
	// The journal records each create before it is sent and its outcome
	// after, so that a create whose outcome is unknown is resolved, never
	// sent blindly again (a TPP keeps it in a durable, shared store).
	if w.journal, err = journal.New(store.NewMemoryStore(), journal.WithClient(c)); err != nil {
		_ = r.step("journal", func() (string, error) { return "", err })
		return &r.res, r.summary()
	}

	for _, part := range []func(context.Context) error{
		w.sandbox,
		w.consent,
		w.readAccounts,
		w.payments,
		w.corporateAccounts,
		w.typedErrors,
		w.journaled,
	} {
		if err := part(ctx); err != nil {
			break
		}
	}
	return &r.res, r.summary()
}

// newRunID is a run's id: 8 random hex digits. A sandbox reset keeps the
// payments (docs/interface.md section 1: it drops the mock data), so the
// id in the payments' remittance keeps a run's payments apart from an
// earlier run's, which the bank would refuse as logical duplicates.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sandbox resets the sandbox to its default customers and finds a
// corporate customer in the listing.
func (w *walk) sandbox(ctx context.Context) error {
	sbx, err := sandbox.New(w.c)
	if err != nil {
		return err
	}
	if err := w.r.step("sandbox reset", func() (string, error) {
		if !w.reset {
			return "-no-reset: the sandbox keeps its data", errSkipped
		}
		if err := sbx.Initialize(ctx); err != nil {
			return "", err
		}
		return "sandbox initialised with its default customers", nil
	}); err != nil {
		return err
	}
	return w.r.step("sandbox customers", func() (string, error) {
		list, err := sbx.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true})
		if err != nil {
			return "", err
		}
		var private, corporate int
		found := false
		for _, cu := range list {
			switch cu.CustomerType {
			case client.Private:
				private++
			case client.Corporate:
				corporate++
				if w.corporate == "" && len(cu.Accounts) > 0 {
					w.corporate = cu.CustomerNumber
				}
			}
			found = found || cu.CustomerNumber == w.customer
		}
		detail := fmt.Sprintf("%d customers: %d private, %d corporate", len(list), private, corporate)
		// docs/interface.md section 4.4 says the listing shows the customers created with
		// POST /v1/sandbox/customers: a bank may leave its default
		// customers out. Then the defaults of docs/interface.md section 10 are used.
		if !found {
			detail += "; customer " + maskCustomer(w.customer) + " not listed, used as given"
		}
		if w.corporate == "" {
			w.corporate = defaultCorporate
			detail += "; no corporate customer listed, using the default one"
		}
		return detail, nil
	})
}

// consent starts a bank-offered consent and has the PSU approve it.
func (w *walk) consent(ctx context.Context) error {
	return w.startSCA(ctx, "AIS consent", privateKey, w.customer, func(opts client.RequestOption) (any, error) {
		return w.ais.StartConsent(ctx, opts)
	})
}

// startSCA runs one call that starts a new SCA (a consent) as step name,
// then the SCA itself as the next step: the PSU approves at the bank and
// the callback becomes the PSU's session.
func (w *walk) startSCA(ctx context.Context, name, key, customer string, do func(client.RequestOption) (any, error)) error {
	var link sca.Redirect
	var call *sca.Prepared
	if err := w.r.step(name, func() (string, error) {
		var err error
		call, err = w.sessions.Begin(ctx, key, present)
		if err != nil {
			return "", err
		}
		answer, err := do(call.Options)
		if err != nil {
			return "", err
		}
		var ok bool
		link, ok, err = call.Redirect(ctx, answer)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errors.New("the answer carries no scaRedirect link")
		}
		return "consent started, SCA link received", nil
	}); err != nil {
		return err
	}
	return w.approve(ctx, name, key, link, customer)
}

// approve has the PSU complete the SCA at link, then brings the callback
// in the browser of the TPP's user key to the redirect URI's handler
// (sca.Manager.HandlerFor), which stores the session.
func (w *walk) approve(ctx context.Context, name, key string, link sca.Redirect, customer string) error {
	return w.r.step("SCA: "+name, func() (string, error) {
		callback, err := w.bank.approve(ctx, link.String(), customer)
		if err != nil {
			return "", err
		}
		s, err := browser.Callback(ctx, w.sessions, key, callback)
		if err != nil {
			return "", err
		}
		detail := fmt.Sprintf("approved by customer %s, %s context", maskCustomer(customer), s.Context)
		if s.PSUCorporateID != "" {
			detail += " with a PSU-Corporate-ID"
		}
		return detail, nil
	})
}

// call prepares a call in the PSU's current session.
func (w *walk) call(ctx context.Context, key string) (client.RequestOption, error) {
	c, err := w.sessions.Prepare(ctx, key, present)
	if err != nil {
		return nil, err
	}
	return c.Options, nil
}

// readAccounts lists the accounts, reads the first one's balances and
// walks through its transactions with the iterator.
func (w *walk) readAccounts(ctx context.Context) error {
	if err := w.r.step("accounts", func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		w.accounts, err = w.ais.List(ctx, nil, opts)
		if err != nil {
			return "", err
		}
		if len(w.accounts) < 2 {
			return "", fmt.Errorf("%d accounts, want at least 2", len(w.accounts))
		}
		names := make([]string, len(w.accounts))
		for i, a := range w.accounts {
			names[i] = a.Name + " (" + a.Currency + ")"
		}
		return fmt.Sprintf("%d accounts: %s", len(w.accounts), strings.Join(names, ", ")), nil
	}); err != nil {
		return err
	}
	first := w.accounts[0]
	if err := w.r.step("balances", func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		rep, err := w.ais.Balances(ctx, first.ResourceID, opts)
		if err != nil {
			return "", err
		}
		if len(rep.Balances) == 0 {
			return "", errors.New("no balances")
		}
		parts := make([]string, 0, len(rep.Balances))
		for _, b := range rep.Balances {
			parts = append(parts, string(b.BalanceType)+" "+b.BalanceAmount.String())
		}
		return first.Name + ": " + strings.Join(parts, ", "), nil
	}); err != nil {
		return err
	}
	return w.r.step("transactions", func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		var booked, pending int
		var newest *accounts.Transaction
		for tx, err := range w.ais.TransactionsIter(ctx, first.ResourceID, nil, opts) {
			if err != nil {
				return "", err
			}
			if tx.Status == accounts.BookingPending {
				pending++
				continue
			}
			booked++
			if newest == nil {
				newest = tx
			}
		}
		if booked+pending == 0 {
			return "", errors.New("no transactions")
		}
		detail := fmt.Sprintf("%d booked and %d pending through the iterator", booked, pending)
		if newest != nil {
			detail += fmt.Sprintf("; newest %s %s", newest.BookingDate, newest.TransactionAmount)
		}
		return detail, nil
	})
}

// corporateAccounts has a corporate customer consent and lists the
// accounts of the chosen agreement, with PSU-Corporate-ID (docs/interface.md section 5.10).
func (w *walk) corporateAccounts(ctx context.Context) error {
	if err := w.startSCA(ctx, "corporate consent", corporateKey, w.corporate, func(opts client.RequestOption) (any, error) {
		return w.ais.StartConsent(ctx, opts)
	}); err != nil {
		return err
	}
	if err := w.r.step("corporate agreements", func() (string, error) {
		opts, err := w.call(ctx, corporateKey)
		if err != nil {
			return "", err
		}
		list, err := w.ais.Agreements(ctx, opts)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "", errors.New("no agreements")
		}
		names := make([]string, len(list))
		for i, a := range list {
			names[i] = a.Name
		}
		return fmt.Sprintf("%d agreements: %s", len(list), strings.Join(names, ", ")), nil
	}); err != nil {
		return err
	}
	return w.r.step("corporate accounts", func() (string, error) {
		s, err := w.sessions.Session(ctx, corporateKey)
		if err != nil {
			return "", err
		}
		if s.PSUCorporateID == "" {
			return "", errors.New("the corporate session has no PSU-Corporate-ID")
		}
		// The session's options carry PSU-ID, TPP-Session-ID and
		// PSU-Corporate-ID.
		opts, err := w.call(ctx, corporateKey)
		if err != nil {
			return "", err
		}
		list, err := w.ais.List(ctx, nil, opts)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "", errors.New("no accounts under the agreement")
		}
		names := make([]string, len(list))
		for i, a := range list {
			names[i] = a.Name
		}
		return fmt.Sprintf("%d accounts with PSU-Corporate-ID: %s", len(list), strings.Join(names, ", ")), nil
	})
}
