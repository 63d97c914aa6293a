package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Settings come from, in this order: the command line, PSD2_*
// environment variables, and a named profile of the config file.
const (
	envConfig  = "PSD2_CONFIG"  // the config file, instead of the default location
	envProfile = "PSD2_PROFILE" // the profile, instead of the file's default
	// maxConfig bounds the config file.
	maxConfig = 1 << 20
)

// settingKeys are the settings a profile or a PSD2_* variable may give,
// by their name in a profile; each is a flag of the same name in
// kebab case (banksFile is -banks-file) and the variable PSD2_ and its
// name in upper snake case (PSD2_BANKS_FILE).
var settingKeys = []string{"bank", "url", "env", "banksFile", "ca", "cert", "key", "p12", "passwordEnv", "store", "schema", "storeWait"}

// settingGroups are settings that name one thing together: they come
// from one source, the first (command line, environment, profile) that
// gives any of them, so that a -url on the command line is never mixed
// with a profile's bank, nor a -p12 with a profile's -cert.
var settingGroups = [][]string{{"bank", "url"}, {"cert", "key", "p12"}}

// flagName is the flag of a setting: banksFile is banks-file.
func flagName(key string) string {
	var b strings.Builder
	for _, r := range key {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// envName is the variable of a setting: banksFile is PSD2_BANKS_FILE.
func envName(key string) string {
	return "PSD2_" + strings.ToUpper(strings.ReplaceAll(flagName(key), "-", "_"))
}

// profiled is the flag.Value of a setting a profile or a variable may
// give when the command line does not.
type profiled struct {
	p   *string
	key string
}

func (v *profiled) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return *v.p
}

func (v *profiled) Set(s string) error { *v.p = s; return nil }

// settingVar defines the flag of setting key, which a profile or its
// PSD2_* variable fills when the command line does not give it.
func settingVar(fs *flag.FlagSet, p *string, key, value, usage string) {
	*p = value
	fs.Var(&profiled{p: p, key: key}, flagName(key), fmt.Sprintf("%s ($%s, or the profile's %q)", usage, envName(key), key))
}

// config is the config file: named profiles, and the one used when no
// -profile or $PSD2_PROFILE names another.
type config struct {
	Profile  string             `json:"profile,omitempty"`
	Profiles map[string]profile `json:"profiles"`
}

// profile is one named set of settings: paths, names and the store's
// location, never a secret (a key, a password).
type profile struct {
	Bank        string `json:"bank,omitempty"`
	URL         string `json:"url,omitempty"`
	Env         string `json:"env,omitempty"`
	BanksFile   string `json:"banksFile,omitempty"`
	CA          string `json:"ca,omitempty"`
	Cert        string `json:"cert,omitempty"`
	Key         string `json:"key,omitempty"`
	P12         string `json:"p12,omitempty"`
	PasswordEnv string `json:"passwordEnv,omitempty"`
	Store       string `json:"store,omitempty"`
	Schema      string `json:"schema,omitempty"`
	StoreWait   string `json:"storeWait,omitempty"`
}

// get is the profile's setting key.
func (p profile) get(key string) string {
	return map[string]string{"bank": p.Bank, "url": p.URL, "env": p.Env, "banksFile": p.BanksFile, "ca": p.CA,
		"cert": p.Cert, "key": p.Key, "p12": p.P12, "passwordEnv": p.PasswordEnv, "store": p.Store, "schema": p.Schema, "storeWait": p.StoreWait}[key]
}

// configPath is where the config file is: $PSD2_CONFIG, else psd2/config.json
// in the user's config directory ($XDG_CONFIG_HOME, else ~/.config, on
// Linux). explicit says it was named, so that it must exist.
func configPath() (path string, explicit bool) {
	if p := os.Getenv(envConfig); p != "" {
		return p, true
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, "psd2", "config.json"), false
}

// loadConfig reads the config file; a missing file at the default
// location is no profiles.
func loadConfig() (*config, string, error) {
	path, explicit := configPath()
	if path == "" {
		return &config{}, "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if !explicit && (errors.Is(err, fs.ErrNotExist) || errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")) {
			return &config{}, path, nil
		}
		return nil, path, fmt.Errorf("the config file: %w", err)
	}
	defer f.Close()
	data, tooLarge, err := readAtMost(f, maxConfig)
	if err != nil {
		return nil, path, fmt.Errorf("the config file %s: %w", path, err)
	}
	if tooLarge {
		return nil, path, fmt.Errorf("the config file %s is larger than %d bytes", path, maxConfig)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c config
	if err := dec.Decode(&c); err != nil {
		return nil, path, fmt.Errorf("the config file %s: %w (its form: psd2 profile -h)", path, err)
	}
	if dec.More() {
		return nil, path, fmt.Errorf("the config file %s: more than one JSON value", path)
	}
	for name, p := range c.Profiles {
		if err := p.check(); err != nil {
			return nil, path, fmt.Errorf("the config file %s, profile %q: %w", path, name, err)
		}
	}
	if c.Profile != "" {
		if _, ok := c.Profiles[c.Profile]; !ok {
			return nil, path, fmt.Errorf("the config file %s: its default profile %q is not among its profiles", path, c.Profile)
		}
	}
	return &c, path, nil
}

// pgPassword matches a password in a key=value connection string:
// password, and sslpassword, the passphrase of the client's TLS key
// (sslkey), which libpq and pgx take as well.
var pgPassword = regexp.MustCompile(`(?i)(^|\s)((?:ssl)?password)\s*=\s*('(\\.|[^'])*'|\S*)`)

// pgPasswordParams are the query parameters of a connection URL that hold
// a password (pgPassword).
var pgPasswordParams = []string{"password", "sslpassword"}

// check refuses a profile that holds a secret: a PEM block instead of a
// path, or a store connection string with its password.
func (p profile) check() error {
	for _, key := range settingKeys {
		if strings.Contains(p.get(key), "-----BEGIN") {
			return fmt.Errorf("%q holds a PEM block: a profile names files, never a key or certificate itself", key)
		}
	}
	if hasPassword(p.Store) {
		return errors.New(`"store" holds a password: keep it out of the config file (PGPASSWORD, ~/.pgpass, or $` + envStore + `)`)
	}
	return nil
}

// hasPassword reports whether a connection string holds a password.
func hasPassword(conn string) bool {
	if kindOf(conn) != storePostgres {
		return false
	}
	if u, ok := parsedPgURL(conn); ok {
		_, ok := u.User.Password()
		q := u.Query()
		return ok || slices.ContainsFunc(pgPasswordParams, q.Has)
	}
	if _, rest, ok := pgURLParts(conn); ok {
		userinfo, _, hasAt := cutLast(rest, "@")
		return hasAt && strings.Contains(userinfo, ":") || pgQueryPassword.MatchString(rest)
	}
	return pgPassword.MatchString(conn)
}

// parsedPgURL is conn parsed as a postgres URL, when it parses as one
// whose "@" (if any) ends its user information: "postgres://u:123/4@h"
// parses, as host u, port 123 and path /4@h, and is read as a URL that
// did not parse.
func parsedPgURL(conn string) (*url.URL, bool) {
	u, err := url.Parse(conn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, false
	}
	if _, rest, _ := pgURLParts(conn); u.User == nil && strings.Contains(rest, "@") {
		return nil, false
	}
	return u, true
}

// pgQueryPassword matches a password parameter in the query of a
// connection URL that did not parse.
var pgQueryPassword = regexp.MustCompile(`(?i)([?&](?:ssl)?password)=[^&#]*`)

// pgURLParts splits a postgres:// or postgresql:// connection string,
// in any case, at "://".
func pgURLParts(conn string) (scheme, rest string, ok bool) {
	scheme, rest, ok = strings.Cut(strings.TrimSpace(conn), "://")
	l := strings.ToLower(scheme)
	return scheme, rest, ok && (l == "postgres" || l == "postgresql")
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// redactConn is a connection string without its password, to print.
func redactConn(conn string) string {
	if kindOf(conn) != storePostgres {
		return conn
	}
	if u, ok := parsedPgURL(conn); ok {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q, redacted := u.Query(), false
		for _, k := range pgPasswordParams {
			if q.Has(k) {
				q.Set(k, "xxxxx")
				redacted = true
			}
		}
		if redacted {
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	if scheme, rest, ok := pgURLParts(conn); ok {
		// A URL that does not parse (a password with a "#", "/" or
		// "?" it should have escaped): its user information, up to the
		// last "@", is not printed at all, nor a password parameter.
		if _, host, hasAt := cutLast(rest, "@"); hasAt {
			rest = "xxxxx@" + host
		}
		return scheme + "://" + pgQueryPassword.ReplaceAllString(rest, "${1}=xxxxx")
	}
	return pgPassword.ReplaceAllString(conn, "${1}${2}=xxxxx")
}

// source says where a setting's value came from.
type source struct {
	Value string `json:"value"`
	From  string `json:"from"` // "flag", "$PSD2_...", "profile NAME", "default"
}

// applySettings fills the settings of fs that the command line left
// unset from the environment, then from the profile (-profile,
// $PSD2_PROFILE or the config file's default), and returns where each
// setting of fs came from.
func applySettings(fs *flag.FlagSet, profileName string) (map[string]source, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var keys []string
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(*profiled); ok {
			keys = append(keys, v.key)
		}
	})
	if len(keys) == 0 {
		if profileName != "" {
			return nil, usagef("-profile: this command takes no settings from a profile")
		}
		return nil, nil
	}
	if profileName == "" {
		profileName = os.Getenv(envProfile)
	}
	c, path, err := loadConfig()
	if err != nil {
		return nil, err
	}
	if profileName == "" {
		profileName = c.Profile
	}
	var prof profile
	if profileName != "" {
		p, ok := c.Profiles[profileName]
		if !ok {
			if path == "" {
				return nil, fmt.Errorf("no profile %q: no config file (set %s)", profileName, envConfig)
			}
			return nil, fmt.Errorf("no profile %q in the config file %s", profileName, path)
		}
		prof = p
	}
	type from int
	const (
		fromFlag from = iota
		fromEnv
		fromProfile
		fromDefault
	)
	lookup := func(key string, src from) (string, bool) {
		switch src {
		case fromFlag:
			return "", set[flagName(key)]
		case fromEnv:
			v := os.Getenv(envName(key))
			return v, v != ""
		case fromProfile:
			v := prof.get(key)
			return v, v != ""
		}
		return "", false
	}
	// choose is the source of each setting: for a group, the first
	// source that gives any of its members.
	choose := map[string]from{}
	for _, key := range keys {
		group := []string{key}
		for _, g := range settingGroups {
			if slices.Contains(g, key) {
				group = g
			}
		}
		choose[key] = fromDefault
	sources:
		for _, src := range []from{fromFlag, fromEnv, fromProfile} {
			for _, k := range group {
				if _, ok := lookup(k, src); ok {
					choose[key] = src
					break sources
				}
			}
		}
	}
	out := map[string]source{}
	for _, key := range keys {
		f := fs.Lookup(flagName(key))
		switch src := choose[key]; src {
		case fromFlag:
			if set[f.Name] {
				out[key] = source{f.Value.String(), "flag -" + f.Name}
			} else {
				out[key] = source{f.Value.String(), "default"}
			}
		case fromEnv, fromProfile:
			v, ok := lookup(key, src)
			if !ok {
				out[key] = source{f.Value.String(), "default"}
				continue
			}
			if err := f.Value.Set(v); err != nil {
				return nil, err
			}
			if src == fromEnv {
				out[key] = source{v, "$" + envName(key)}
			} else {
				out[key] = source{v, "profile " + profileName}
			}
		default:
			out[key] = source{f.Value.String(), "default"}
		}
	}
	return out, nil
}

// configForm is the config file's form, for psd2 profile -h and the
// package doc.
const configForm = `{
  "profile": "sandbox",
  "profiles": {
    "sandbox": {"bank": "sor", "env": "sandbox", "cert": "/etc/tpp/qseal.pem", "key": "/etc/tpp/qseal.key",
                "store": "/var/lib/tpp/store"},
    "prod":    {"bank": "sor", "env": "production", "p12": "/etc/tpp/qseal.p12", "passwordEnv": "TPP_P12_PASSWORD",
                "store": "postgres://tpp@db.internal/tpp", "schema": "psd2"}
  }
}`

// profileReport is what psd2 profile prints: where the settings come
// from, never a secret (a password is shown as xxxxx; the PKCS#12
// password only as whether its variable is set).
type profileReport struct {
	Config   string            `json:"config"`
	Profiles []string          `json:"profiles"`
	Default  string            `json:"default,omitempty"`
	Settings map[string]source `json:"settings"`
	// PasswordSet says whether the variable -password-env names is set.
	PasswordSet bool `json:"passwordSet"`
}

func runProfile(_ context.Context, e *env, args []string) error {
	fs := e.flags("profile", "[-profile NAME] [-SETTING VALUE]...\n\n"+
		"Settings come from the command line, else PSD2_* variables, else the profile (-profile, $"+envProfile+",\n"+
		"else the config file's \"profile\"). The config file is $"+envConfig+", else psd2/config.json in the user's\n"+
		"config directory ($XDG_CONFIG_HOME or ~/.config on Linux). Its form (paths and names, never a secret):\n\n"+configForm)
	var cf credFlags
	var bf bankFlags
	var sf storeFlags
	cf.register(fs, true)
	bf.register(fs)
	sf.register(fs)
	settings, err := parseSettings(fs, args, false)
	if err != nil {
		return err
	}
	c, path, err := loadConfig()
	if err != nil {
		return err
	}
	rep := profileReport{Config: path, Profiles: []string{}, Default: c.Profile, Settings: settings}
	for name := range c.Profiles {
		rep.Profiles = append(rep.Profiles, name)
	}
	slices.Sort(rep.Profiles)
	if st, ok := rep.Settings["store"]; ok {
		st.Value = redactConn(st.Value)
		rep.Settings["store"] = st
	}
	// Set, even to "": the empty password of a file exported without
	// one (p12Error names the variable only when it is not set at all).
	_, rep.PasswordSet = os.LookupEnv(cf.passwordEnv)
	return e.emit(rep, func(w io.Writer) {
		exists := "no such file: no profiles"
		if len(rep.Profiles) > 0 {
			exists = fmt.Sprintf("profiles %s", strings.Join(rep.Profiles, ", "))
			if rep.Default != "" {
				exists += "; default " + rep.Default
			}
		} else if _, err := os.Stat(path); err == nil {
			exists = "no profiles"
		}
		fmt.Fprintf(w, "config file   %s (%s)\n", dash(path), exists)
		for _, key := range settingKeys {
			s, ok := rep.Settings[key]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "%-13s %-40s %s\n", flagName(key), dash(s.Value), s.From)
		}
		if cf.p12 != "" {
			state := "not set"
			if rep.PasswordSet {
				state = "set"
			}
			fmt.Fprintf(w, "PKCS#12 password: $%s is %s\n", cf.passwordEnv, state)
		}
	})
}
