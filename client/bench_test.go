package client

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/signing"
)

// The benchmarks compare a signed POST through the client with a bare
// net/http baseline doing the same work by hand (issue 2, Measure): same
// 2048-bit key, same body, same headers, same server.

var (
	benchOnce  sync.Once
	benchKey   *rsa.PrivateKey
	benchCreds *signing.Credentials
	benchSrv   *httptest.Server
)

type benchPayment struct {
	InstructedAmount struct {
		Currency string `json:"currency"`
		Amount   string `json:"amount"`
	} `json:"instructedAmount"`
	DebtorAccount   struct{ BBAN string } `json:"debtorAccount"`
	CreditorAccount struct{ BBAN string } `json:"creditorAccount"`
	CreditorName    string                `json:"creditorName"`
	Remittance      string                `json:"remittanceInformationUnstructured"`
}

type benchAnswer struct {
	PaymentID         string `json:"paymentId"`
	TransactionStatus string `json:"transactionStatus"`
	Links             Links  `json:"_links"`
}

func benchSetup(b testing.TB) {
	benchOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		benchKey = k
		benchSrv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			io.WriteString(w, `{"paymentId":"enc!!abc","transactionStatus":"RCVD","_links":{"self":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!abc","verbs":["GET"]}}}`)
		}))
	})
	if benchCreds == nil {
		cert := certFor(b, benchKey, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
		benchCreds = &signing.Credentials{Certificate: cert, Key: benchKey}
	}
}

func benchBody() *benchPayment {
	p := &benchPayment{CreditorName: "Kari Nordmann", Remittance: "Faktura 2026-11"}
	p.InstructedAmount.Currency, p.InstructedAmount.Amount = "NOK", "1250.00"
	p.DebtorAccount.BBAN, p.CreditorAccount.BBAN = "12345678903", "98765432106"
	return p
}

// BenchmarkSignedPOST is one payment create through the SDK with a
// 2048-bit RSA key over loopback; BenchmarkBaselinePOST the same request
// by hand. BenchmarkCreateOverhead compares the two in one run.
func BenchmarkSignedPOST(b *testing.B) {
	benchSetup(b)
	c, err := New(benchSrv.URL+"/api", benchCreds, testDefaults)
	if err != nil {
		b.Fatal(err)
	}
	create := sdkCreate(b, c)
	b.ReportAllocs()
	for b.Loop() {
		if err := create(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselinePOST(b *testing.B) {
	benchSetup(b)
	do := baseline(b, benchKey, &http.Client{Transport: (&Client{}).transport()}, benchSrv.URL+"/api")
	b.ReportAllocs()
	for b.Loop() {
		if err := do(); err != nil {
			b.Fatal(err)
		}
	}
}

// baseline returns one bare net/http signed payment create against
// base+"/v1/payments/norwegian-domestic-credit-transfers" through hc: the
// same body, headers and signature as the SDK sends (TestBaselineIsSameRequest),
// written by hand, with key signing.
func baseline(b testing.TB, key crypto.Signer, hc *http.Client, base string) func() error {
	certB64 := base64.StdEncoding.EncodeToString(benchCreds.Certificate.Raw)
	keyID := signing.KeyID(benchCreds.Certificate)
	url := base + "/v1/payments/norwegian-domestic-credit-transfers"
	body := benchBody()
	ctx := b.Context()
	return func() error {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
		date := time.Now().UTC().Format(http.TimeFormat)
		id := uuid.NewString()
		ss := "date: " + date + "\ndigest: " + digest + "\nx-request-id: " + id + "\npsu-id: " + benchPSU[0][1] + "\ntpp-redirect-uri: " + testRedirectURI
		h := sha256.Sum256([]byte(ss))
		sig, err := key.Sign(rand.Reader, h[:], crypto.SHA256)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
		if err != nil {
			return err
		}
		for _, h := range benchPSU {
			req.Header.Set(h[0], h[1])
		}
		req.Header.Set("TPP-Redirect-URI", testRedirectURI)
		req.Header.Set("X-Request-ID", id)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", "identity")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Digest", digest)
		req.Header.Set("X-Accept-Fix", "amount-as-string")
		req.Header.Set("Date", date)
		req.Header.Set("TPP-Signature-Certificate", certB64)
		req.Header.Set("Signature", `keyId="`+keyID+`",algorithm="rsa-sha256",headers="date digest x-request-id psu-id tpp-redirect-uri",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		rb, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != 201 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		var out benchAnswer
		return json.Unmarshal(rb, &out)
	}
}

// stubTransport answers every request in memory with the bench server's
// create answer, after reading the body, as a transport would.
type stubTransport struct{}

func (stubTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	const answer = `{"paymentId":"enc!!abc","transactionStatus":"RCVD","_links":{"self":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!abc","verbs":["GET"]}}}`
	return &http.Response{StatusCode: 201, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(answer)), ContentLength: int64(len(answer)), Request: r}, nil
}

// BenchmarkPipelineWithoutRSA measures the client's own work around the
// RSA operation (body, ids, Date, Digest, signing string, headers) with a
// signer whose key signs instantly.
func BenchmarkPipelineWithoutRSA(b *testing.B) {
	benchSetup(b)
	c, err := New("https://psd2.bank.example/api", &signing.Credentials{Certificate: benchCreds.Certificate, Key: fastKey{benchKey}}, testDefaults)
	if err != nil {
		b.Fatal(err)
	}
	op := Operation{Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers", Body: benchBody()}
	b.ReportAllocs()
	for b.Loop() {
		p, err := c.prepare(&op, nil)
		if err != nil {
			b.Fatal(err)
		}
		req, err := http.NewRequest(op.Method, p.url, bytes.NewReader(p.body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header = p.header
		if err := c.sign(req, c.now()); err != nil {
			b.Fatal(err)
		}
		if !strings.HasPrefix(req.Header.Get("Signature"), "keyId=") {
			b.Fatal("not signed")
		}
	}
}

// fastKey is an RSA key whose Sign returns a fixed signature at once.
type fastKey struct{ k *rsa.PrivateKey }

func (f fastKey) Public() crypto.PublicKey { return &f.k.PublicKey }
func (f fastKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return make([]byte, 256), nil
}

// BenchmarkSigningWithoutRSA measures exactly the per-request signing work
// of issue 2 without the RSA operation: a fresh X-Request-ID, the Digest of
// the encoded body, the Date, the certificate header, the signing string
// and the Signature header (target: at most 3 µs and 25 allocations).
// JSON encoding, URL resolution and http.Request construction are left out;
// BenchmarkPipelineWithoutRSA includes them.
func BenchmarkSigningWithoutRSA(b *testing.B) {
	benchSetup(b)
	c, err := New("https://psd2.bank.example/api", &signing.Credentials{Certificate: benchCreds.Certificate, Key: fastKey{benchKey}}, testDefaults)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(benchBody())
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example/api/v1/payments/norwegian-domestic-credit-transfers", http.NoBody)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("TPP-Session-ID", "session-1")
	b.ReportAllocs()
	for b.Loop() {
		req.Header.Set("X-Request-ID", uuid.NewString())
		req.Header.Set("Digest", signing.Digest(body))
		if err := c.sign(req, c.now()); err != nil {
			b.Fatal(err)
		}
	}
	if !strings.HasPrefix(req.Header.Get("Signature"), "keyId=") {
		b.Fatal("not signed")
	}
}

// BenchmarkSigningParallel signs full RSA-2048 requests through one
// client from GOMAXPROCS goroutines; run with -cpu 1,2 to compare one
// goroutine's throughput with two.
func BenchmarkSigningParallel(b *testing.B) {
	benchSetup(b)
	c, err := New("https://psd2.bank.example/api", benchCreds, testDefaults)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(benchBody())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example/api/v1/payments/norwegian-domestic-credit-transfers", http.NoBody)
		if err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			req.Header.Set("X-Request-ID", uuid.NewString())
			req.Header.Set("Digest", signing.Digest(body))
			if err := c.sign(req, c.now()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
