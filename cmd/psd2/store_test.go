package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// psd2In runs the binary in dir with extra environment variables and
// returns stdout, stderr and the exit status.
func psd2In(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// cleanEnv is the test's environment without PSD2_* variables (the
// store of the test server stays out of a command that is not given it),
// and with a config home of no profiles. PSD2_CLOCK_SHIFT_SECONDS stays:
// under .ci/clockshift the command's clock moves with the test's, which
// makes the certificates it is given.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := strings.HasPrefix(kv, "PSD2_CLOCK_SHIFT_SECONDS=")
		if keep || !strings.HasPrefix(kv, "PSD2_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_CONFIG_HOME="+os.DevNull)
}

// inDoubt makes a payment in doubt in st through the emulator s (the
// bank drops the request before processing it) and returns its
// X-Request-ID.
func inDoubt(t *testing.T, s *emulator.Server, creds *signing.Credentials, st store.Store, opts ...client.Option) string {
	t.Helper()
	// The journal dates the create an hour back: the bank is done with it,
	// so psd2 journal resolve may act on it at once. The store's clock
	// did not move: the in-flight lease it keeps for the create (an entry
	// whose outcome is unknown is in flight on the store's clock too) is
	// removed, as an hour would have it.
	id := inDoubtAt(t, s, creds, st, func() time.Time { return time.Now().Add(-time.Hour) }, opts...)
	require.NoError(t, st.Delete(t.Context(), "journal/flight/"+id))
	return id
}

// inDoubtAt is inDoubt with the journal's clock now.
func inDoubtAt(t *testing.T, s *emulator.Server, creds *signing.Credentials, st store.Store, now func() time.Time, opts ...client.Option) string {
	t.Helper()
	c, err := client.New(s.URL, creds, append([]client.Option{client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI))}, opts...)...)
	require.NoError(t, err)
	sess := testpsu.Login(t, s, c, emulator.CustomerKari)
	clock, err := client.New(s.URL, creds, client.WithClock(now))
	require.NoError(t, err)
	j, err := journal.New(st, journal.WithClient(clock))
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/", Count: 1})
	id := uuid.NewString()
	_, err = svc.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("12.50", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "12345678903", Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount: payments.AccountReference{BBAN: "95312776066", Currency: "NOK"}, RemittanceInformationUnstructured: "Test " + id[:8],
	}, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}), client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	return id
}

// pgURL is the URL form of a key=value pgx connection string.
func pgURL(t *testing.T, conn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(conn)
	require.NoError(t, err)
	q := url.Values{"host": {cfg.Host}, "port": {fmt.Sprint(cfg.Port)}}
	if cfg.TLSConfig == nil {
		q.Set("sslmode", "disable")
	}
	u := url.URL{Scheme: "postgres", Path: "/" + cfg.Database, RawQuery: q.Encode()}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	return u.String()
}

// TestJournalOnEveryStore: psd2 journal list shows the payment in doubt
// from a file store and from pgstore, named by its URL or by a key=value
// connection string.
func TestJournalOnEveryStore(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	fst, err := store.NewFileStore(dir)
	require.NoError(t, err)
	fileID := inDoubt(t, s, creds, fst)

	names := []string{"file"}
	stores := map[string][]string{"file": {"-store", dir}}
	ids := map[string]string{"file": fileID}
	if conn := optionalPostgres(t); conn != "" {
		pst, schema := outboxSchema(t, conn)
		ids["pgstore"] = inDoubt(t, s, creds, pst)
		stores["pgstore"] = []string{"-store", conn, "-schema", schema}
		stores["pgstore URL"] = []string{"-store", pgURL(t, conn), "-schema", schema}
		ids["pgstore URL"] = ids["pgstore"]
		names = append(names, "pgstore", "pgstore URL")
	}
	for _, name := range names {
		args := stores[name]
		if name == "pgstore URL" {
			// Resolved through the key=value form: no longer in doubt,
			// and resolve gives the recorded resolution.
			out, errOut, code := psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "--json"}, args...)...)
			require.Equal(t, exitOK, code, "%s: %s", name, errOut)
			assert.JSONEq(t, "[]", out)
			continue
		}
		out, errOut, code := psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "--json"}, args...)...)
		require.Equal(t, exitOK, code, "%s: %s", name, errOut)
		var list []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &list), name)
		require.Len(t, list, 1, name)
		assert.Equal(t, ids[name], list[0]["requestId"], name)

		// resolve on the same store: the dropped create never arrived,
		// so the resend creates it.
		out, errOut, code = psd2In(t, t.TempDir(), nil, append(append([]string{"journal", "resolve", "--json", "-url", s.URL, "-ca", caFile,
			"-cert", certFile, "-key", keyFile}, args...), ids[name])...)
		require.Equal(t, exitOK, code, "%s: %s", name, errOut)
		assert.Contains(t, out, `"created"`, name)
	}
	if len(names) == 1 {
		t.Log("pgstore not tried: no PostgreSQL server (PSD2_TEST_POSTGRES)")
	}
}

// TestWrongStoresNeverAllClear runs journal list, journal resolve and
// budget on a table of wrong stores: each is refused with exit status 3
// and a message, nothing on stdout, and nothing created. It reports the
// false all-clears (a wrong store read as an empty one): none.
func TestWrongStoresNeverAllClear(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, _ := tppFiles(t)
	base := t.TempDir()
	empty := filepath.Join(base, "empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	foreign := filepath.Join(base, "home")
	require.NoError(t, os.Mkdir(foreign, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, ".bashrc"), []byte("x"), 0o600))
	// A service's file store whose mode was opened up.
	open := filepath.Join(base, "open")
	opened, err := store.NewFileStore(open)
	require.NoError(t, err)
	require.NoError(t, opened.Put(t.Context(), "journal/other", []byte("x"), 0))
	require.NoError(t, os.Chmod(open, 0o755))
	// What mkdir makes (0755), and another application's directory
	// open to others: no store, and named so, not "open to others".
	made := filepath.Join(base, "made")
	require.NoError(t, os.Mkdir(made, 0o700))
	require.NoError(t, os.Chmod(made, 0o755))
	shared := filepath.Join(base, "shared")
	require.NoError(t, os.Mkdir(shared, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(shared, "app.log"), []byte("x"), 0o600))
	require.NoError(t, os.Chmod(shared, 0o777|os.ModeSticky))
	file := filepath.Join(base, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))

	type wrong struct {
		name, store, schema, says string
	}
	cases := []wrong{
		{"mistyped path", "stroe", "", "does not exist"},
		{"mistyped absolute path", filepath.Join(base, "stroe"), "", "does not exist"},
		{"empty directory", empty, "", "is empty"},
		{"a home directory", foreign, "", `holds ".bashrc"`},
		{"a file store open to others", open, "", "open to group or others"},
		{"an empty directory of mode 0755", made, "", "is empty"},
		{"another application's directory open to others", shared, "", `holds "app.log"`},
		{"a file", file, "", "not a directory"},
		{"postgres URL, no server", "postgres://psd2@127.0.0.1:1/nowhere?connect_timeout=5", "", "PostgreSQL of -store"},
		{"key=value, no server", "host=127.0.0.1 port=1 user=psd2 dbname=nowhere connect_timeout=5", "", "PostgreSQL of -store"},
		{"another scheme", "redis://cache.internal:6379/0", "", "redis:// URL, no store of the SDK"},
		{"file URL", "file:///var/lib/tpp/store", "", "file:// URL, no store of the SDK"},
	}
	if conn := optionalPostgres(t); conn != "" {
		cases = append(cases,
			wrong{"a database without pgstore", conn, "psd2_test_none", `no pgstore in schema "psd2_test_none"`},
			wrong{"a database URL without pgstore", pgURL(t, conn), "psd2_test_none", `no pgstore in schema "psd2_test_none"`},
			wrong{"a schema name pgstore refuses", conn, "Not-A-Schema", "not a lower-case identifier"})
	}
	conn := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile}
	commands := map[string][]string{
		"journal list":        {"journal", "list"},
		"journal list --json": {"journal", "list", "--json"},
		"journal resolve":     append([]string{"journal", "resolve"}, conn...),
		"journal settle":      {"journal", "settle", "-by", "ops", "-reason", "checked"},
		"budget":              append([]string{"budget", "-account", "acc-1", "--json"}, conn...),
	}
	falseAllClear, runs := 0, 0
	for _, c := range cases {
		for name, cmd := range commands {
			cwd := t.TempDir()
			args := append(append([]string{}, cmd...), "-store", c.store)
			if c.schema != "" {
				args = append(args, "-schema", c.schema)
			}
			if cmd[1] == "resolve" || cmd[1] == "settle" {
				args = append(args, uuid.NewString())
			}
			out, errOut, code := psd2In(t, cwd, nil, args...)
			runs++
			if code == exitOK {
				falseAllClear++
			}
			assert.Equal(t, exitRuntime, code, "%s, %s: %s", c.name, name, errOut)
			assert.Empty(t, out, "%s, %s: nothing on stdout", c.name, name)
			assert.Contains(t, errOut, c.says, "%s, %s", c.name, name)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "%s, %s: one line: %s", c.name, name, errOut)
			if strings.Contains(c.store, "://") || strings.Contains(c.store, "=") {
				assert.NotContains(t, errOut, c.store, "%s, %s: the connection string is never quoted", c.name, name)
			}
			left, err := os.ReadDir(cwd)
			require.NoError(t, err)
			assert.Empty(t, left, "%s, %s: nothing created in the working directory", c.name, name)
		}
	}
	_, err = os.Stat(filepath.Join(base, "stroe"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the mistyped path was not created")
	t.Logf("wrong stores: %d cases x %d commands = %d runs, %d false all-clears", len(cases), len(commands), runs, falseAllClear)
	assert.Zero(t, falseAllClear)
}
