package main

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
	"software.sslmate.com/src/go-pkcs12"
)

// bin is the psd2 binary the tests run, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "psd2-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "psd2")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// psd2 runs the binary and returns stdout, stderr and the exit status.
func psd2(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = cleanEnv()
	return runCmd(t, cmd)
}

// runCmd runs cmd, a psd2 command, and returns stdout, stderr and the
// exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// tppFiles starts an emulator and writes its TPP's certificate, key and CA
// as PEM files.
func tppFiles(t *testing.T) (s *emulator.Server, creds *signing.Credentials, certFile, keyFile, caFile string) {
	t.Helper()
	s = emulator.NewServer()
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("CLI TPP")
	require.NoError(t, err)
	dir := t.TempDir()
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	certFile, keyFile, caFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600))
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.CACertificate().Raw}), 0o600))
	return s, creds, certFile, keyFile, caFile
}

// noSecret fails when out holds the private key.
func noSecret(t *testing.T, keyFile, out string) {
	t.Helper()
	key, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	b, _ := pem.Decode(key)
	require.NotNil(t, b)
	assert.NotContains(t, out, "PRIVATE KEY")
	assert.NotContains(t, out, strings.Split(string(key), "\n")[1], "a line of the key")
}

func TestUsageAndExitCodes(t *testing.T) {
	t.Parallel()
	_, errOut, code := psd2(t)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "verify")
	_, _, code = psd2(t, "-h")
	assert.Equal(t, exitOK, code)
	_, _, code = psd2(t, "nosuch")
	assert.Equal(t, exitUsage, code)
	for _, c := range commands() {
		_, errOut, code := psd2(t, c.name, "-h")
		assert.Equal(t, exitOK, code, c.name)
		assert.Contains(t, errOut, "psd2 "+c.name, c.name)
	}
	_, _, code = psd2(t, "keyid", "-nosuchflag")
	assert.Equal(t, exitUsage, code)
	_, _, code = psd2(t, "keyid", "-cert", filepath.Join(t.TempDir(), "missing.pem"))
	assert.Equal(t, exitRuntime, code)
}

func TestBanks(t *testing.T) {
	t.Parallel()
	out, _, code := psd2(t, "banks", "--json")
	require.Equal(t, exitOK, code)
	var list []struct{ ID, Production string }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Len(t, list, 44)
	out, _, code = psd2(t, "banks", "-id", "sor")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "https://openbanking.sor.no/api")
	assert.Contains(t, out, "Q4 2026")
	_, _, code = psd2(t, "banks", "-id", "nosuch")
	assert.Equal(t, exitUsage, code)
}

func TestKeyIDAndSignRoundTrip(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	out, _, code := psd2(t, "keyid", "-cert", certFile, "--json")
	require.Equal(t, exitOK, code)
	var rep keyIDReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, signing.KeyID(creds.Certificate), rep.KeyID)
	assert.True(t, rep.ValidNow)
	assert.Equal(t, "sdk", rep.Renderings[0].Name)
	assert.Equal(t, signing.KeyIDOpenSSL(creds.Certificate), rep.Renderings[1].KeyID)

	out, errOut, code := psd2(t, "sign", "-cert", certFile, "-key", keyFile, "-X", "POST",
		"-url", s.URL+"/v1/payments/norwegian-domestic-credit-transfers", "-d", `{"a":1}`, "-H", "PSU-ID: 6f1c3c1e-1111-4aaa-8bbb-123456789abc", "--json")
	require.Equal(t, exitOK, code, errOut)
	noSecret(t, keyFile, out+errOut)
	var sr signedRequest
	require.NoError(t, json.Unmarshal([]byte(out), &sr))
	assert.Contains(t, sr.Curl, " -X POST ")

	// What sign printed, captured as a raw request, passes verify.
	var raw strings.Builder
	fmt.Fprintf(&raw, "%s /api/v1/payments/norwegian-domestic-credit-transfers HTTP/1.1\nHost: x\n", sr.Method)
	for _, h := range sr.Headers {
		fmt.Fprintf(&raw, "%s: %s\n", h[0], h[1])
	}
	fmt.Fprintf(&raw, "\n%s\n", sr.Body)
	f := filepath.Join(t.TempDir(), "req.http")
	require.NoError(t, os.WriteFile(f, []byte(raw.String()), 0o600))
	out, errOut, code = psd2(t, "verify", f)
	assert.Equal(t, exitOK, code, out+errOut)
	_ = caFile
}

func TestSandboxAgainstEmulator(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	seed := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(seed, []byte(`[{"customerNumber":"01017012345","customerType":"PRIVATE","customerName":"Ny Kunde"}]`), 0o600))
	_, errOut, code := psd2(t, append(append([]string{"sandbox", "seed"}, conn...), seed)...)
	require.Equal(t, exitOK, code, errOut)
	out, _, code := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
	require.Equal(t, exitOK, code)
	assert.Equal(t, 5, strings.Count(out, `"customerNumber"`))
	_, _, code = psd2(t, append([]string{"sandbox", "reset"}, conn...)...)
	require.Equal(t, exitOK, code)
	out, _, _ = psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
	assert.Equal(t, 4, strings.Count(out, `"customerNumber"`))
	_, _, code = psd2(t, "sandbox", "explode")
	assert.Equal(t, exitUsage, code)
}

func TestBudgetCountsCalls(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, s, ais, emulator.CustomerKari)
	list, err := ais.List(ctx, nil, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
	require.NoError(t, err)
	account := list[0].ResourceID
	for range 4 { // the whole budget, without the PSU
		_, err := ais.Balances(ctx, account, sess.RequestOptions(nil))
		require.NoError(t, err)
	}

	out, errOut, code := psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account, "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, out, account, "the account id is not printed")
	var rep []budgetReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, budget.Balances, rep[0].Endpoint)
	assert.Equal(t, 4, rep[0].Counted)
	assert.Equal(t, 0, rep[0].Remaining)
	require.NotNil(t, rep[0].NextAt)
	assert.True(t, rep[0].NextAt.After(time.Now().Add(23*time.Hour)), "the next call only after the window")
	assert.False(t, rep[0].AllowedNow)
	assert.Equal(t, 0, rep[1].Counted, "transactions are counted apart")
	text, _, _ := psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account)
	assert.Contains(t, text, "4 of 4 counted in 24h0m0s; next call allowed: "+rep[0].NextAt.Format(time.RFC3339))

	// Another account id of this bank (a typo), and this account at
	// another bank: refused, never "every call left".
	out, errOut, code = psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account+"x", "--json")
	assert.Equal(t, exitRuntime, code, out)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no budget of that account")
	other := emulator.NewServer()
	t.Cleanup(other.Close)
	out, errOut, code = psd2(t, "budget", "-url", other.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account, "--json")
	assert.Equal(t, exitRuntime, code, out)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no budget of bank")
	assert.NotContains(t, errOut, account)

	// One call counted: the text says "now", and so does the JSON.
	_, err = ais.Transactions(ctx, account, nil, sess.RequestOptions(nil))
	require.NoError(t, err)
	out, errOut, code = psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account, "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, budget.Transactions, rep[1].Endpoint)
	assert.Equal(t, 1, rep[1].Counted)
	assert.True(t, rep[1].AllowedNow)
	assert.Nil(t, rep[1].NextAt, "no next time when a call is allowed now")
	text, _, _ = psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir, "-account", account)
	assert.Contains(t, text, "1 of 4 counted in 24h0m0s; next call allowed: now")
}

func TestBudgetAndJournalWithEmptyStore(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, _ := tppFiles(t)
	st := filepath.Join(t.TempDir(), "store")
	fst, err := store.NewFileStore(st)
	require.NoError(t, err)
	require.NoError(t, fst.Put(t.Context(), "sca/session/other", []byte("{}"), 0)) // a store some service wrote
	// A store without any budget of the bank: not "4 of 4 left", a refusal
	// that names what may be wrong.
	out, errOut, code := psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", st, "-account", "acc-secret-1", "--json")
	assert.Equal(t, exitRuntime, code, out)
	assert.Empty(t, out, "nothing on stdout")
	assert.Contains(t, errOut, "no budget of bank")
	assert.NotContains(t, errOut+out, "acc-secret-1")
	out, errOut, code = psd2(t, "journal", "list", "-store", st, "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.JSONEq(t, "[]", out)
	// Nothing in doubt, and no journal at all: said, not read as an
	// all-clear (the store may be another service's).
	assert.Contains(t, errOut, "no journal entry at all")
	out, errOut, code = psd2(t, "journal", "list", "-store", st)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 payment(s) in doubt")
	assert.Contains(t, errOut, "no journal entry at all")
	_, _, code = psd2(t, "budget", "-url", s.URL, "-cert", certFile, "-key", keyFile, "-account", "x")
	assert.Equal(t, exitUsage, code, "no -store")
}

func TestJournalListAndSettleByPerson(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, _, _, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	sess := testpsu.Login(t, s, c, emulator.CustomerKari)
	j, err := journal.New(st)
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err = svc.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("12.00", "NOK"), CreditorName: "Ola Eksempel",
		CreditorAccount: payments.AccountReference{BBAN: "12345678903", Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount: payments.AccountReference{BBAN: "95312776066", Currency: "NOK"}, RemittanceInformationUnstructured: "Test",
	}, sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}), client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)

	out, errOut, code := psd2(t, "journal", "list", "-store", dir, "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id)
	assert.NotContains(t, out, sess.PSUID, "no PSU id in the listing")
	assert.NotContains(t, out, sess.TPPSessionID)

	_, _, code = psd2(t, "journal", "settle", "-store", dir, "-by", "ops-anna", id)
	assert.Equal(t, exitUsage, code, "no -reason")
	// The bank may still be working on the payment: a person who asks it
	// now may hear of none that it records a moment later.
	_, errOut, code = psd2(t, "journal", "settle", "-store", dir, "-by", "ops-anna", "-reason", "bank says no payment", id)
	assert.NotEqual(t, exitOK, code, "settled while the bank may still work on the payment")
	assert.Contains(t, errOut, "may still be on its way")
	out, errOut, code = psd2(t, "journal", "settle", "-store", dir, "-writers-stopped", "-by", "ops-anna", "-reason", "bank says no payment", "--json", id)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "settled-by-person")
	out, errOut, code = psd2(t, "journal", "list", "-store", dir, "--json")
	require.Equal(t, exitOK, code)
	assert.JSONEq(t, "[]", out)
	assert.NotContains(t, errOut, "no journal entry at all", "the store holds a settled entry")
	_, _, code = psd2(t, "journal", "settle", "-store", dir, "-by", "ops-anna", "-reason", "again", id)
	assert.Equal(t, exitRuntime, code, "not in doubt any more")
}

func TestKeyIDFromPKCS12(t *testing.T) {
	t.Parallel()
	_, creds, _, keyFile, _ := tppFiles(t)
	der, err := pkcs12.Modern.Encode(creds.Key, creds.Certificate, nil, "s3cret-pw")
	require.NoError(t, err)
	f := filepath.Join(t.TempDir(), "tpp.p12")
	require.NoError(t, os.WriteFile(f, der, 0o600))

	cmd := exec.CommandContext(t.Context(), bin, "keyid", "-p12", f, "-password-env", "TEST_P12_PW", "--json")
	cmd.Env = append(os.Environ(), "TEST_P12_PW=s3cret-pw")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), strings.ReplaceAll(signing.KeyID(creds.Certificate), `\`, `\\`))
	assert.NotContains(t, string(out), "s3cret-pw")
	noSecret(t, keyFile, string(out))

	// A wrong password is a runtime error (3), and the password is not echoed.
	cmd = exec.CommandContext(t.Context(), bin, "keyid", "-p12", f, "-password-env", "TEST_P12_PW")
	cmd.Env = append(os.Environ(), "TEST_P12_PW=wrong-pw")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitRuntime, ee.ExitCode())
	assert.NotContains(t, errb.String(), "wrong-pw")

	// sign takes the same file.
	cmd = exec.CommandContext(t.Context(), bin, "sign", "-p12", f, "-password-env", "TEST_P12_PW", "-url", "https://psd2.bank.example/api/v1/accounts")
	cmd.Env = append(os.Environ(), "TEST_P12_PW=s3cret-pw")
	out, err = cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "Signature: ")
}
