package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/signing"
	"software.sslmate.com/src/go-pkcs12"
)

// credFlags are the flags that name the TPP's certificate and key. A
// PKCS#12 password is read from an environment variable, never from the
// command line (where ps and shell history show it).
type credFlags struct {
	cert, key, p12, passwordEnv string
	// own: the flags are the command's own (verify's certificate to
	// check against), never filled from a profile or PSD2_* variables.
	own bool
}

func (c *credFlags) register(fs *flag.FlagSet, needKey bool) {
	str := func(p *string, key, value, usage string) {
		if c.own {
			fs.StringVar(p, flagName(key), value, usage)
			return
		}
		settingVar(fs, p, key, value, usage)
	}
	str(&c.cert, "cert", "", "PEM file of the TPP signing certificate (and its chain)")
	if needKey {
		str(&c.key, "key", "", "PEM file of the RSA private key (default: looked for in -cert)")
	}
	str(&c.p12, "p12", "", "PKCS#12 file holding the certificate"+map[bool]string{true: " and key", false: ""}[needKey]+" (instead of -cert)")
	str(&c.passwordEnv, "passwordEnv", "PSD2_P12_PASSWORD", "name of the environment variable holding the PKCS#12 password")
}

func (c *credFlags) check() error {
	switch {
	case c.cert == "" && c.p12 == "":
		return usagef("give -cert or -p12")
	case c.cert != "" && c.p12 != "":
		return usagef("give -cert or -p12, not both")
	case c.p12 != "" && c.key != "":
		return usagef("give -key with -cert only: the key of -p12 is in its file")
	}
	return nil
}

// p12Error is the error of a PKCS#12 file that did not decode: when the
// variable of its password is not set, it says so.
func (c *credFlags) p12Error(err error) error {
	if _, ok := os.LookupEnv(c.passwordEnv); !ok {
		return fmt.Errorf("%s: %w (the password variable %s is not set: -password-env names it)", c.p12, err, c.passwordEnv)
	}
	return fmt.Errorf("%s: %w", c.p12, err)
}

// certificate reads the certificate only (no key, no validity check), so
// an expired certificate can still be inspected.
func (c *credFlags) certificate() (*x509.Certificate, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.p12 != "" {
		data, err := readBounded(c.p12, maxCredentialFile)
		if err != nil {
			return nil, err
		}
		_, cert, _, err := pkcs12.DecodeChain(data, os.Getenv(c.passwordEnv))
		if err != nil {
			return nil, c.p12Error(err)
		}
		return cert, nil
	}
	data, err := readBounded(c.cert, maxCredentialFile)
	if err != nil {
		return nil, err
	}
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%s: no PEM certificate", c.cert)
		}
		if b.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.cert, err)
			}
			if cert.BasicConstraintsValid && cert.IsCA {
				// The SDK signs with the first certificate (its chain
				// follows): a CA's first is a chain in the other order.
				return nil, fmt.Errorf("%s: the first certificate is a CA's certificate (%s), not the TPP's: put the TPP's certificate first, its chain after it", c.cert, cert.Subject.CommonName)
			}
			return cert, nil
		}
	}
}

// credentials reads certificate and key (checked by the signing package).
func (c *credFlags) credentials() (*signing.Credentials, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.p12 != "" {
		data, err := readBounded(c.p12, maxCredentialFile)
		if err != nil {
			return nil, err
		}
		creds, err := signing.LoadPKCS12(data, os.Getenv(c.passwordEnv))
		if err != nil {
			return nil, c.p12Error(err)
		}
		return creds, nil
	}
	certPEM, err := readBounded(c.cert, maxCredentialFile)
	if err != nil {
		return nil, err
	}
	var keyPEM []byte
	if c.key != "" {
		if keyPEM, err = readBounded(c.key, maxCredentialFile); err != nil {
			return nil, err
		}
	}
	return signing.LoadPEM(certPEM, keyPEM)
}

// bankFlags name the bank a command talks to: a directory id or a base URL.
type bankFlags struct {
	bank, url, env, banksFile, ca string
}

func (b *bankFlags) register(fs *flag.FlagSet) {
	settingVar(fs, &b.bank, "bank", "", "bank id in the directory (psd2 banks)")
	settingVar(fs, &b.url, "url", "", "API base URL (instead of -bank), e.g. the emulator's")
	settingVar(fs, &b.env, "env", string(banks.Sandbox), "with -bank: sandbox or production")
	settingVar(fs, &b.banksFile, "banksFile", "", "JSON file overriding and extending the bank directory")
	settingVar(fs, &b.ca, "ca", "", "PEM file of an extra root CA to trust (the emulator's ca.pem)")
}

func directory(file string) (*banks.Directory, error) {
	if file == "" {
		return banks.Default(), nil
	}
	return banks.Load(file)
}

// baseURL resolves -bank or -url.
func (b *bankFlags) baseURL() (string, error) {
	switch {
	case b.bank != "" && b.url != "":
		return "", usagef("give -bank or -url, not both")
	case b.url != "":
		return b.url, nil
	case b.bank == "":
		return "", usagef("give -bank or -url")
	}
	bk, env, err := b.entry()
	if err != nil {
		return "", err
	}
	return bk.BaseURL(env), nil
}

// entry is the directory's bank of -bank, in -env.
func (b *bankFlags) entry() (banks.Bank, banks.Environment, error) {
	d, err := directory(b.banksFile)
	if err != nil {
		return banks.Bank{}, "", err
	}
	bk, ok := d.Lookup(b.bank)
	if !ok {
		return banks.Bank{}, "", usagef("no bank %q in the directory (psd2 banks lists them)", b.bank)
	}
	env := banks.Environment(b.env)
	if bk.BaseURL(env) == "" {
		return banks.Bank{}, "", usagef("-env %q: want sandbox or production", b.env)
	}
	return bk, env, nil
}

// options are the client options of -ca. A host under
// .localhost (the emulator's banks, RFC 6761) is reached on 127.0.0.1.
func (b *bankFlags) options(base string) ([]client.Option, error) {
	var opts []client.Option
	var pool *x509.CertPool
	if b.ca != "" {
		data, err := readBounded(b.ca, maxCredentialFile)
		if err != nil {
			return nil, err
		}

		pool, err = x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%s: no PEM certificate", b.ca)
		}
	}
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".localhost") {
		var d net.Dialer
		tr := &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				_, port, err := net.SplitHostPort(addr)
				if err != nil {
					return nil, err
				}
				return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
			},
		}
		opts = append(opts, client.WithHTTPClient(&http.Client{Transport: tr}))
	} else if pool != nil {
		opts = append(opts, client.WithRootCAs(pool))
	}
	return opts, nil
}

// newClient makes the SDK client for the bank flags and credentials.
func newClient(b *bankFlags, c *credFlags, extra ...client.Option) (*client.Client, error) {
	base, err := b.baseURL()
	if err != nil {
		return nil, err
	}
	creds, err := c.credentials()
	if err != nil {
		return nil, err
	}
	opts, err := b.options(base)
	if err != nil {
		return nil, err
	}
	opts = append(opts, extra...)
	if b.bank != "" {
		// The directory's client: its scope is the bank's id, whatever
		// its host (banks.Bank.NewClient).
		bk, env, err := b.entry()
		if err != nil {
			return nil, err
		}
		return bk.NewClient(env, creds, opts...)
	}
	return client.New(base, creds, opts...)
}

// oneLine keeps the first line of an error text, for messages that quote
// a bank's answer.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
