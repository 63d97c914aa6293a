package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Exit statuses, the same for every command.
const (
	exitOK      = 0 // done; for verify and probe: nothing wrong
	exitFailed  = 1 // the check ran and found a fault (verify), or the bank refused every rendering (probe)
	exitUsage   = 2 // a command-line mistake
	exitRuntime = 3 // anything else: a file, the network, the bank, the store
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand of psd2.
type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"keyid", "the keyId a certificate gives, in every rendering, and its validity", runKeyID},
		{"sign", "sign a request offline; print its headers and a curl command", runSign},
		{"verify", "check a captured request against docs/interface.md section 5", runVerify},
		{"probe", "send one signed GET per keyId rendering; report which the bank verifies", runProbe},
		{"emulator", "serve the emulator (one bank, or several with -banks)", runEmulator},
		{"sandbox", "reset, seed or list the sandbox's mock data", runSandbox},
		{"journal", "list payments in doubt; resolve them", runJournal},
		{"budget", "an account's counted calls without the PSU and the next allowed time", runBudget},
		{"banks", "list the bank directory", runBanks},
		{"health", "a bank's circuit breaker and unavailability; report prints a period's record", runHealth},
		{"outbox", "list the event outbox's dead letters; retry or discard them", runOutbox},
	}
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	json           bool
}

// usageError is a command-line mistake (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// failedError is a check that ran and found something wrong (exit status 1);
// the command has printed its findings.
type failedError struct{ msg string }

func (e failedError) Error() string { return e.msg }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "psd2: unknown command %q\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	c := commands()[i]
	e := &env{stdout: stdout, stderr: stderr}
	err := c.run(ctx, e, args[1:])
	return exitCode(err, "psd2 "+c.name, stderr)
}

// exitCode reports err on stderr and maps it to an exit status.
func exitCode(err error, prefix string, stderr io.Writer) int {
	var ue usageError
	var fe failedError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		return exitUsage
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	return exitRuntime
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: psd2 <command> [flags]   (psd2 <command> -h for a command's flags)")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --json. Exit status: 0 done, 1 a check found a fault,")
	fmt.Fprintln(w, "2 a command-line mistake, 3 any other error.")
}

// flags starts a command's flag set with --json.
func (e *env) flags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("psd2 "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&e.json, "json", false, "print JSON instead of text")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: psd2 %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; positional arguments are refused unless allowed.
func parse(fs *flag.FlagSet, args []string, positional bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if !positional && fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return nil
}

// emit prints v as indented JSON with --json, else calls text.
func (e *env) emit(v any, text func(w io.Writer)) error {
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	text(e.stdout)
	return nil
}
