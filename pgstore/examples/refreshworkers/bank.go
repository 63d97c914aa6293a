package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// The bank's process: the emulator and, in front of it, a counting front,
// in a process of their own (this program again, with -emulator-process
// N), apart from the scheduler's, the workers' and the baseline's. The
// front serves the emulator's handler over TLS on a loopback port of its
// own (its certificate made in the process) and counts, per phase, the
// requests, the time the emulator took to answer them, the 429 answers
// (the bank's refusals of calls over an account's budget) and, per
// account, the balances it answered (each account's refresh reads its
// balances once): what the bank saw, apart from what the workers say they
// did.
//
// The process prints a line of JSON (bankHello: the front's URL and
// certificate, the TPP's credentials, the seeded customers), then one
// line of JSON (bankCounts) for each line "mark" it reads on its stdin:
// the counts since the previous mark, and the CPU time it spent meanwhile.
// It ends when its stdin does (the scheduler closed it, or died).

// bankHello is the bank process's first line.
type bankHello struct {
	// URL is the front's base URL; CA its certificate (PEM), which the
	// clients trust.
	URL string
	CA  []byte
	// CertPEM and KeyPEM are the TPP's credentials, registered with the
	// emulator.
	CertPEM, KeyPEM []byte
	// Seeded is what the emulator seeded; SeedTook how long it took.
	Seeded   emulator.SeedResult
	SeedTook time.Duration
}

// bankCounts is what the front counted over a phase (from one mark to
// the next).
type bankCounts struct {
	// Requests are the requests the front passed to the emulator, and
	// Handling the time the emulator took over them.
	Requests int
	Handling time.Duration
	// Refused are the answers 429 (ACCESS_EXCEEDED: a call over the
	// account's budget; the example injects no other).
	Refused int
	// Once and More are the accounts whose balances the emulator answered
	// (200) once, and more than once.
	Once, More int
	// CPU is the bank process's CPU time (user and system) over the
	// phase.
	CPU time.Duration
}

// front counts what the emulator's handler answers.
type front struct {
	next http.Handler

	mu       sync.Mutex
	requests int
	handling time.Duration
	refused  int
	balances map[string]int // account id (kept in memory only) -> 200 answers
}

// statusWriter keeps the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeHTTP passes r to the emulator and counts its answer.
func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	start := time.Now()
	f.next.ServeHTTP(sw, r)
	took := time.Since(start)
	id := balancesOf(r.URL.Path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	f.handling += took
	if sw.status == http.StatusTooManyRequests {
		f.refused++
	}
	if id != "" && sw.status == http.StatusOK {
		f.balances[id]++
	}
}

// balancesOf is the account (or card account, prefixed "card/") whose
// balances path is p, or "".
func balancesOf(p string) string {
	for _, prefix := range []string{"/api/v1/accounts/", "/api/v1/card-accounts/"} {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		id, ok := strings.CutSuffix(rest, "/balances")
		if !ok || id == "" || strings.Contains(id, "/") {
			return ""
		}
		if prefix != "/api/v1/accounts/" {
			id = "card/" + id
		}
		return id
	}
	return ""
}

// take returns the counts since the last take and starts new ones.
func (f *front) take() bankCounts {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := bankCounts{Requests: f.requests, Handling: f.handling, Refused: f.refused}
	for _, n := range f.balances {
		if n == 1 {
			c.Once++
		} else {
			c.More++
		}
	}
	f.requests, f.handling, f.refused, f.balances = 0, 0, 0, map[string]int{}
	return c
}

// bankProcess is the bank's process: the emulator seeded with accounts
// accounts (two per customer), behind the counting front; it answers
// each "mark" on in with a line of counts on out, until in ends.
func bankProcess(ctx context.Context, in io.Reader, out io.Writer, accounts int) error {
	if accounts < 1 {
		return fmt.Errorf("-emulator-process %d: at least one account", accounts)
	}
	srv := emulator.NewServer(emulator.WithLimits(refreshbench.Limits))
	defer srv.Close()
	creds, err := srv.NewTPP("Refresh workers example")
	if err != nil {
		return err
	}
	seedStart := time.Now()
	seeded, err := srv.Control().Seed(ctx, creds.Certificate, refreshbench.Seed((accounts+1)/2, 2, 0, 8, time.Now().Add(-2*time.Hour)))
	if err != nil {
		return err
	}
	hello := bankHello{Seeded: seeded, SeedTook: time.Since(seedStart)}
	if hello.CertPEM, hello.KeyPEM, err = credsPEM(creds); err != nil {
		return err
	}
	cert, certPEM, err := frontCertificate()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f := &front{next: srv.Handler(), balances: map[string]int{}}
	hs := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	defer hs.Close()
	hello.URL, hello.CA = "https://"+ln.Addr().String()+"/api", certPEM
	enc := json.NewEncoder(out)
	if err := enc.Encode(hello); err != nil {
		return err
	}
	cpu := refreshbench.ProcessCPU()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if sc.Text() != "mark" {
			return fmt.Errorf("the bank process: %q is not a command (mark)", sc.Text())
		}
		c := f.take()
		now := refreshbench.ProcessCPU()
		c.CPU, cpu = now-cpu, now
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return sc.Err()
}

// frontCertificate makes the front's certificate: self-signed, for
// 127.0.0.1, valid for a day; and its PEM, for the clients' roots.
func frontCertificate() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "refreshworkers bank front"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// bankProc is the scheduler's handle on the bank's process.
type bankProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	dec   *json.Decoder
	hello bankHello
}

// startBank starts the bank's process with accounts accounts and reads
// its first line.
func startBank(ctx context.Context, accounts int) (*bankProc, error) {
	cmd := exec.CommandContext(ctx, os.Args[0], "-emulator-process", strconv.Itoa(accounts))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &bankProc{cmd: cmd, in: in, dec: json.NewDecoder(out)}
	if err := b.dec.Decode(&b.hello); err != nil {
		_, _ = b.close()
		return nil, fmt.Errorf("the bank process's first line: %w", err)
	}
	return b, nil
}

// mark reads the counts of the phase that ends now.
func (b *bankProc) mark() (bankCounts, error) {
	var c bankCounts
	if _, err := io.WriteString(b.in, "mark\n"); err != nil {
		return c, fmt.Errorf("the bank process: %w", err)
	}
	if err := b.dec.Decode(&c); err != nil {
		return c, fmt.Errorf("the bank process's counts: %w", err)
	}
	return c, nil
}

// close ends the bank's process (its stdin closed) and waits for it.
func (b *bankProc) close() (*os.ProcessState, error) {
	_ = b.in.Close()
	err := b.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = fmt.Errorf("the bank process: %w", err)
	}
	return b.cmd.ProcessState, err
}
