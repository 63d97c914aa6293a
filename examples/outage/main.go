// Command outage runs a background refresh round through a bank outage:
// the bank answers 503 to everything for a minute. The client's circuit
// breaker opens after 5 requests in a row answered 5xx, the rest of the
// round fails fast without sending anything or spending any account's
// budget of 4 calls a day, and once the outage is over the next round's
// first call is the breaker's probe: it closes the breaker and every
// account is refreshed. The example prints the breaker's transitions and
// the downtime record a TPP can file (psd2 health report prints the same
// from a shared store). The sandbox's clock is simulated.
//
//	go run ./examples/outage
package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// The seeded bank: psus PSUs with accountsPerPSU accounts each.
const (
	psus           = 50
	accountsPerPSU = 2
	outage         = time.Minute
)

func main() {
	demo.Main("outage", func(ctx context.Context, out io.Writer) error { return run(ctx, out, psus) })
}

// clock is the simulated time of the sandbox and the client.
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

func run(ctx context.Context, out io.Writer, n int) error {
	clk := &clock{now: time.Now()}
	start := clk.Now()
	at := func(t time.Time) string { return "+" + t.Sub(start).Round(time.Second).String() }
	bank := emulator.NewServer(emulator.WithClock(clk.Now))
	defer bank.Close()
	creds, err := bank.NewTPP("Outage example")
	if err != nil {
		return err
	}
	health := client.NewHealth()
	health.OnChange(func(ch client.BreakerChange) {
		fmt.Fprintf(out, "%s breaker %s -> %s (%d failed requests)\n", at(ch.At), ch.From, ch.To, ch.Downtime.Failures)
	})
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithClock(clk.Now),
		client.WithHealth(health), client.WithDefaults(client.WithRedirectURI(demo.RedirectURI)))
	if err != nil {
		return err
	}
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}
	seeded, err := bank.Control().Seed(ctx, creds.Certificate, seedData(n, clk.Now()))
	if err != nil {
		return err
	}
	var jobs []refresh.Job
	for _, cu := range seeded.Customers {
		s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
			Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		if s, err = refresh.Remember(ctx, ais, s, nil); err != nil {
			return err
		}
		for _, id := range s.AccountIDs {
			j, err := refresh.NewJob(s, id, false)
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
	}
	fmt.Fprintf(out, "%d accounts to refresh\n", len(jobs))
	r, err := refresh.New(ais, refresh.WithWorkers(1), refresh.WithSpacing(0))
	if err != nil {
		return err
	}

	// Round 1: the bank is down (503 to every request) for a minute.
	bank.Control().Outage(emulator.OutageUnavailable, outage)
	fmt.Fprintf(out, "%s the bank goes down for %s\n", at(clk.Now()), outage)
	left, calls, err := round(ctx, r, jobs, clk)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "round 1: %d of %d accounts not refreshed, %d calls sent\n", len(left), len(jobs), calls)

	// Round 2, once the outage is over: the first call is the probe.
	if back := start.Add(outage + time.Second); clk.Now().Before(back) {
		clk.Add(back.Sub(clk.Now()))
	}
	left, calls, err = round(ctx, r, left, clk)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "round 2: %d accounts not refreshed, %d calls sent\n", len(left), calls)
	spent := 0
	for _, j := range jobs {
		a, err := budget.Of(c).Remaining(ctx, j.AccountID(), budget.Balances)
		if err != nil {
			return err
		}
		spent += a.Limit - a.Remaining
	}
	fmt.Fprintf(out, "balances calls counted against the accounts' budgets: %d for %d accounts\n", spent, len(jobs))

	downs, err := c.Downtimes(ctx, start, clk.Now())
	if err != nil {
		return err
	}
	fmt.Fprint(out, client.Report(c.Bank(), downs, start, clk.Now(), clk.Now()).String())
	return nil
}

// round refreshes jobs, one second of the simulated clock per account,
// and returns those not done and the calls sent.
func round(ctx context.Context, r *refresh.Refresher, jobs []refresh.Job, clk *clock) ([]refresh.Job, int, error) {
	var left []refresh.Job
	calls := 0
	for _, j := range jobs {
		res := r.Refresh(ctx, j)
		calls += res.Calls
		if res.Outcome != refresh.Done {
			left = append(left, j)
		}
		clk.Add(time.Second)
	}
	return left, calls, nil
}

// seedData is n PSUs with accountsPerPSU accounts each, consented at at.
func seedData(n int, at time.Time) emulator.SeedData {
	txs := []emulator.SeedTransaction{{BookingDate: at.AddDate(0, 0, -1), Amount: "-389.40", CounterpartyName: "Eksempel Kraft AS"}}
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
