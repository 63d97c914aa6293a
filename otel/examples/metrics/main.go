// Command metrics exposes the SDK's OpenTelemetry metrics in the
// Prometheus text format on /metrics, through OpenTelemetry's Prometheus
// exporter, after a scripted run against the embedded bank sandbox: reads
// without the PSU until the budget refuses one, a read the bank first
// answers 503, a read the bank refuses, a payment, and the lifecycle gauges (consents by days left,
// days until the signing certificate expires, journal entries in doubt,
// a refresh round, a River refresh queue).
//
// Without flags it prints one scrape of /metrics and exits; with -serve
// it keeps serving on -addr for a Prometheus server:
//
//	go run . -serve -addr 127.0.0.1:9464
//	curl -s 127.0.0.1:9464/metrics | grep psd2_
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"

	psd2otel "github.com/tppkit/psd2/otel"
	"github.com/tppkit/psd2/otel/examples/metrics/promexp"
)

func main() {
	serve := flag.Bool("serve", false, "keep serving /metrics after the scripted run")
	addr := flag.String("addr", "127.0.0.1:0", "address to serve /metrics on")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *addr, *serve); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, addr string, serve bool) error {
	pe, err := promexp.New()
	if err != nil {
		return err
	}
	defer func() { _ = pe.Close() }()
	obs := pe.Observer

	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Metrics example TPP")
	if err != nil {
		return err
	}
	// WithBank names the bank by its directory id (banks.Bank.ID): the
	// psd2_bank label of its metrics, which psd2 -bank takes. Without it
	// the label is the host of the base URL.
	// health is the banks' health (requests, latency, the breaker), which
	// the bank gauges read.
	health := client.NewHealth()
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(obs),
		client.WithBank("example-bank"), client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")),
		client.WithHealth(health))
	if err != nil {
		return err
	}
	jr, err := journal.New(store.NewMemoryStore())
	if err != nil {
		return err
	}
	seeded, err := bank.Control().Seed(ctx, creds.Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Accounts: []emulator.SeedAccount{{Balance: "1000.00"}},
		Consent:  &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)},
	}}})
	if err != nil {
		return err
	}
	cu := seeded.Customers[0]
	consentEnds := cu.Session.ConsentExpiresAt
	reg2, err := obs.RegisterGauges(psd2otel.Gauges{
		ConsentEnds:  func(context.Context) ([]time.Time, error) { return []time.Time{consentEnds}, nil },
		Certificates: psd2otel.ClientCertificates(c),
		InDoubt:      psd2otel.JournalInDoubt(jr),
		Health:       health.Banks,
		// A River refresh engine's queues (the pgstore module's
		// riverrefresh.Engine.QueueStats, through the adapter of
		// psd2otel.QueueState's comment): this program runs no River, so
		// it reports one bank queue as QueueStats reads one mid-round.
		// pgstore/examples/refreshworkers exports a real engine's.
		Queues: func(context.Context) ([]psd2otel.QueueState, error) {
			return []psd2otel.QueueState{{Bank: "example-bank", Available: 40, Running: 8, Scheduled: 3, Retryable: 1}}, nil
		},
	})
	if err != nil {
		return err
	}
	defer func() { _ = reg2.Unregister() }()

	if err := script(ctx, c, bank, cu, jr, obs); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", pe.Handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if serve {
		fmt.Fprintf(out, "serving http://%s/metrics\n", ln.Addr())
		select {}
	}
	_, err = promexp.Scrape(ctx, http.DefaultClient, out, "http://"+ln.Addr().String()+"/metrics")
	return err
}

// script makes the calls whose metrics the scrape shows.
func script(ctx context.Context, c *client.Client, bank *emulator.Server, cu emulator.SeededCustomer,
	jr *journal.Journal, obs *psd2otel.Observer) error {
	acc, err := accounts.New(c)
	if err != nil {
		return err
	}
	pay, err := payments.New(c, payments.WithJournal(jr))
	if err != nil {
		return err
	}
	sess := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
		Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
	absent := sess.RequestOptions(nil)
	account := cu.Accounts[0].ID

	planned := time.Now()
	bank.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: "GET", PathPrefix: "/v1/accounts/"})
	// The first read meets the 503 and is not retried (a counted call
	// without the PSU is never retried blindly: the 503 counted one call);
	// two more are answered; the 5th is refused by the budget.
	var unavailable *client.Error
	if _, err := acc.Balances(ctx, account, absent); !errors.As(err, &unavailable) {
		return fmt.Errorf("expected the bank's 503, got %v", err)
	}
	for range 4 {
		_, err := acc.Balances(ctx, account, absent)
		if err != nil && !errors.Is(err, budget.ErrExhausted) {
			return err
		}
	}
	obs.RecordRefreshRound(ctx, psd2otel.RoundDone, planned, planned.Add(1500*time.Millisecond))

	present := sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})
	// A read the bank refuses: an account it does not know (RESOURCE_UNKNOWN).
	var refused *client.Error
	if _, err := acc.Balances(ctx, "no-such-account", present); !errors.As(err, &refused) {
		return fmt.Errorf("expected the bank's refusal, got %v", err)
	}
	_, err = pay.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("150.00", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "91026527436", Currency: "NOK"},
		CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:   payments.AccountReference{BBAN: cu.Accounts[0].BBAN, Currency: "NOK"},
	}, present)
	if err != nil {
		return err
	}
	// A create the bank acts on without answering: in doubt in the journal.
	bank.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: "POST", PathPrefix: "/v1/payments/"})
	_, err = pay.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("99.00", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "91026527436", Currency: "NOK"},
		CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:   payments.AccountReference{BBAN: cu.Accounts[0].BBAN, Currency: "NOK"},
	}, present)
	if !errors.Is(err, client.ErrOutcomeUnknown) {
		return fmt.Errorf("expected an unknown outcome, got %v", err)
	}
	return nil
}
