package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

type emulatorInfo struct {
	URLs    map[string]string `json:"urls"`
	Addr    string            `json:"addr"`
	CA      string            `json:"ca"`
	TPPCert string            `json:"tppCert"`
	TPPKey  string            `json:"tppKey"`
}

// runEmulator serves the emulator on loopback until interrupted: one bank
// (as cmd/psd2-emulator does, with its defaults) or, with -banks, one host
// name per bank id, "<id>.localhost", on one listener.
func runEmulator(ctx context.Context, e *env, args []string) error {
	fs := e.flags("emulator", "[-banks id,id...] [-out DIR] [-tpp NAME]")
	ids := fs.String("banks", "", "comma-separated bank ids to serve at once, each at <id>.localhost (default: one bank at 127.0.0.1)")
	out := fs.String("out", "psd2-emulator", "directory for ca.pem and the generated TPP credentials (tpp-key.pem mode 0600)")
	name := fs.String("tpp", "Local TPP", "name of the TPP certificate to generate")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	info := emulatorInfo{URLs: map[string]string{}}
	var ca *x509.Certificate
	var creds *signing.Credentials
	if *ids == "" {
		s := emulator.NewServer()
		defer s.Close()
		c, err := s.NewTPP(*name)
		if err != nil {
			return err
		}
		ca, creds, info.URLs["emulator"] = s.CACertificate(), c, s.URL
		info.Addr = strings.TrimSuffix(strings.TrimPrefix(s.URL, "https://"), "/api")
	} else {
		var hosts []string
		for _, id := range strings.Split(*ids, ",") {
			hosts = append(hosts, strings.TrimSpace(id)+".localhost")
		}
		m, err := emulator.NewMultiBank(hosts)
		if err != nil {
			return usageError{err}
		}
		defer m.Close()
		c, err := m.NewTPP(*name)
		if err != nil {
			return err
		}
		for _, h := range hosts {
			info.URLs[strings.TrimSuffix(h, ".localhost")] = m.URL(h)
		}
		ca, creds, info.Addr = m.CACertificate(), c, m.Addr()
	}
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return err
	}
	info.CA, info.TPPCert, info.TPPKey = filepath.Join(*out, "ca.pem"), filepath.Join(*out, "tpp-cert.pem"), filepath.Join(*out, "tpp-key.pem")
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		file, typ string
		der       []byte
		mode      os.FileMode
	}{{info.CA, "CERTIFICATE", ca.Raw, 0o644}, {info.TPPCert, "CERTIFICATE", creds.Certificate.Raw, 0o644}, {info.TPPKey, "PRIVATE KEY", key, 0o600}} {
		if err := os.WriteFile(f.file, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der}), f.mode); err != nil {
			return err
		}
		if err := os.Chmod(f.file, f.mode); err != nil {
			return err
		}
	}
	if err := e.emit(info, func(w io.Writer) {
		fmt.Fprintf(w, "psd2 emulator listening on %s\n", info.Addr)
		for id, u := range info.URLs {
			fmt.Fprintf(w, "  %-10s %s\n", id, u)
		}
		fmt.Fprintf(w, "  CA:       %s\n  TPP cert: %s\n  TPP key:  %s\n", info.CA, info.TPPCert, info.TPPKey)
		fmt.Fprintf(w, "  customers: %s, %s (private); %s, %s (corporate)\n",
			emulator.CustomerKari, emulator.CustomerOla, emulator.CustomerFjordlys, emulator.CustomerTestfirma)
		if _, port, err := net.SplitHostPort(info.Addr); err == nil && *ids != "" {
			fmt.Fprintf(w, "  (curl: --resolve <id>.localhost:%s:127.0.0.1 if your curl does not resolve .localhost)\n", port)
		}
	}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
