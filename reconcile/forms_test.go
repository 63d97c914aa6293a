package reconcile_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
)

// TestPrintGenCurrent fails when print_gen.go differs from what
// internal/redact/gen writes from forms.go now.
func TestPrintGenCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "print_gen.go" {
			continue
		}
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o600))
	}
	out, err := exec.Command("go", "run", "../internal/redact/gen", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	want, err := os.ReadFile(filepath.Join(dir, "print_gen.go"))
	require.NoError(t, err)
	got, err := os.ReadFile("print_gen.go")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "print_gen.go is stale: run go generate ./reconcile")
}

// TestPaymentPrintedForm: a Payment prints its request id, product,
// amount and status, and only that its creditor and references are set.
func TestPaymentPrintedForm(t *testing.T) {
	t.Parallel()
	p := reconcile.Payment{RequestID: "r-1", Created: oslo("2026-03-16"), Product: "sepa-credit-transfers", Amount: nok("5.00"),
		CreditorIBAN: merchantIBAN, KID: "1234567890128", Remittance: "Husleie", Status: "ACSC"}
	want := `reconcile.Payment{requestId=r-1 created=2026-03-16T09:00:00Z product=sepa-credit-transfers amount="5.00 NOK" ` +
		`creditorIban=[redacted] kid=[redacted] remittance=[redacted] status=ACSC}`
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d"} {
		assert.Equal(t, want, sprintf(verb, p), verb)
	}
}
