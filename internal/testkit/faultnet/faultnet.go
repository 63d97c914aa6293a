// Package faultnet serves an http.Handler (usually the emulator's) behind
// a front that injects network faults a bank, a gateway or a hostile
// network can produce, over HTTP/1.1 or over HTTP/2 with TLS. The HTTP/2
// front speaks the protocol frame by frame (golang.org/x/net/http2), so it
// can answer RST_STREAM and GOAWAY after it handled a request, which Go's
// own server never does. Tests use it to prove that a payment POST is never
// replayed by anything below the SDK's pipeline.
//
// It is test support, internal to the module.
package faultnet

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is what the front does with one request.
type Kind int

// The faults. "Before" faults never call the handler (nothing is created
// at the bank); "after" faults call it, so the bank acts, and then keep
// the answer from the client.
const (
	// Pass hands the request to the handler and returns its answer.
	Pass Kind = iota
	// ResetBefore drops the request unread: HTTP/1.1 closes the
	// connection, HTTP/2 answers RST_STREAM with Fault.Code
	// (REFUSED_STREAM by default).
	ResetBefore
	// ResetAfter handles the request, then drops the answer: HTTP/1.1
	// closes the connection, HTTP/2 answers RST_STREAM with Fault.Code
	// (PROTOCOL_ERROR by default).
	ResetAfter
	// GoAwayAfter handles the request, then (HTTP/2) sends GOAWAY with a
	// last stream id of 0, claiming the request was never processed, and
	// closes the connection. Over HTTP/1.1 it is ResetAfter.
	GoAwayAfter
	// Hang holds the request unhandled until the client gives up.
	Hang
	// Status answers Fault.Status without handling the request, with a
	// Retry-After of Fault.RetryAfter when set.
	Status
	// Truncate handles the request, then sends the answer's status and
	// headers and half its body, and drops the connection (HTTP/2: the
	// stream).
	Truncate
	// Rewrite handles the request, then answers its status with
	// Fault.Body instead of the handler's body.
	Rewrite
)

// Fault is what the front does with one request.
type Fault struct {
	Kind       Kind
	Status     int    // Status
	RetryAfter string // Status
	Body       string // Rewrite
	Code       uint32 // HTTP/2 error code of ResetBefore and ResetAfter; 0 for the default
}

// Decide picks the fault for the n-th request (1-based) the front sees.
type Decide func(r *http.Request, n int) Fault

// Front counts what reached it and what the handler created.
type Front struct {
	URL     string
	handler http.Handler
	decide  Decide
	seen    atomic.Int64 // requests seen
	handled atomic.Int64 // requests handed to the handler
	created atomic.Int64 // POSTs the handler answered 2xx
	hang    chan struct{}
	close   func()
}

// Seen is the number of requests that reached the front.
func (f *Front) Seen() int { return int(f.seen.Load()) }

// Handled is the number of requests handed to the handler.
func (f *Front) Handled() int { return int(f.handled.Load()) }

// Created is the number of POSTs the handler answered with 2xx.
func (f *Front) Created() int { return int(f.created.Load()) }

// Close stops the front and releases hung requests.
func (f *Front) Close() { f.close() }

// handle runs the handler for r and records the answer.
func (f *Front) handle(r *http.Request) *httptest.ResponseRecorder {
	f.handled.Add(1)
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, r)
	if r.Method == http.MethodPost && rec.Code >= 200 && rec.Code <= 299 {
		f.created.Add(1)
	}
	return rec
}

func (f *Front) fault(r *http.Request) Fault {
	n := int(f.seen.Add(1))
	if f.decide == nil {
		return Fault{}
	}
	return f.decide(r, n)
}

// NewHTTP1 serves h over plain HTTP/1.1 on a loopback port.
func NewHTTP1(h http.Handler, decide Decide) *Front {
	f := &Front{handler: h, decide: decide, hang: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(f.serveHTTP1))
	f.URL = srv.URL
	var once sync.Once
	f.close = func() {
		once.Do(func() { close(f.hang) })
		srv.CloseClientConnections()
		srv.Close()
	}
	return f
}

func (f *Front) serveHTTP1(w http.ResponseWriter, r *http.Request) {
	ft := f.fault(r)
	switch ft.Kind {
	case ResetBefore:
		drop(w)
	case ResetAfter, GoAwayAfter:
		readAll(r)
		f.handle(r)
		drop(w)
	case Hang:
		select {
		case <-r.Context().Done():
		case <-f.hang:
		}
	case Status:
		writeStatus(w, ft)
	case Truncate:
		readAll(r)
		rec := f.handle(r)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		body := rec.Body.Bytes()
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", rec.Code, http.StatusText(rec.Code), len(body))
		buf.Write(body[:len(body)/2])
		buf.Flush()
		conn.Close()
	case Rewrite:
		rec := f.handle(r)
		copyHeader(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		io.WriteString(w, ft.Body)
	default:
		rec := f.handle(r)
		copyHeader(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}
}

func readAll(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not a polite close
		}
		conn.Close()
	}
}

func writeStatus(w http.ResponseWriter, ft Fault) {
	code := ft.Status
	if code == 0 {
		code = http.StatusServiceUnavailable
	}
	if ft.RetryAfter != "" {
		w.Header().Set("Retry-After", ft.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	w.WriteHeader(code)
	msg := "SYSTEM_ERROR"
	if code == http.StatusTooManyRequests {
		msg = "ACCESS_EXCEEDED"
	}
	fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":%q,"text":"injected %d"}]}`, msg, code)
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

// Refused returns the address of a loopback port nothing listens on.
func Refused() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	l.Close()
	return addr, nil
}

// UntrustedTLS serves TLS with a certificate no client trusts, so every
// handshake fails before a byte of a request is written. It counts the
// connections that got past the handshake (none should).
func UntrustedTLS() (url string, requests func() int, closeFn func()) {
	var n atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { n.Add(1) }))
	srv.Config.ErrorLog = discardLogger()
	return srv.URL, func() int { return int(n.Load()) }, srv.Close
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "faultnet"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
