// Command corporate reads a corporate customer's accounts. A corporate PSU
// acts under an agreement; after SCA every call carries PSU-ID and
// PSU-Corporate-ID (docs/interface.md section 5.10), and consent is per agreement:
// choosing another agreement starts a new SCA.
//
// It runs against the embedded bank sandbox (package sandbox/emulator),
// where the corporate sandbox customer 18129215603 approves in-process.
//
//	go run ./examples/corporate
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// main runs the example against the sandbox and prints each step.
func main() {
	demo.Main("corporate", run)
}

// present is the PSU's request data while the PSU is at the TPP's site
// (192.0.2.10 is a documentation address).
var present = &client.PSU{IPAddress: "192.0.2.10"}

func run(ctx context.Context, out io.Writer) error {
	// The bank: an in-process sandbox, and a client for a throwaway TPP it
	// trusts.
	bank, c, err := demo.Start("Corporate example")
	if err != nil {
		return err
	}
	defer bank.Close()
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}
	flow, err := sca.NewFlow(demo.RedirectURI)
	if err != nil {
		return err
	}

	// 1. Consent: the corporate PSU logs in and picks an agreement at the
	// bank (here: the first one). The callback brings psu-corporate-id.
	pending, scaOpts, err := flow.Start("company-7")
	if err != nil {
		return err
	}
	consent, err := ais.StartConsent(ctx, scaOpts)
	if err != nil {
		return err
	}
	callback, err := bank.Control().AuthorizeCorporate(ctx, consent.SCARedirect(), emulator.CustomerFjordlys, "")
	if err != nil {
		return err
	}
	session, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "SCA complete in %s context, PSU-Corporate-ID set: %t\n", session.Context, session.PSUCorporateID != "")

	opts := func(s *sca.Session) client.RequestOption {
		return s.RequestOptions(present)
	}

	// 2. The agreements the PSU may act under (GET /v1/agreements).
	agreements, err := ais.Agreements(ctx, opts(session))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d agreements:\n", len(agreements))
	for _, a := range agreements {
		fmt.Fprintf(out, "  %s\n", a.Name)
	}
	if err := printAccounts(ctx, out, ais, opts(session)); err != nil {
		return err
	}
	if len(agreements) < 2 {
		return nil
	}

	// 3. Switch to another agreement: its accounts need their own consent,
	// so the bank answers 401 with a scaRedirect. The call carries a new
	// pending SCA inside the same TPP-Session-ID (sca.Renew), so that the
	// PSU's approval comes back to it.
	other := agreements[len(agreements)-1]
	switched, err := session.WithCorporate(other.ID)
	if err != nil {
		return err
	}
	pending, scaOpts, err = flow.Start("company-7", sca.Renew(switched))
	if err != nil {
		return err
	}
	_, err = ais.List(ctx, nil, client.Combine(switched.RequestOptions(present), scaOpts))
	link, ok := client.SCARedirect(err)
	if !ok {
		return fmt.Errorf("expected the bank to ask for SCA for %q, got %v", other.Name, err)
	}
	fmt.Fprintf(out, "\nswitching to %q: the bank asks for SCA (%v)\n", other.Name, errors.Is(err, client.ErrSCARequired))
	callback, err = bank.Control().AuthorizeCorporate(ctx, link, emulator.CustomerFjordlys, other.ID)
	if err != nil {
		return err
	}
	session, err = flow.ParseCallback(pending, callback.String())
	if err != nil {
		return err
	}
	return printAccounts(ctx, out, ais, opts(session))
}

func printAccounts(ctx context.Context, out io.Writer, ais *accounts.Service, opts client.RequestOption) error {
	list, err := ais.List(ctx, nil, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d accounts under the agreement:\n", len(list))
	for _, a := range list {
		fmt.Fprintf(out, "  %-20s %s %s\n", a.Name, a.BBAN, a.Currency)
	}
	return nil
}
