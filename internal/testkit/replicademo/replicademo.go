// Package replicademo is the body of the replicas example: two replicas
// of a TPP's service, each with its own client, SCA manager, accounts
// and payments services, and its own connection to one shared database,
// run against the embedded emulator. It lives here, not in package main,
// so that the core module's example (a file store as the database) and
// the pgstore module's (PostgreSQL) run the same code.
package replicademo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/browser"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// RedirectURI is the TPP-Redirect-URI of both replicas.
const RedirectURI = "https://tpp.example/callback"

// present is the PSU's request data while the PSU is at the TPP's site
// (192.0.2.10 is a documentation address).
var present = &client.PSU{IPAddress: "192.0.2.10"}

// shopper is the TPP's key for its user.
const shopper = "shopper-7"

// kariBruk is the current account of the emulator's customer Kari.
const kariBruk = "95312776066"

// Database is the shared database of the replicas.
type Database struct {
	// Name says what it is, for the output.
	Name string
	// Open returns a new client of the database: each replica opens its
	// own, as replicas on different machines would.
	Open func(ctx context.Context) (store.Store, error)
}

// replica is one instance of the TPP's service.
type replica struct {
	name    string
	c       *client.Client
	mgr     *sca.Manager
	ais     *accounts.Service
	pis     *payments.Service
	journal *journal.Journal
	later   *journal.Journal // journal.WithWritersStopped: an operator's
}

// newReplica opens the replica's own client of db and builds its services
// for the TPP tpp (both replicas are the same TPP).
func newReplica(ctx context.Context, name string, db Database, bank *emulator.Server, tpp *signing.Credentials) (*replica, error) {
	st, err := db.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("replica %s: opening the database: %w", name, err)
	}
	c, err := client.New(bank.URL, tpp, client.WithHTTPClient(bank.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(RedirectURI)))
	if err != nil {
		return nil, err
	}
	flow, err := sca.NewFlow(RedirectURI)
	if err != nil {
		return nil, err
	}
	mgr, err := sca.NewManager(flow, st)
	if err != nil {
		return nil, err
	}
	ais, err := accounts.New(c)
	if err != nil {
		return nil, err
	}
	j, err := journal.New(st, journal.WithClient(c))
	if err != nil {
		return nil, err
	}
	pis, err := payments.New(c, payments.WithJournal(j))
	if err != nil {
		return nil, err
	}
	// The journal of an operator who knows that the replica that sent a
	// create has stopped and that the bank is done with it (the demo's
	// stand-in for waiting the in-flight time, two minutes).
	later, err := journal.New(st, journal.WithWritersStopped())
	if err != nil {
		return nil, err
	}
	return &replica{name: name, c: c, mgr: mgr, ais: ais, pis: pis, journal: j, later: later}, nil
}

// Run runs the example on db, writing what happens to out.
func Run(ctx context.Context, out io.Writer, db Database) error {
	bank := emulator.NewServer()
	defer bank.Close()
	tpp, err := bank.NewTPP("Replicas example")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "two replicas of one TPP, sharing %s\n", db.Name)
	a, err := newReplica(ctx, "A", db, bank, tpp)
	if err != nil {
		return err
	}
	b, err := newReplica(ctx, "B", db, bank, tpp)
	if err != nil {
		return err
	}

	session, err := callbackOnTheOtherReplica(ctx, out, bank, a, b)
	if err != nil {
		return err
	}
	if err := sharedBudget(ctx, out, bank, tpp, a, b); err != nil {
		return err
	}
	return unknownPaymentResolved(ctx, out, bank, session, a, b)
}

// callbackOnTheOtherReplica: A starts the PSU's SCA (GET /v1/user), the
// load balancer sends the browser's return to B, which completes it.
func callbackOnTheOtherReplica(ctx context.Context, out io.Writer, bank *emulator.Server, a, b *replica) (*sca.Session, error) {
	fmt.Fprintln(out, "\n1. a callback started on one replica, completed on the other")
	call, err := a.mgr.Begin(ctx, shopper, present)
	if err != nil {
		return nil, err
	}
	redirect, needed, err := sca.User(ctx, a.c, call.Options)
	if err != nil {
		return nil, err
	}
	if !needed {
		return nil, errors.New("expected an SCA for a PSU the TPP does not know yet")
	}
	if _, _, err := call.Redirect(ctx, redirect); err != nil { // the pending SCA, in the shared store
		return nil, err
	}
	fmt.Fprintln(out, "   replica A started the SCA and saved the pending SCA")
	callback, err := bank.Control().Authorize(ctx, redirect.String(), emulator.CustomerKari)
	if err != nil {
		return nil, err
	}
	session, err := browser.Callback(ctx, b.mgr, shopper, callback.String())
	if err != nil {
		return nil, fmt.Errorf("replica B completing the SCA: %w", err)
	}
	fmt.Fprintf(out, "   the callback reached replica B, which completed it (%s PSU)\n", session.Context)
	if _, err := browser.Callback(ctx, a.mgr, shopper, callback.String()); errors.Is(err, sca.ErrNoPending) {
		fmt.Fprintln(out, "   the same callback replayed on replica A: refused, a pending SCA is taken once")
	} else {
		return nil, fmt.Errorf("a replayed callback was not refused: %v", err)
	}
	if _, err := a.mgr.Session(ctx, shopper); err != nil {
		return nil, fmt.Errorf("replica A does not see the session: %w", err)
	}
	fmt.Fprintln(out, "   replica A uses the session replica B stored")
	return session, nil
}

// sharedBudget: the 4 calls a day without the PSU of one account are
// spent by both replicas together.
func sharedBudget(ctx context.Context, out io.Writer, bank *emulator.Server, tpp *signing.Credentials, a, b *replica) error {
	fmt.Fprintln(out, "\n2. the without-PSU budget is shared")
	seeded, err := bank.Control().Seed(ctx, tpp.Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Accounts: []emulator.SeedAccount{{Balance: "2500.00"}},
		Consent:  &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)}, // the PSU left long ago
	}}})
	if err != nil {
		return err
	}
	cu := seeded.Customers[0]
	s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
		Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
	account, absent := cu.Accounts[0].ID, s.RequestOptions(nil) // nil: the PSU is not present
	for i, r := range []*replica{a, b, a, b} {
		if _, err := r.ais.Balances(ctx, account, absent); err != nil {
			return fmt.Errorf("call %d on replica %s: %w", i+1, r.name, err)
		}
	}
	fmt.Fprintln(out, "   balances read 4 times without the PSU: twice by replica A, twice by replica B")
	_, err = a.ais.Balances(ctx, account, absent)
	var spent *budget.ExhaustedError
	if !errors.As(err, &spent) {
		return fmt.Errorf("the 5th call was not refused: %v", err)
	}
	fmt.Fprintf(out, "   a 5th call on replica A: refused before sending (%d calls in %.0f hours spent); allowed again in %.0f hours\n",
		spent.Limit, spent.Window.Hours(), time.Until(spent.RetryAt).Round(time.Hour).Hours())
	left, err := budget.Of(b.ais.Client()).Remaining(ctx, account, budget.Balances)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "   replica B sees %d calls left\n", left.Remaining)
	return nil
}

// unknownPaymentResolved: A's payment create loses its answer and A goes
// down; B finds the entry in doubt in the journal and resolves it.
func unknownPaymentResolved(ctx context.Context, out io.Writer, bank *emulator.Server, session *sca.Session, a, b *replica) error {
	fmt.Fprintln(out, "\n3. a payment whose outcome is unknown, resolved by the other replica")
	bank.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	_, err := a.pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("249.00", "NOK"),
		CreditorName:                      "Nettbutikken AS",
		CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: kariBruk, Currency: "NOK"},
		RemittanceInformationUnstructured: "Order 2026-118",
	}, session.RequestOptions(present))
	if !errors.Is(err, client.ErrOutcomeUnknown) {
		return fmt.Errorf("expected an unknown outcome, got %v", err)
	}
	fmt.Fprintln(out, "   replica A sent a payment; the connection dropped before the answer: outcome unknown")
	fmt.Fprintln(out, "   replica A goes down; replica B looks in the journal")
	for e, err := range b.journal.InDoubt(ctx) {
		if err != nil {
			return err
		}
		if _, err := b.journal.Resolve(ctx, b.c, e); !errors.Is(err, journal.ErrInFlight) {
			return fmt.Errorf("expected Resolve to wait while the bank may still work on the create, got %v", err)
		}
		fmt.Fprintln(out, "   replica B finds it in doubt; Resolve sends nothing yet: the bank may still be working on it (journal.ErrInFlight)")
	}
	fmt.Fprintln(out, "   replica A stays down; replica B's operator, who knows it and that the bank is done with the payment, resolves it (journal.WithWritersStopped)")
	n := 0
	for e, err := range b.later.InDoubt(ctx) {
		if err != nil {
			return err
		}
		n++
		res, err := b.later.Resolve(ctx, b.c, e) // the entry holds the headers the resend needs
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "   entry %d in doubt (%s, outcome %s): resolved as %q\n", n, e.Operation, e.Outcome, res.Kind)
		switch res.Kind {
		case journal.ResolvedDuplicate:
			fmt.Fprintln(out, "   the bank refused the same payment as a logical duplicate: the first one exists")
		case journal.ResolvedCreated:
			fmt.Fprintln(out, "   the first never arrived: the same payment was created now, once")
		}
	}
	if n == 0 {
		return errors.New("no entry in doubt")
	}
	fmt.Fprintf(out, "   the bank holds %d payment\n", len(bank.Control().Payments()))
	return nil
}
