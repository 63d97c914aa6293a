// Command outsider drives a whole scenario against `psd2 emulator
// -control` through HTTP alone, as a test suite in another language
// would: it imports only Go's standard library (not the SDK), signs its
// bank calls itself (draft-cavage rsa-sha256, docs/interface.md section
// 5) and moves the bank with the control API.
//
// Usage:
//
//	outsider -bank URL -ca ca.pem -cert tpp-cert.pem -key tpp-key.pem -control URL -token T
//
// It prints one line per step, "ok <n> <step>" or "FAIL <n> <step>:
// <reason>", and exits 1 at the first failure.
package main

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

const kari = "13039319955" // the emulator's default private customer

type world struct {
	bank, control, token string
	hc                   *http.Client
	cert                 *x509.Certificate
	key                  crypto.Signer
	n                    int
}

func main() {
	w := &world{}
	var caFile, certFile, keyFile string
	flag.StringVar(&w.bank, "bank", "", "the bank's API base URL")
	flag.StringVar(&caFile, "ca", "", "the emulator's CA (PEM)")
	flag.StringVar(&certFile, "cert", "", "the TPP certificate (PEM)")
	flag.StringVar(&keyFile, "key", "", "the TPP key (PKCS #8 PEM)")
	flag.StringVar(&w.control, "control", "", "the control API's URL")
	flag.StringVar(&w.token, "token", "", "the control API's token")
	flag.Parse()
	if err := w.load(caFile, certFile, keyFile); err != nil {
		fmt.Println("FAIL 0 setup:", err)
		os.Exit(1)
	}
	w.run()
}

func (w *world) load(caFile, certFile, keyFile string) error {
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	if !pool.AppendCertsFromPEM(ca) {
		return errors.New("no CA certificate")
	}
	w.hc = &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
	b, err := pemBlock(certFile)
	if err != nil {
		return err
	}
	if w.cert, err = x509.ParseCertificate(b); err != nil {
		return err
	}
	if b, err = pemBlock(keyFile); err != nil {
		return err
	}
	k, err := x509.ParsePKCS8PrivateKey(b)
	if err != nil {
		return err
	}
	var ok bool
	if w.key, ok = k.(crypto.Signer); !ok {
		return errors.New("the key cannot sign")
	}
	return nil
}

func pemBlock(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil {
		return nil, errors.New(file + ": no PEM block")
	}
	return b.Bytes, nil
}

// step runs one step and stops the program at its failure.
func (w *world) step(name string, f func() error) {
	w.n++
	if err := f(); err != nil {
		fmt.Printf("FAIL %d %s: %v\n", w.n, name, err)
		os.Exit(1)
	}
	fmt.Printf("ok %d %s\n", w.n, name)
}

func (w *world) run() {
	var (
		sid, psu, account, redirect string
		consentDays                 float64
	)
	w.step("freeze the bank's clock", func() error {
		_, err := w.ctl("freeze", nil)
		return err
	})
	w.step("consent: POST /v1/bank-offered-consents answers a scaRedirect", func() error {
		sid = newID()
		st, body, err := w.call(http.MethodPost, "/v1/bank-offered-consents", sid, "", nil)
		if err != nil {
			return err
		}
		if st != http.StatusCreated {
			return fmt.Errorf("status %d: %s", st, body)
		}
		redirect, err = scaRedirect(body)
		return err
	})
	w.step("the PSU approves the SCA (control authorize)", func() error {
		out, err := w.ctl("authorize", map[string]any{"scaRedirect": redirect, "customerNumber": kari})
		if err != nil {
			return err
		}
		cb, err := url.Parse(fmt.Sprint(out["callback"]))
		if err != nil {
			return err
		}
		psu = cb.Query().Get("psu-id")
		if psu == "" || cb.Query().Get("tpp-session-id") != sid {
			return fmt.Errorf("callback without the session: %s", cb)
		}
		return nil
	})
	w.step("list the PSU's accounts", func() error {
		st, body, err := w.call(http.MethodGet, "/v1/accounts", sid, psu, map[string]string{"PSU-IP-Address": "192.0.2.10"})
		if err != nil {
			return err
		}
		if st != http.StatusOK {
			return fmt.Errorf("status %d: %s", st, body)
		}
		var list struct {
			Accounts []struct {
				ResourceID string `json:"resourceId"`
			} `json:"accounts"`
		}
		if err := json.Unmarshal(body, &list); err != nil || len(list.Accounts) == 0 {
			return fmt.Errorf("no account: %s", body)
		}
		account = list.Accounts[0].ResourceID
		return nil
	})
	w.step("the consent has 90 days (control consents)", func() error {
		var err error
		consentDays, err = w.daysLeft()
		if err == nil && math.Abs(consentDays-90) > 1e-6 {
			err = fmt.Errorf("%v days left", consentDays)
		}
		return err
	})
	w.step("the bank's clock to day 89 of the consent (control advance)", func() error {
		_, err := w.ctl("advance", map[string]any{"days": 89})
		return err
	})
	w.step("renewal due: one day left, within the SDK's last renewal reminder (1 day)", func() error {
		left, err := w.daysLeft()
		if err == nil && (left > 1+1e-6 || left <= 0) {
			err = fmt.Errorf("%v days left", left)
		}
		return err
	})
	balances := func() (int, []byte, error) {
		return w.call(http.MethodGet, "/v1/accounts/"+url.PathEscape(account)+"/balances", sid, psu, nil)
	}
	w.step("day 89: balances still answer without the PSU", func() error {
		st, body, err := balances()
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("status %d: %s", st, body)
		}
		return err
	})
	w.step("day 91: the consent expired (401 CONSENT_EXPIRED with a scaRedirect)", func() error {
		if _, err := w.ctl("advance", map[string]any{"by": "2d"}); err != nil {
			return err
		}
		st, body, err := balances()
		if err != nil {
			return err
		}
		if st != http.StatusUnauthorized || !bytes.Contains(body, []byte("CONSENT_EXPIRED")) {
			return fmt.Errorf("status %d: %s", st, body)
		}
		_, err = scaRedirect(body)
		return err
	})
	w.step("re-consent: a new consent under a new TPP-Session-ID, approved", func() error {
		sid = newID()
		st, body, err := w.call(http.MethodPost, "/v1/bank-offered-consents", sid, psu, nil)
		if err != nil {
			return err
		}
		if st != http.StatusCreated {
			return fmt.Errorf("status %d: %s", st, body)
		}
		if redirect, err = scaRedirect(body); err != nil {
			return err
		}
		_, err = w.ctl("authorize", map[string]any{"scaRedirect": redirect, "customerNumber": kari})
		return err
	})
	w.step("after re-consent: balances answer, 90 days left", func() error {
		st, body, err := balances()
		if err != nil {
			return err
		}
		if st != http.StatusOK {
			return fmt.Errorf("status %d: %s", st, body)
		}
		left, err := w.daysLeft()
		if err == nil && math.Abs(left-90) > 1e-6 {
			err = fmt.Errorf("%v days left", left)
		}
		return err
	})
	w.step("a 503 outage for a minute (control outage)", func() error {
		if _, err := w.ctl("outage", map[string]any{"kind": "unavailable", "for": "1m"}); err != nil {
			return err
		}
		st, body, err := balances()
		if err == nil && st != http.StatusServiceUnavailable {
			err = fmt.Errorf("status %d: %s", st, body)
		}
		return err
	})
	w.step("59 seconds in: still 503", func() error {
		if _, err := w.ctl("advance", map[string]any{"by": "59s"}); err != nil {
			return err
		}
		st, body, err := balances()
		if err == nil && st != http.StatusServiceUnavailable {
			err = fmt.Errorf("status %d: %s", st, body)
		}
		return err
	})
	w.step("a minute later: the bank answers again", func() error {
		if _, err := w.ctl("advance", map[string]any{"by": "1s"}); err != nil {
			return err
		}
		st, body, err := balances()
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("status %d: %s", st, body)
		}
		return err
	})
	fmt.Printf("passed %d of %d\n", w.n, w.n)
}

// daysLeft reads the consent's days left from the control API.
func (w *world) daysLeft() (float64, error) {
	out, err := w.ctl("consents", map[string]any{"customerNumber": kari})
	if err != nil {
		return 0, err
	}
	list, _ := out["consents"].([]any)
	if len(list) != 1 {
		return 0, fmt.Errorf("%d consents", len(list))
	}
	c, _ := list[0].(map[string]any)
	d, ok := c["daysLeft"].(float64)
	if !ok {
		return 0, errors.New("no daysLeft")
	}
	return d, nil
}

// ctl calls a control.
func (w *world) ctl(name string, args map[string]any) (map[string]any, error) {
	body, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, w.control+"/controls/"+name, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("control %s: %d %s", name, resp.StatusCode, data)
	}
	var out map[string]any
	return out, json.Unmarshal(data, &out)
}

// call makes a signed bank call in the PSU session (sid, psu; psu may be
// empty) with extra headers.
func (w *world) call(method, path, sid, psu string, extra map[string]string) (int, []byte, error) {
	req, err := http.NewRequest(method, w.bank+path, nil)
	if err != nil {
		return 0, nil, err
	}
	h := req.Header
	h.Set("X-Request-ID", newID())
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat)) // the real time: the bank's clock moves, the wire's does not
	h.Set("TPP-Redirect-URI", "https://tpp.example/callback?state="+newID())
	h.Set("TPP-Session-ID", sid)
	if psu != "" {
		h.Set("PSU-ID", psu)
	}
	for k, v := range extra {
		h.Set(k, v)
	}
	h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(w.cert.Raw))
	if err := w.sign(req); err != nil {
		return 0, nil, err
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, data, err
}

// sign sets the Signature header: rsa-sha256 over date, x-request-id,
// psu-id and tpp-redirect-uri as sent, keyId "SN=<serial>,CA=<issuer>",
// wrapped as one RFC 2047 encoded word when not ASCII.
func (w *world) sign(req *http.Request) error {
	var names, lines []string
	for _, n := range []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"} {
		if v := req.Header.Get(n); v != "" {
			names = append(names, n)
			lines = append(lines, n+": "+v)
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	sig, err := w.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return err
	}
	// The issuer as RFC 2253 renders it: the certificate's own sequence
	// of names, last first (pkix.Name.String would reorder them).
	var issuer pkix.RDNSequence
	if _, err := asn1.Unmarshal(w.cert.RawIssuer, &issuer); err != nil {
		return err
	}
	keyID := "SN=" + strings.ToUpper(w.cert.SerialNumber.Text(16)) + ",CA=" + issuer.String()
	v := `keyId="` + keyID + `",algorithm="rsa-sha256",headers="` + strings.Join(names, " ") + `",signature="` + base64.StdEncoding.EncodeToString(sig) + `"`
	for _, r := range v {
		if r > 0x7e {
			v = "=?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
			break
		}
	}
	req.Header.Set("Signature", v)
	return nil
}

// scaRedirect returns _links.scaRedirect.href of a body.
func scaRedirect(body []byte) (string, error) {
	var b struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Links["scaRedirect"].Href == "" {
		return "", fmt.Errorf("no scaRedirect in %s", body)
	}
	return b.Links["scaRedirect"].Href, nil
}

// newID returns a random UUID (version 4).
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
