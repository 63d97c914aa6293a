package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
)

func runBanks(_ context.Context, e *env, args []string) error {
	fs := e.flags("banks", "[-banks-file own.json] [ID... | -bank ID]")
	var file string
	settingVar(fs, &file, "banksFile", "", "JSON file overriding and extending the directory")
	var ids []string
	one := func(id string) error { ids = append(ids, id); return nil }
	fs.Func("bank", "show this bank (or give the ids as arguments: psd2 banks sor dnb)", one)
	fs.Func("id", "the same as -bank", one)
	if err := parse(fs, args, true); err != nil {
		return err
	}
	d, err := directory(file)
	if err != nil {
		return err
	}
	list := d.All()
	if ids = append(ids, fs.Args()...); len(ids) > 0 {
		list = nil
		for _, id := range ids {
			b, ok := d.Lookup(id)
			if !ok {
				return usagef("no bank %q in the directory (psd2 banks lists them)", id)
			}
			list = append(list, b)
		}
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
	force := fs.Bool("force", false, "act on a host that is not known as a sandbox (the sandbox commands write mock data)")
	if err := parse(fs, args[1:], sub == "seed"); err != nil {
		return err
	}
	base, err := bf.baseURL()
	if err != nil {
		return err
	}
	if !*force {
		if err := bf.sandboxOnly(base); err != nil {
			return err
		}
	}
	var seed []seedCustomer
	if sub == "seed" {
		if fs.NArg() != 1 {
			return usagef("seed takes one JSON file: %s", seedShape)
		}
		data, err := readBounded(fs.Arg(0), maxSeedFile)
		if err != nil {
			return err
		}
		if seed, err = decodeSeed(data); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
		if seed == nil {
			return fmt.Errorf("%s: no list of customers (want %s)", fs.Arg(0), seedShape)
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
			return sandboxAnswerErr(err)
		}
		return e.emit(map[string]bool{"reset": true}, func(w io.Writer) { fmt.Fprintln(w, "sandbox reset to its default data") })
	case "seed":
		rep, err := seedSandbox(ctx, s, seed)
		if err != nil && rep.Stopped == nil && len(rep.Unverified) == 0 {
			return err // refused before anything was made
		}
		// A seed that stopped part-way says what it made before, as
		// one that finished does: a customer it made is in the sandbox.
		if eerr := e.emit(rep, func(w io.Writer) { printSeed(w, rep) }); eerr != nil {
			return eerr
		}
		return err
	}
	list, err := s.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true})
	if err != nil {
		return sandboxAnswerErr(err)
	}
	if len(list) == 0 {
		// An empty list is a claim about this TPP's sandbox at this
		// bank: said so, never a silent nothing.
		list = []sandbox.Customer{}
		fmt.Fprintln(e.stderr, noCustomerNote)
	}
	return e.emit(list, func(w io.Writer) {
		for _, cu := range list {
			fmt.Fprintf(w, "%-12s %-10s %-30s %d account(s), %d card account(s)\n", cu.CustomerNumber, cu.CustomerType, cu.CustomerName, len(cu.Accounts), len(cu.CardAccounts))
		}
		fmt.Fprintf(w, "%d customer(s)\n", len(list))
	})
}

// sandboxAnswerErr says of an answer that is not JSON, or JSON of
// another shape (a web page, another server on that host, a wrong
// path), that it is not the sandbox's, and what to check: the decoder's
// words alone ("invalid character '<'") do not say it.
func sandboxAnswerErr(err error) error {
	var syntax *json.SyntaxError
	var shape *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &shape) {
		return fmt.Errorf("not the sandbox's answer, a web page or another server's (check -url or -bank): %w", err)
	}
	return err
}

// noCustomerNote is said when a sandbox lists no customer at all.
const noCustomerNote = "note: this sandbox holds no customer at all (not even the default ones): either every customer was deleted (psd2 sandbox reset brings the default ones back), " +
	"or -bank, -url or the certificate is not the one whose sandbox you mean (check them before reading this as an empty sandbox)"

// sandboxOnly refuses a base URL that is not a sandbox, before any
// request: one the bank directory lists as a bank's production API, or
// one it does not list as a sandbox that is not on loopback (the
// emulator). The sandbox commands write mock data; -force skips this.
func (b *bankFlags) sandboxOnly(base string) error {
	d, err := directory(b.banksFile)
	if err != nil {
		return err
	}
	for _, bk := range d.All() {
		switch {
		case sameBase(base, bk.Production):
			return usagef("%s is %s's production API, not a sandbox: the sandbox commands write mock data (give -force if this really is a sandbox)", base, bk.ID)
		case sameBase(base, bk.Sandbox):
			return nil
		}
	}
	if u, err := url.Parse(base); err == nil && isLoopback(u.Hostname()) {
		return nil
	}
	return usagef("%s is not a sandbox the bank directory knows (psd2 banks), nor the emulator on loopback: the sandbox commands write mock data (give -force if it is a sandbox)", base)
}

// sameBase reports whether two base URLs name one API: scheme and host
// in any case, no trailing slash.
func sameBase(a, b string) bool {
	ua, erra := url.Parse(a)
	ub, errb := url.Parse(b)
	return erra == nil && errb == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimRight(ua.Path, "/") == strings.TrimRight(ub.Path, "/")
}

// isLoopback reports whether host is this machine: localhost, a name
// under .localhost (RFC 6761), or a loopback address.
func isLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// budgetWindow is b's window, as the text says it.
func budgetWindow(b *budget.Budget) string {
	_, w := b.Limit()
	return w.String()
}

// budgetReport is one endpoint's budget; the text and the JSON say the
// same: a call is allowed now (AllowedNow), or at NextAt.
type budgetReport struct {
	Endpoint   budget.Endpoint `json:"endpoint"`
	Counted    int             `json:"counted"`
	Remaining  int             `json:"remaining"`
	Limit      int             `json:"limit"`
	Window     string          `json:"window"`
	AllowedNow bool            `json:"allowedNow"`
	// NextAt is when the next call is allowed, when it is not now.
	NextAt *time.Time `json:"nextAt,omitempty"`
	// BankPausedUntil is the end of the bank's pause (a 429 with a
	// Retry-After, budget.Budget.PausedUntil) while it runs: no refresh
	// calls the bank before, whatever the account's calls left.
	BankPausedUntil *time.Time `json:"bankPausedUntil,omitempty"`
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
	b := budget.Of(c)
	// An account with no ledger reads as "4 of 4 left", exactly like a
	// mistyped id or another bank's account: say which, never all-clear.
	rec, err := b.Recorded(ctx, *account)
	if err != nil {
		return err
	}
	switch {
	case !rec.Bank:
		return fmt.Errorf("this store holds no budget of bank %s: no account of it was read without the PSU in the last %s (check -bank or -url, and -store)", c.Bank(), budgetWindow(b))
	case !rec.Account:
		return fmt.Errorf("this store holds no budget of that account at bank %s: it was not read without the PSU in the last %s (every call left), or the account id is not one of this bank (check -account)", c.Bank(), budgetWindow(b))
	}
	// The bank's pause holds every call of a refresh, whatever the
	// account's calls left: never "allowed now" during it.
	pausedUntil, paused, err := b.PausedUntil(ctx)
	if err != nil {
		return err
	}
	var out []budgetReport
	for _, ep := range []budget.Endpoint{budget.Balances, budget.Transactions, budget.CardBalances, budget.CardTransactions} {
		a, err := b.Remaining(ctx, *account, ep)
		if err != nil {
			return err
		}
		r := budgetReport{Endpoint: ep, Counted: a.Limit - a.Remaining, Remaining: a.Remaining, Limit: a.Limit, Window: a.Window.String(),
			AllowedNow: a.Remaining > 0 || a.NextAt.IsZero()}
		next := a.NextAt
		if paused {
			p := pausedUntil.UTC()
			r.BankPausedUntil = &p
			r.AllowedNow = false
			if a.Remaining > 0 || next.Before(p) {
				next = p
			}
		}
		if !r.AllowedNow {
			t := next.UTC()
			r.NextAt = &t
		}
		out = append(out, r)
	}
	return e.emit(out, func(w io.Writer) {
		for _, r := range out {
			next := "now"
			if !r.AllowedNow {
				next = r.NextAt.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "%-18s %d of %d counted in %s; next call allowed: %s\n", r.Endpoint, r.Counted, r.Limit, r.Window, next)
		}
		if paused {
			fmt.Fprintf(w, "the bank is paused until %s: it asked the TPP to slow down (429 with a Retry-After), and no refresh calls it before\n", pausedUntil.UTC().Format(time.RFC3339))
		}
	})
}
