// Command webapp is an example TPP web site over the SDK (package
// examples/webapp/site): a PSU connects the bank and sees accounts,
// balances and the latest transactions; pays someone with a Norwegian
// domestic payment, validated by the SDK with the errors next to the
// fields, approves it at the bank's SCA page and watches it reach its
// final status; signs several payments with one approval in a basket;
// chooses the company agreement to act under; and gets a clear page when
// SCA is cancelled or fails, or when a callback is replayed or forged.
//
// Without flags it starts the embedded bank sandbox (package
// sandbox/emulator) and the site on a loopback port, drives itself once
// through the account and payment journeys with an http.Client (the SCA
// page is approved with the emulator's Authorize as customer 13039319955),
// prints what each page showed, and exits.
//
//	go run ./examples/webapp
//
// With -serve it keeps serving for a person: open the printed address,
// accept the bank sandbox's self-signed certificate at its SCA page, and
// type a sandbox customer number there (13039319955 private,
// 18129215603 corporate with two agreements).
//
//	go run ./examples/webapp -serve [-addr 127.0.0.1:8080]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/tppkit/psd2/examples/webapp/site"
	"github.com/tppkit/psd2/sandbox/emulator"
)

func main() {
	fs := flag.NewFlagSet("webapp", flag.ContinueOnError)
	serve := fs.Bool("serve", false, "keep serving for a person instead of driving the journeys once")
	addr := fs.String("addr", "127.0.0.1:0", "listen address of the web server (loopback)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr, *serve, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webapp:", err)
		os.Exit(1)
	}
}

// run starts the bank and the site on addr; then it either serves until
// ctx ends (serve) or drives one PSU through the journeys.
func run(ctx context.Context, addr string, serve bool, out io.Writer) error {
	opts := site.SandboxOptions{Addr: addr, BatchEvery: 200 * time.Millisecond, WaitTimeout: 5 * time.Second,
		PollMin: 50 * time.Millisecond, PollMax: 200 * time.Millisecond}
	if serve {
		// A person sees the status page wait for the bank's next batch
		// and reload itself.
		opts = site.SandboxOptions{Addr: addr, BatchEvery: 5 * time.Second, WaitTimeout: 2 * time.Second,
			Refresh: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	}
	sb, err := site.StartSandbox(opts)
	if err != nil {
		return err
	}
	defer sb.Close()
	if serve {
		fmt.Fprintf(out, "TPP web app on %s/ (bank sandbox at %s)\n", sb.URL, sb.Bank.URL)
		fmt.Fprintf(out, "at the bank's SCA page, accept its self-signed certificate and type %s (private) or %s (corporate)\n",
			emulator.CustomerKari, emulator.CustomerFjordlys)
		return sb.Wait(ctx)
	}
	return drive(ctx, sb, out)
}
