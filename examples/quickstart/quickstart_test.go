package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunEmulator runs the whole walk-through against the embedded
// emulator, exactly as `go run ./examples/quickstart` does, and checks that
// every step ran and passed.
func TestRunEmulator(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	res, err := run(t.Context(), config{}, &out)
	require.NoError(t, err, out.String())
	require.NotNil(t, res)

	assert.Empty(t, res.Failed)
	assert.Zero(t, res.Skipped)
	assert.Equal(t, len(res.Steps), res.Passed)
	names := make([]string, 0, len(res.Steps))
	for _, s := range res.Steps {
		assert.True(t, s.OK, "step %q: %s", s.Name, s.Detail)
		names = append(names, s.Name)
	}
	assert.Equal(t, wantSteps, names)

	byName := map[string]stepResult{}
	for _, s := range res.Steps {
		byName[s.Name] = s
	}
	assert.Equal(t, 200, byName["sandbox reset"].Status)
	assert.Equal(t, 201, byName["AIS consent"].Status)
	assert.Equal(t, 200, byName["accounts"].Status)
	assert.Equal(t, 200, byName["corporate accounts"].Status)
	assert.Contains(t, byName["corporate accounts"].Detail, "PSU-Corporate-ID")
	assert.Contains(t, byName["transactions"].Detail, "through the iterator")
	assert.Equal(t, 201, byName["NDCT payment"].Status)
	assert.Contains(t, byName["batch and final status"].Detail, "ACSC, final")
	assert.Equal(t, 201, byName["SEPA payment"].Status)
	assert.Equal(t, 201, byName["signing basket"].Status)
	assert.Contains(t, byName["basket status"].Detail, "basket ACTC; its payments ACTC, ACTC")
	assert.Zero(t, byName["validation error"].Status, "nothing was sent")
	assert.Contains(t, byName["validation error"].Detail, "*client.ValidationError creditorAccount.bban")
	assert.Equal(t, 400, byName["bank error"].Status)
	assert.Contains(t, byName["bank error"].Detail, "PAYMENT_FAILED")
	// The NDCT and SEPA payments, the basket's two and the basket itself
	// were journaled as created, the duplicate as refused; the invalid
	// payment was refused before the journal.
	assert.Contains(t, byName["journal"].Detail, "6 create(s) recorded: 5 created, 1 refused by the bank; none in doubt")

	text := out.String()
	assert.Equal(t, len(res.Steps)+1, strings.Count(text, "\n"), "one line per step and a summary")
	assert.Contains(t, text, "steps, all passed\n")
	assert.NotContains(t, text, defaultCustomer, "the customer number is masked")
	assert.NotContains(t, text, "psu-id")
	assert.NotContains(t, text, "✗")
}

// TestRunOutputHasNoSessionIDs checks that no PSU-ID or TPP-Session-ID of
// the run reaches the output.
func TestRunOutputHasNoSessionIDs(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	_, err := run(t.Context(), config{}, &out)
	require.NoError(t, err, out.String())
	// Session ids are UUIDs: 8-4-4-4-12 hex digits.
	assert.NotRegexp(t, `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, out.String())
}

func TestReporterStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := newReporter(&out)
	require.NoError(t, r.step("one", func() (string, error) { return "fine", nil }))
	boom := errors.New("boom")
	err := r.step("two", func() (string, error) { return "", boom })
	require.ErrorIs(t, err, boom)
	ran := false
	err = r.step("three", func() (string, error) { ran = true; return "", nil })
	require.ErrorIs(t, err, boom)
	assert.False(t, ran, "a step after a failure does not run")

	err = r.summary()
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `"two"`)
	assert.Equal(t, "two", r.res.Failed)
	assert.Equal(t, 1, r.res.Passed)
	assert.Contains(t, out.String(), "✗ ---")
	assert.Contains(t, out.String(), `2 steps, 1 passed, failed at "two"`)
}

func TestReporterSkipped(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := newReporter(&out)
	require.NoError(t, r.step("batch", func() (string, error) { return "the bank runs it", errSkipped }))
	require.NoError(t, r.summary())
	assert.Equal(t, 1, r.res.Skipped)
	assert.Contains(t, out.String(), "– ---")
	assert.Contains(t, out.String(), "1 steps, 0 passed, 1 skipped")
}

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/v1/bank-offered-consents", "/v1/bank-offered-consents"},
		{"/v1/payments/norwegian-domestic-credit-transfers", "/v1/payments/norwegian-domestic-credit-transfers"},
		{"/v1/accounts/enc!!gaIRabcdefghijklmnop=/balances", "/v1/accounts/enc!!gaIR…/balances"},
		{"/v1/accounts/enc%21%21gaIRabcdefghijklmnop=/balances", "/v1/accounts/enc!!gaIR…/balances"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, maskPath(tt.in))
		})
	}
	assert.Equal(t, "1303••••955", maskCustomer("13039319955"))
	assert.Equal(t, "•••", maskCustomer("123"))
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr string
	}{
		{name: "none", args: nil, want: config{customer: defaultCustomer, scaTimeout: 5 * time.Minute}},
		{name: "pem", args: []string{"-base-url", "https://bank.example/api", "-cert", "c.pem", "-key", "k.pem", "-redirect-uri", "http://localhost:8765/cb"},
			want: config{baseURL: "https://bank.example/api", certFile: "c.pem", keyFile: "k.pem", redirectURI: "http://localhost:8765/cb", customer: defaultCustomer, scaTimeout: 5 * time.Minute}},
		{name: "p12", args: []string{"-base-url", "https://bank.example/api", "-p12", "q.p12", "-p12-password", "pw", "-redirect-uri", "http://localhost:8765/cb", "-sca-timeout", "1m"},
			want: config{baseURL: "https://bank.example/api", p12File: "q.p12", p12Password: "pw", redirectURI: "http://localhost:8765/cb", customer: defaultCustomer, scaTimeout: time.Minute}},
		{name: "no redirect", args: []string{"-base-url", "https://bank.example/api", "-p12", "q.p12"}, wantErr: "-redirect-uri"},
		{name: "no key", args: []string{"-base-url", "https://bank.example/api", "-cert", "c.pem", "-redirect-uri", "http://localhost/cb"}, wantErr: "-cert and -key"},
		{name: "cert without bank", args: []string{"-cert", "c.pem"}, wantErr: "need -base-url"},
		{name: "extra", args: []string{"x"}, wantErr: "unexpected arguments"},
		{name: "no reset", args: []string{"-no-reset"}, want: config{customer: defaultCustomer, scaTimeout: 5 * time.Minute, noReset: true}},
		{name: "bad timeout", args: []string{"-base-url", "https://b/api", "-p12", "q", "-redirect-uri", "http://localhost/cb", "-sca-timeout", "0s"}, wantErr: "-sca-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := parseFlags([]string{"-h"}, io.Discard)
	assert.ErrorIs(t, err, flag.ErrHelp)
}

// TestRunUnderEachProfile runs the whole walk-through against banks of
// every profile of the emulator (docs/emulator.md, "Bank profiles"): 180-
// day consents, a payment creation answer with startAuthorisation only
// (as recorded), each keyId rendering, shared caps.
func TestRunUnderEachProfile(t *testing.T) {
	t.Parallel()
	profiles := []string{
		"",
		"consent=180",
		"create=start-authorisation",
		"keyid=rfc2253",
		"keyid=openssl",
		"caps=shared",
		"consent=180,create=start-authorisation,keyid=openssl,caps=shared",
	}
	passed := 0
	for _, p := range profiles {
		var out bytes.Buffer
		res, err := run(t.Context(), config{profile: p}, &out)
		if assert.NoError(t, err, "profile %q:\n%s", p, out.String()) && assert.Empty(t, res.Failed, p) {
			passed++
		}
	}
	t.Logf("quickstart under each bank profile: %d of %d passed", passed, len(profiles))
	assert.Equal(t, len(profiles), passed)
}
