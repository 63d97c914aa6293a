// Command webapp is a minimal TPP web application: a PSU connects the bank,
// approves the consent at the bank's SCA page, comes back to the TPP's
// redirect URI, and sees the accounts. The redirect URI is served by the
// sca package's handler (sca.Manager.Handler), which checks the callback's
// state and stores the PSU's session.
//
// Without flags it starts the embedded bank sandbox (package
// sandbox/emulator) and the web server on a loopback port, drives itself
// once through the flow with an http.Client (the SCA page is approved with
// the emulator's Authorize as customer 13039319955), prints what each page
// showed, and exits.
//
//	go run ./examples/webapp
//
// With -serve it keeps serving for a person: open the printed address,
// follow "Connect your bank", accept the emulator's self-signed certificate
// and type 13039319955 on its SCA page.
//
//	go run ./examples/webapp -serve [-addr 127.0.0.1:8080]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

func main() {
	fs := flag.NewFlagSet("webapp", flag.ContinueOnError)
	serve := fs.Bool("serve", false, "keep serving for a person instead of driving the flow once")
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

// run starts the bank and the TPP's web server on addr; then it either
// serves until ctx ends (serve) or drives one PSU through the flow.
func run(ctx context.Context, addr string, serve bool, out io.Writer) error {
	bank, c, err := demo.Start("Web app example")
	if err != nil {
		return err
	}
	defer bank.Close()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	// The redirect URI must be https, except on loopback hosts as here.
	flow, err := sca.NewFlow(base + "/callback")
	if err != nil {
		ln.Close()
		return err
	}
	sessions, err := sca.NewManager(flow, store.NewMemoryStore())
	if err != nil {
		ln.Close()
		return err
	}
	ais, err := accounts.New(c)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           newApp(ais, sessions).routes(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()

	if serve {
		fmt.Fprintf(out, "TPP web app on %s/ (bank sandbox at %s)\n", base, bank.URL)
		fmt.Fprintf(out, "at the bank's SCA page, accept its self-signed certificate and type %s\n", emulator.CustomerKari)
		select {
		case <-ctx.Done():
			return nil
		case err := <-served:
			return err
		}
	}
	return drive(ctx, base, bank, out)
}
