// Command refresh is an AISP's background job: the balances and new
// transactions of every consented account, refreshed without the PSU
// within the bank's budget of 4 calls per account and day, with package
// refresh.
//
// It seeds a few thousand accounts in the embedded bank sandbox (package
// sandbox/emulator, bulk seeding), remembers each PSU's accounts right
// after the SCA, refreshes them all with a progress bar (plain lines when
// standard output is not a terminal), prints a summary of the outcomes,
// and then shows one account's day: 4 refreshes spread over the day, and
// a 5th refused locally, before sending, with the time of the next
// allowed call. The sandbox's clock is simulated, so the day takes a
// moment.
//
//	go run ./examples/refresh
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// The seeded bank: psus PSUs with accountsPerPSU accounts each.
const (
	psus           = 500
	accountsPerPSU = 4
)

func main() {
	demo.Main("refresh", func(ctx context.Context, out io.Writer) error { return run(ctx, out, psus) })
}

// clock is the simulated time of the sandbox, the client and the
// refresher, so that the example can move through a day.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// run seeds n PSUs with accountsPerPSU accounts each and refreshes them.
func run(ctx context.Context, out io.Writer, n int) error {
	clk := &clock{now: time.Now()}
	bank := emulator.NewServer(emulator.WithClock(clk.Now))
	defer bank.Close()
	creds, err := bank.NewTPP("Refresh example")
	if err != nil {
		return err
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithClock(clk.Now),
		client.WithDefaults(client.WithRedirectURI(demo.RedirectURI)))
	if err != nil {
		return err
	}
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}

	// 1. The bank: n PSUs who have just completed the SCA of a consent,
	// each with accounts holding 10 transactions (8 booked, 2 pending).
	seeded, err := bank.Control().Seed(ctx, creds.Certificate, seedData(n, clk.Now()))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded %d PSUs with %d accounts in the sandbox\n", n, n*accountsPerPSU)

	// 2. Right after each SCA, while the bank still lists accounts (one
	// hour), remember the session's accounts and store the session.
	sessions := store.NewMemoryStore()
	for i, cu := range seeded.Customers {
		s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
			Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		if s, err = refresh.Remember(ctx, ais, s, nil); err != nil {
			return err
		}
		if err := sca.SaveSession(ctx, sessions, fmt.Sprintf("user-%05d", i), s); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "remembered the accounts of %d sessions\n", n)

	// Some PSUs revoked their consent at the bank meanwhile, and the bank
	// fails for one account (503 on every attempt of the client).
	revoked := max(n/100, 1)
	for _, cu := range seeded.Customers[:revoked] {
		bank.Control().RevokeConsent(cu.Number)
	}
	failing := seeded.Customers[n-1].Accounts[0].ID
	bank.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, Count: 4,
		PathPrefix: "/v1/accounts/" + failing + "/balances"})

	// 3. The background refresh of every stored session's accounts.
	cursors := map[string]refresh.Cursor{} // a real TPP keeps them with the accounts
	bar := newProgressBar(out, n*accountsPerPSU)
	r, err := refresh.New(ais, refresh.WithProgress(bar.update))
	if err != nil {
		return err
	}
	jobs := refresh.JobsFrom(sca.ListSessions(ctx, sessions), func(j *refresh.Job) bool {
		j.Cursor = cursors[j.AccountID()]
		return true
	}, func(err error) { fmt.Fprintln(out, "a stored session could not be read:", err) })
	var last refresh.Progress
	booked := 0
	var one refresh.Job // an account refreshed fine, for step 4
	for res, err := range r.Run(ctx, jobs) {
		if err != nil {
			return err
		}
		if res.Outcome == refresh.Done {
			cursors[res.Job.AccountID()] = res.Cursor
			booked += len(res.Booked)
			if one.Session() == nil {
				one = res.Job
			}
		}
		last = bar.last
	}
	bar.finish()
	summary(out, last, booked)

	// 4. One account's day: 3 more refreshes refresh.DefaultSpacing (about
	// 6 hours) apart, then a 5th that the budget refuses before anything
	// is sent, until the first call stops counting (24 hours and the
	// budget's 5-minute margin for clock differences after it).
	fmt.Fprintln(out, "\none account through the day:")
	first := cursors[one.AccountID()].RefreshedAt
	for round := 2; round <= 5; round++ {
		if round < 5 {
			clk.Add(refresh.DefaultSpacing)
		} else {
			clk.Add(4 * time.Hour)
			one.Force = true // past the spacing: only the budget decides
		}
		one.Cursor = cursors[one.AccountID()]
		for res, err := range r.Run(ctx, func(yield func(refresh.Job) bool) { yield(one) }) {
			if err != nil {
				return err
			}
			at := clk.Now().Sub(first).Round(time.Minute)
			switch res.Outcome {
			case refresh.Done:
				cursors[one.AccountID()] = res.Cursor
				fmt.Fprintf(out, "  round %d at +%s: done, %d calls\n", round, at, res.Calls)
			case refresh.BudgetExhausted:
				fmt.Fprintf(out, "  round %d at +%s: refused locally, %d calls sent; next call allowed at %s (+%s)\n",
					round, at, res.Calls, res.RetryAt.UTC().Format(time.RFC3339), res.RetryAt.Sub(first).Round(time.Minute))
			default:
				return fmt.Errorf("round %d: %s: %w", round, res.Outcome, res.Err)
			}
		}
	}
	return nil
}

// seedData is n private customers with accountsPerPSU accounts each and a
// consent given at.
func seedData(n int, at time.Time) emulator.SeedData {
	txs := make([]emulator.SeedTransaction, 10)
	amounts := []string{"-389.40", "-1249.00", "32500.00", "-8750.00", "-45.00", "-212.50", "-99.90", "-15.00"}
	for i := range txs {
		txs[i] = emulator.SeedTransaction{BookingDate: at.AddDate(0, 0, -1-3*i), Amount: amounts[i%len(amounts)],
			CounterpartyName: "Eksempel Kraft AS", Remittance: fmt.Sprintf("Faktura %d", i)}
	}
	txs[8].Pending, txs[9].Pending = true, true
	accts := make([]emulator.SeedAccount, accountsPerPSU)
	for i := range accts {
		accts[i] = emulator.SeedAccount{Balance: "15234.75", Transactions: txs}
	}
	customers := make([]emulator.SeedCustomer, n)
	for i := range customers {
		customers[i] = emulator.SeedCustomer{Accounts: accts, Consent: &emulator.SeedConsent{At: at}}
	}
	return emulator.SeedData{Customers: customers}
}

// summary prints the outcome classes of a run.
func summary(out io.Writer, p refresh.Progress, booked int) {
	rate := float64(p.Calls) / max(p.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(out, "refreshed %d accounts in %s: %d calls, %.0f calls/s, %d booked transactions read\n",
		p.Finished(), p.Elapsed.Round(10*time.Millisecond), p.Calls, rate, booked)
	for _, o := range []struct {
		outcome refresh.Outcome
		meaning string
	}{
		{refresh.Done, "keep the new cursor"},
		{refresh.BudgetExhausted, "try again at the result's RetryAt"},
		{refresh.ReconnectNeeded, "ask the PSU for a new consent"},
		{refresh.Transient, "the bank failed after the client's retries: try again later"},
		{refresh.Refused, "the bank refused the job: look at it"},
	} {
		fmt.Fprintf(out, "  %-17s %6d  %s\n", o.outcome, p.Count(o.outcome), o.meaning)
	}
}

// progressBar draws the run's progress: a bar redrawn in place on a
// terminal, a line per quarter otherwise.
type progressBar struct {
	out      io.Writer
	total    int
	terminal bool
	last     refresh.Progress
	drawn    time.Time
	quarter  int
}

func newProgressBar(out io.Writer, total int) *progressBar {
	b := &progressBar{out: out, total: total}
	if f, ok := out.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			b.terminal = true
		}
	}
	return b
}

// update is the refresher's progress callback.
func (b *progressBar) update(p refresh.Progress) {
	b.last = p
	if b.terminal {
		if time.Since(b.drawn) >= 100*time.Millisecond || p.Finished() == b.total {
			b.drawn = time.Now()
			const width = 30
			filled := width * p.Finished() / max(b.total, 1)
			fmt.Fprintf(b.out, "\r[%s%s] %d/%d  done %d  waiting %d  failed %d",
				strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.Finished(), b.total, p.Done, p.Waiting, p.Failed)
		}
		return
	}
	if q := 4 * p.Finished() / max(b.total, 1); q > b.quarter {
		b.quarter = q
		fmt.Fprintf(b.out, "progress: %d/%d accounts, done %d, waiting %d, failed %d\n",
			p.Finished(), b.total, p.Done, p.Waiting, p.Failed)
	}
}

// finish ends the bar's line on a terminal.
func (b *progressBar) finish() {
	if b.terminal {
		fmt.Fprintln(b.out)
	}
}
