package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/tppkit/psd2/client"
)

type probeResult struct {
	Rendering string `json:"rendering"`
	KeyID     string `json:"keyId"`
	Verified  bool   `json:"verified"`
	Status    int    `json:"status,omitempty"`
	Codes     string `json:"codes,omitempty"`
	Error     string `json:"error,omitempty"`
}

// signatureRefusals are the answers that say the bank did not accept the
// signature or its keyId (docs/interface.md section 5.2).
var signatureRefusals = []string{"SIGNATURE_INVALID", "SIGNATURE_MISSING", "CERTIFICATE_INVALID", "CERTIFICATE_BLOCKED", "CERTIFICATE_EXPIRED"}

func runProbe(ctx context.Context, e *env, args []string) error {
	fs := e.flags("probe", "(-bank ID | -url BASE) (-cert cert.pem [-key key.pem] | -p12 tpp.p12) [-path /v1/sandbox/customers]")
	var cf credFlags
	var bf bankFlags
	cf.register(fs, true)
	bf.register(fs, false)
	path := fs.String("path", "/v1/sandbox/customers", "path of the signed GET (below the base URL)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if !strings.HasPrefix(*path, "/") {
		return usagef("-path %q must start with /", *path)
	}
	creds, err := cf.credentials()
	if err != nil {
		return err
	}
	var results []probeResult
	for _, r := range renderings(creds.Certificate) {
		c, err := newClient(&bf, &cf, client.WithKeyID(r.KeyID), client.WithRetryPolicy(client.RetryPolicy{}))
		if err != nil {
			return err
		}
		res := probeResult{Rendering: r.Name, KeyID: r.KeyID}
		resp, err := c.Do(ctx, client.Operation{Name: "psd2.probe", Method: http.MethodGet, Path: *path}, nil)
		var ce *client.Error
		switch {
		case err == nil:
			res.Verified, res.Status = true, resp.StatusCode
		case errors.As(err, &ce):
			res.Status = ce.StatusCode
			var codes []string
			refused := false
			for _, m := range ce.Messages {
				codes = append(codes, m.Code)
				refused = refused || slices.Contains(signatureRefusals, m.Code) ||
					(m.Code == "FORMAT_ERROR" && strings.EqualFold(m.Path, "Signature"))
			}
			res.Codes = strings.Join(codes, ",")
			res.Verified = !refused && ce.StatusCode != http.StatusBadRequest
		default:
			res.Error = oneLine(err.Error())
		}
		results = append(results, res)
	}
	if err := e.emit(results, func(w io.Writer) {
		for _, r := range results {
			verdict := "refused"
			if r.Verified {
				verdict = "VERIFIED"
			} else if r.Error != "" {
				verdict = "error: " + r.Error
			}
			fmt.Fprintf(w, "%-14s %-9s %3d %-20s %s\n", r.Rendering, verdict, r.Status, r.Codes, r.KeyID)
		}
	}); err != nil {
		return err
	}
	ok := slices.ContainsFunc(results, func(r probeResult) bool { return r.Verified })
	allErr := !slices.ContainsFunc(results, func(r probeResult) bool { return r.Error == "" })
	switch {
	case allErr:
		return errors.New("no answer from the bank")
	case !ok:
		return failedError{"the bank verified no rendering"}
	}
	return nil
}
