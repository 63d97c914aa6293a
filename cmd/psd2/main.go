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
	"unicode/utf8"
)

// Exit statuses, the same for every command.
const (
	exitOK      = 0 // done; for verify and probe: nothing wrong
	exitFailed  = 1 // the check ran and found a fault (verify), the bank refused every rendering (probe), the certificate not valid now (keyid), the bank unavailable (health), a settlement contradicted or a payment left in doubt (journal resolve)
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
		{"health", "a bank's circuit breaker and unavailability; report prints a period's record; records lists every record with its ID, forget ID removes one", runHealth},
		{"outbox", "list the event outbox's dead letters; retry or discard them", runOutbox},
		{"reconcile", "a period's payments and whether their money arrived", runReconcile},
		{"profile", "the settings a command takes (flags, PSD2_* variables, the config file's profile)", runProfile},
	}
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	json           bool
	// rawText: the text output is written as it is (psd2 sign, whose
	// output is the raw HTTP request it was given); otherwise every
	// control character in it is escaped (printableWriter).
	rawText bool
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
		fmt.Fprintf(stderr, "%s: %s\n", prefix, printable(words(err)))
		return exitUsage
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "%s: %s\n", prefix, printable(words(err)))
		return exitFailed
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, printable(words(err)))
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

// flags starts a command's flag set with --json and -profile.
func (e *env) flags(name, usage string) *flag.FlagSet {
	fs := e.localFlags(name, usage)
	fs.String("profile", "", "the config file's profile to take settings from ($"+envProfile+"; psd2 profile shows them)")
	return fs
}

// localFlags starts the flag set of a command that takes no settings from
// the environment or the config file (psd2 emulator, whose -profile is a
// bank profile): --json only. Such a command parses with parseLocal.
func (e *env) localFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("psd2 "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&e.json, "json", false, "print JSON instead of text")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: psd2 %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, then fills the settings the command line left
// unset from PSD2_* variables and the profile (applySettings);
// positional arguments are refused unless allowed.
func parse(fs *flag.FlagSet, args []string, positional bool) error {
	_, err := parseSettings(fs, args, positional)
	return err
}

// parseSettings is parse, returning where each setting came from.
func parseSettings(fs *flag.FlagSet, args []string, positional bool) (map[string]source, error) {
	if err := parseLocal(fs, args, positional); err != nil {
		return nil, err
	}
	name := ""
	if f := fs.Lookup("profile"); f != nil {
		name = f.Value.String()
	}
	return applySettings(fs, name)
}

// parseLocal parses args alone, for a flag set of localFlags.
func parseLocal(fs *flag.FlagSet, args []string, positional bool) error {
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
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

// flagsFirst moves the flags of args before its positional arguments,
// so that flags given after them (psd2 journal resolve ID -store DIR) are
// parsed, not read as more arguments; "--" ends the flags. A flag that
// takes a value keeps the argument after it, whatever it looks like.
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	if len(pos) == 0 {
		return flags
	}
	return append(append(flags, "--"), pos...)
}

// emit prints v as indented JSON with --json, else calls text.
func (e *env) emit(v any, text func(w io.Writer)) error {
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	if e.rawText {
		text(e.stdout)
		return nil
	}
	pw := &printableWriter{w: e.stdout}
	text(pw)
	return pw.err
}

// printableWriter writes text output with each control character,
// bidirectional control and invalid byte escaped as printable does,
// line breaks and tabs kept: the text holds what banks answered and
// stores keep (a payment's id and status, a customer's name, an event's
// kind), and an escape sequence among them would drive the operator's
// terminal (hide or rewrite lines, retitle the window). --json has the
// exact values. Each Write is taken as whole text (fmt writes a
// formatted string at once).
type printableWriter struct {
	w   io.Writer
	err error
}

func (p *printableWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if _, p.err = io.WriteString(p.w, printableText(string(b))); p.err != nil {
		return 0, p.err
	}
	return len(b), nil
}

// printableText is printable for text of several lines: its line breaks
// and tabs are kept.
func printableText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unprintable(r) }) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = printable(c)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}
