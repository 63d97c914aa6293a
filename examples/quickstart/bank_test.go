package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestRunEmulatorMoneyMoved checks what the bank holds after a run: the
// four payments the walk-through approved, each once (the deliberate
// duplicate was refused), the domestic one executed by the batch.
func TestRunEmulatorMoneyMoved(t *testing.T) {
	t.Parallel()
	var s *emulator.Server
	var out bytes.Buffer
	_, err := run(t.Context(), config{hooks: &hooks{emulator: func(e *emulator.Server) { s = e }}}, &out)
	require.NoError(t, err, out.String())
	require.NotNil(t, s)

	ps := s.Control().Payments()
	require.Len(t, ps, 4, "NDCT, SEPA and two basket payments; no duplicate")
	type row struct{ product, status, amount, basket string }
	got := make([]row, len(ps))
	for i, p := range ps {
		inBasket := "no"
		if p.BasketID != "" {
			inBasket = "yes"
		}
		got[i] = row{p.Product, p.Status, p.Amount.String(), inBasket}
		assert.NotEqual(t, p.DebtorAccount, p.CreditorAccount)
	}
	assert.Equal(t, []row{
		{"norwegian-domestic-credit-transfers", "ACSC", "150.00 NOK", "no"},
		{"sepa-credit-transfers", "ACTC", "25.00 EUR", "no"},
		{"norwegian-domestic-credit-transfers", "ACTC", "40.00 NOK", "yes"},
		{"norwegian-domestic-credit-transfers", "ACTC", "60.00 NOK", "yes"},
	}, got)
}

// TestRunLiveModeAgainstEmulator runs the real-bank mode (credentials from
// PEM files, SCA links printed for a person, callbacks caught on the
// redirect URI) with the emulator standing in for the bank and a
// goroutine standing in for the person.
func TestRunLiveModeAgainstEmulator(t *testing.T) {
	t.Parallel()
	s := emulator.NewServer()
	defer s.Close()
	creds, err := s.NewTPP("Live mode TPP")
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "qseal.pem"), filepath.Join(dir, "qseal.key")
	keyDER, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AddCert(s.CACertificate())

	person := &person{t: t, ctx: t.Context(), bank: s}
	cfg := config{
		baseURL:     s.URL,
		certFile:    certFile,
		keyFile:     keyFile,
		redirectURI: "http://" + ln.Addr().String() + "/callback",
		customer:    defaultCustomer,
		scaTimeout:  time.Minute,
		hooks:       &hooks{rootCAs: roots, listener: ln},
	}
	var out bytes.Buffer
	res, err := run(t.Context(), cfg, io.MultiWriter(&out, person))
	person.wg.Wait()
	require.NoError(t, err, out.String())

	assert.Empty(t, res.Failed)
	assert.Equal(t, 1, res.Skipped, "the batch of a real bank is not run on demand")
	assert.Equal(t, 5, person.approved, "consent, NDCT, SEPA, basket, corporate consent")
	assert.Contains(t, out.String(), "open this link in a browser")
	assert.Contains(t, out.String(), "1 skipped\n")
	assert.Equal(t, len(s.Control().Payments()), 4)
}

// TestRunTwiceAgainstOneSandbox runs the real-bank mode twice in a row
// against one sandbox with a CA of its own, trusted with -ca (as psd2
// emulator serves it): both runs pass; the second is not refused as a
// duplicate of the first, whose payments the reset keeps.
func TestRunTwiceAgainstOneSandbox(t *testing.T) {
	t.Parallel()
	s := emulator.NewServer()
	defer s.Close()
	creds, err := s.NewTPP("Twice TPP")
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile, caFile := filepath.Join(dir, "qseal.pem"), filepath.Join(dir, "qseal.key"), filepath.Join(dir, "ca.pem")
	keyDER, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.CACertificate().Raw}), 0o600))

	for run := 1; run <= 2; run++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		cfg, err := parseFlags([]string{"-base-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile,
			"-redirect-uri", "http://" + ln.Addr().String() + "/callback", "-sca-timeout", "1m"}, io.Discard)
		require.NoError(t, err)
		cfg.hooks = &hooks{listener: ln}
		person := &person{t: t, ctx: t.Context(), bank: s}
		var out bytes.Buffer
		res, err := runQuickstart(t, cfg, io.MultiWriter(&out, person))
		person.wg.Wait()
		require.NoError(t, err, "run %d:\n%s", run, out.String())
		assert.Empty(t, res.Failed, "run %d", run)
		assert.Len(t, s.Control().Payments(), 4*run, "run %d: its four payments, none refused as a duplicate", run)
	}
	_, err = parseFlags([]string{"-ca", caFile}, io.Discard)
	assert.ErrorContains(t, err, "need -base-url", "-ca is for a sandbox named with -base-url")
}

// person reads the quickstart's output like the person at the terminal:
// for each printed SCA link it approves at the bank and lets the browser
// follow the redirect to the callback listener.
type person struct {
	t        *testing.T
	ctx      context.Context
	bank     *emulator.Server
	mu       sync.Mutex
	customer string
	approved int
	wg       sync.WaitGroup
}

// Write reads the lines of one write (the quickstart writes whole lines).
func (p *person) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if _, n, ok := strings.Cut(line, "log in as sandbox customer "); ok {
			p.customer = strings.TrimSuffix(n, ":")
		}
		if strings.HasPrefix(line, "https://") && strings.Contains(line, "/tap-sandbox/") {
			p.approved++
			p.wg.Add(1)
			go p.approve(line, p.customer)
		}
	}
	return len(b), nil
}

func (p *person) approve(link, customer string) {
	defer p.wg.Done()
	callback, err := p.bank.Control().Authorize(p.ctx, link, customer)
	if !assert.NoError(p.t, err) {
		return
	}
	req, err := http.NewRequestWithContext(p.ctx, http.MethodGet, callback.String(), nil)
	if !assert.NoError(p.t, err) {
		return
	}
	browser := &http.Client{Timeout: 30 * time.Second}
	resp, err := browser.Do(req)
	if !assert.NoError(p.t, err) {
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(p.t, http.StatusOK, resp.StatusCode)
	assert.Contains(p.t, string(body), "Go back to the terminal")
}

// runQuickstart is run with the test's context.
func runQuickstart(t *testing.T, cfg config, out io.Writer) (*result, error) {
	t.Helper()
	return run(t.Context(), cfg, out)
}

// TestRunFailingStep: when the bank fails a step, the run stops there,
// prints the failure and returns an error naming the step. A payment POST
// answered 503 may have reached the bank: the error says the outcome is
// unknown, and the payment was not sent again.
func TestRunFailingStep(t *testing.T) {
	t.Parallel()
	var s *emulator.Server
	inject := func(e *emulator.Server) {
		s = e
		e.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusServiceUnavailable, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	}
	var out bytes.Buffer
	res, err := run(t.Context(), config{hooks: &hooks{emulator: inject}}, &out)
	require.Error(t, err)
	assert.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), `step "NDCT payment" failed`)
	assert.Equal(t, "NDCT payment", res.Failed)
	last := res.Steps[len(res.Steps)-1]
	assert.Equal(t, "NDCT payment", last.Name)
	assert.False(t, last.OK)
	assert.Equal(t, http.StatusServiceUnavailable, last.Status)
	assert.Contains(t, out.String(), "✗ 503 POST /v1/payments/norwegian-domestic-credit-transfers")
	assert.Contains(t, out.String(), `failed at "NDCT payment"`)
	assert.NotContains(t, out.String(), "SEPA", "no step runs after the failure")
	assert.Empty(t, s.Control().Payments(), "the faulted POST never reached the bank and was not resent")
}
