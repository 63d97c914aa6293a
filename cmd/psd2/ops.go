package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
)

func runBanks(_ context.Context, e *env, args []string) error {
	fs := e.flags("banks", "[-banks-file own.json] [-id ID]")
	file := fs.String("banks-file", "", "JSON file overriding and extending the directory")
	id := fs.String("id", "", "show one bank")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	d, err := directory(*file)
	if err != nil {
		return err
	}
	list := d.All()
	if *id != "" {
		b, ok := d.Lookup(*id)
		if !ok {
			return usagef("%v: %q", banks.ErrUnknownBank, *id)
		}
		list = []banks.Bank{b}
	}
	return e.emit(list, func(w io.Writer) {
		for _, b := range list {
			fmt.Fprintf(w, "%-22s %-12s %-36s %s (%d-day consent; verified %s)\n", b.ID, b.Group, b.Name, b.Production, int(b.ConsentValidity()/(24*time.Hour)), b.Verified)
			if b.Notes != "" {
				fmt.Fprintf(w, "%-22s note: %s\n", "", b.Notes)
			}
		}
	})
}

func runSandbox(ctx context.Context, e *env, args []string) error {
	usage := "(reset | list | seed seed.json) (-bank ID | -url BASE) (-cert ... | -p12 ...)"
	if len(args) == 0 || (args[0] != "reset" && args[0] != "list" && args[0] != "seed") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(e.stderr, "Usage: psd2 sandbox %s\n", usage)
			return nil
		}
		return usagef("want a subcommand: reset, list or seed")
	}
	sub := args[0]
	fs := e.flags("sandbox "+sub, usage)
	var cf credFlags
	var bf bankFlags
	cf.register(fs, true)
	bf.register(fs)
	if err := parse(fs, args[1:], sub == "seed"); err != nil {
		return err
	}
	var seed []seedCustomer
	if sub == "seed" {
		if fs.NArg() != 1 {
			return usagef("seed takes one JSON file: %s", seedShape)
		}
		data, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &seed); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
	}
	c, err := newClient(&bf, &cf)
	if err != nil {
		return err
	}
	s, err := sandbox.New(c)
	if err != nil {
		return err
	}
	switch sub {
	case "reset":
		if err := s.Initialize(ctx); err != nil {
			return err
		}
		return e.emit(map[string]bool{"reset": true}, func(w io.Writer) { fmt.Fprintln(w, "sandbox reset to its default data") })
	case "seed":
		rep, err := seedSandbox(ctx, s, seed)
		if err != nil {
			return err
		}
		return e.emit(rep, func(w io.Writer) {
			fmt.Fprintf(w, "created %d customer(s), %d account(s), %d transaction(s)\n", len(rep.Created), rep.Accounts, rep.Transactions)
		})
	}
	list, err := s.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true})
	if err != nil {
		return err
	}
	return e.emit(list, func(w io.Writer) {
		for _, cu := range list {
			fmt.Fprintf(w, "%-12s %-10s %-30s %d account(s), %d card account(s)\n", cu.CustomerNumber, cu.CustomerType, cu.CustomerName, len(cu.Accounts), len(cu.CardAccounts))
		}
	})
}

type budgetReport struct {
	Endpoint  accounts.Endpoint `json:"endpoint"`
	Counted   int               `json:"counted"`
	Remaining int               `json:"remaining"`
	Limit     int               `json:"limit"`
	Window    string            `json:"window"`
	NextAt    *time.Time        `json:"nextAt,omitempty"`
}

func runBudget(ctx context.Context, e *env, args []string) error {
	fs := e.flags("budget", "-account ID -store DIR (-bank ID | -url BASE) (-cert ... | -p12 ...)")
	var cf credFlags
	var bf bankFlags
	var sf storeFlags
	cf.register(fs, true)
	bf.register(fs)
	sf.register(fs)
	account := fs.String("account", "", "the account's resource id (not printed)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *account == "" {
		return usagef("give -account")
	}
	st, done, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	c, err := newClient(&bf, &cf, client.WithStore(st))
	if err != nil {
		return err
	}
	svc, err := accounts.New(c)
	if err != nil {
		return err
	}
	var out []budgetReport
	for _, ep := range []accounts.Endpoint{accounts.EndpointBalances, accounts.EndpointTransactions, accounts.EndpointCardBalances, accounts.EndpointCardTransactions} {
		a, err := svc.Remaining(ctx, *account, ep)
		if err != nil {
			return err
		}
		r := budgetReport{Endpoint: ep, Counted: a.Limit - a.Remaining, Remaining: a.Remaining, Limit: a.Limit, Window: a.Window.String()}
		if !a.NextAt.IsZero() {
			t := a.NextAt.UTC()
			r.NextAt = &t
		}
		out = append(out, r)
	}
	return e.emit(out, func(w io.Writer) {
		for _, r := range out {
			next := "now"
			if r.Remaining == 0 && r.NextAt != nil {
				next = r.NextAt.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "%-18s %d of %d counted in %s; next call allowed: %s\n", r.Endpoint, r.Counted, r.Limit, r.Window, next)
		}
	})
}
