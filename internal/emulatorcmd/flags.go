package emulatorcmd

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// UsageError is a command-line mistake (exit status 2 in both commands).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Config holds the emulator's command line.
type Config struct {
	Addr        string
	Public      bool
	Out         string
	TPP         string
	Trust       []string
	KnownIssues *bool // nil: the emulator's default, the bank's sandbox
	Timeouts    emulator.Timeouts
	Limits      emulator.Limits
	// Control is the address of the control API's listener ("" for none);
	// always loopback, whatever -public says.
	Control string
	// Profiles are the -profile settings by bank id ("" for every bank),
	// in emulator.ParseProfile's form.
	Profiles map[string]string
}

// limitFields maps the names -limit takes to the fields of l.
func limitFields(l *emulator.Limits) map[string]*int {
	return map[string]*int{
		"customers":      &l.Customers,
		"accounts":       &l.Accounts,
		"agreements":     &l.Agreements,
		"transactions":   &l.Transactions,
		"payments":       &l.Payments,
		"baskets":        &l.Baskets,
		"authorisations": &l.Authorisations,
		"sessions":       &l.Sessions,
	}
}

// Register defines the emulator's flags on fs (-addr, -public, -out, -tpp,
// -trust, -known-issues, the four timeouts and -limit) and returns the
// Config they fill. Call [Config.Check] after fs.Parse.
func Register(fs *flag.FlagSet) *Config {
	cfg := &Config{}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:0", "listen address (loopback unless -public; port 0 picks a free port)")
	fs.BoolVar(&cfg.Public, "public", false, "allow an -addr that is not loopback (reachable from other machines)")
	fs.StringVar(&cfg.Out, "out", "psd2-emulator", "directory for ca.pem and the generated TPP credentials (mode 0700; a symbolic link or a directory others can write is refused)")
	fs.StringVar(&cfg.TPP, "tpp", "Local TPP", "name of the TPP certificate to generate (ignored with -trust)")
	fs.Func("trust", "PEM file of a TPP signing certificate to trust (repeatable)", func(v string) error {
		cfg.Trust = append(cfg.Trust, v)
		return nil
	})
	fs.BoolFunc("known-issues", "true: behave as the production platform, with all its known issues; false: with none (default: as the bank's sandbox, which has only some)", func(v string) error {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		cfg.KnownIssues = &on
		return nil
	})
	fs.StringVar(&cfg.Control, "control", "", "serve the control API (the scenario and clock controls as JSON, behind a token) on this loopback address, e.g. 127.0.0.1:0")
	fs.Func("profile", "a bank profile, [ID:]settings with settings consent=90|180, create=sca-redirect|start-authorisation, keyid=any|rfc2253|openssl, caps=per-tpp|shared, comma-separated (repeatable; without ID: every bank)", func(v string) error {
		id, settings := "", v
		if i := strings.Index(v, ":"); i >= 0 && !strings.Contains(v[:i], "=") {
			id, settings = strings.TrimSpace(v[:i]), v[i+1:]
		}
		if _, err := emulator.ParseProfile(settings); err != nil {
			return err
		}
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]string{}
		}
		cfg.Profiles[id] = strings.TrimPrefix(cfg.Profiles[id]+","+settings, ",")
		return nil
	})
	d := emulator.DefaultTimeouts
	fs.DurationVar(&cfg.Timeouts.ReadHeader, "read-header-timeout", d.ReadHeader, "close a connection whose TLS handshake and request headers take longer (0: off)")
	fs.DurationVar(&cfg.Timeouts.Read, "read-timeout", d.Read, "close a connection whose request takes longer to read (0: off)")
	fs.DurationVar(&cfg.Timeouts.Write, "write-timeout", d.Write, "give up an answer not written within this time after the request headers (0: off)")
	fs.DurationVar(&cfg.Timeouts.Idle, "idle-timeout", d.Idle, "close a keep-alive connection idle for longer (0: off)")
	fields := limitFields(&cfg.Limits)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	fs.Func("limit", "cap on stored state as name=N (repeatable; names: "+strings.Join(names, ", ")+")", func(v string) error {
		name, num, ok := strings.Cut(v, "=")
		p := fields[strings.ToLower(strings.TrimSpace(name))]
		if !ok || p == nil {
			return fmt.Errorf("want name=N with a name among %s", strings.Join(names, ", "))
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n <= 0 {
			return errors.New("the limit must be a positive integer")
		}
		*p = n
		return nil
	})
	return cfg
}

// Check completes a parsed Config: it refuses an address that is not
// loopback without -public ([CheckAddr]) and turns a timeout of 0 into
// "off". Its errors are [UsageError]s.
func (cfg *Config) Check() error {
	if err := CheckAddr(cfg.Addr, cfg.Public); err != nil {
		return UsageError{err}
	}
	if cfg.Control != "" {
		if err := checkControlAddr(cfg.Control); err != nil {
			return UsageError{err}
		}
	}
	if len(cfg.Trust) == 0 {
		if err := checkTPPName(cfg.TPP); err != nil {
			return UsageError{err}
		}
	}
	for _, t := range []*time.Duration{&cfg.Timeouts.ReadHeader, &cfg.Timeouts.Read, &cfg.Timeouts.Write, &cfg.Timeouts.Idle} {
		if *t <= 0 {
			*t = -1 // off (zero would mean the default to the emulator)
		}
	}
	return nil
}

// maxTPPName is the longest -tpp: X.509's upper bound of a commonName
// (ub-common-name, RFC 5280), which the TPP certificate's subject is.
const maxTPPName = 64

// checkTPPName refuses a -tpp that makes no TPP certificate a bank
// could issue: empty, longer than maxTPPName characters, or holding a
// control character (a line break, an escape sequence).
func checkTPPName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("-tpp: give the TPP certificate's name")
	case utf8.RuneCountInString(name) > maxTPPName:
		return fmt.Errorf("-tpp: %d characters, at most %d (a certificate's commonName)", utf8.RuneCountInString(name), maxTPPName)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("-tpp %q: a control character, a line break or invalid UTF-8 in the name", name)
	}
	return nil
}

// CheckAddr refuses a listen address that is not on the loopback interface
// unless public is set. Loopback means a loopback IP literal or the name
// "localhost"; an empty host (all interfaces) and any other name are not.
func CheckAddr(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if err := checkPort(port); err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if public || isLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("-addr %q is not a loopback address; the emulator is a test bank that trusts certificates it issues itself, "+
		"so it listens on 127.0.0.1, ::1 or localhost only. Pass -public to listen on %q anyway", addr, addr)
}

// checkControlAddr refuses a -control address that is not on the
// loopback interface. Unlike [CheckAddr] it names -control and offers no
// -public: the control API is never served beyond loopback.
func checkControlAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-control %q: %w", addr, err)
	}
	if err := checkPort(port); err != nil {
		return fmt.Errorf("-control %q: %w", addr, err)
	}
	if !isLoopbackHost(host) {
		return fmt.Errorf("-control %q is not a loopback address; the control API is served on 127.0.0.1, ::1 or localhost only (-public does not change that), e.g. -control 127.0.0.1:0", addr)
	}
	return nil
}

// checkPort refuses a port that is no TCP port: a number past 65535 or
// negative, or a name that is no service's (an empty port is 0, a free
// one). The listener refused it only after the -out directory was
// written, as an error of the system rather than of the command line.
func checkPort(port string) error {
	if port == "" {
		return nil
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("the port %q is not a TCP port (0 to 65535; 0 picks a free one)", port)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
