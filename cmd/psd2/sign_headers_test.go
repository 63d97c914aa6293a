package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSignRefusesAHeaderItWouldDrop: a -H that sign would drop without
// a word is a command-line mistake (exit 2, naming it): a header given
// twice (in any case; the last was taken), the Signature or
// TPP-Signature-Certificate sign makes itself (overwritten), and a
// Date given both with -H and -date (the -date was dropped). Each
// printed a signed request with exit 0, one of the values given gone.
func TestSignRefusesAHeaderItWouldDrop(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	url := "https://psd2.bank.example/api/v1/accounts"
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"a header twice", []string{"-H", "PSU-ID: first-psu", "-H", "psu-id: second-psu"}, "PSU-ID"},
		{"Signature", []string{"-H", "Signature: keyId=\"x\""}, "Signature"},
		{"TPP-Signature-Certificate", []string{"-H", "TPP-Signature-Certificate: MIIB"}, "TPP-Signature-Certificate"},
		{"Date with -date", []string{"-H", "Date: Mon, 01 Jan 2024 00:00:00 GMT", "-date", "Tue, 02 Jan 2024 00:00:00 GMT"}, "-date"},
	} {
		out, errOut, code := psd2(t, append([]string{"sign", "-cert", certFile, "-key", keyFile, "-url", url}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%s: %s", c.name, errOut)
		assert.Empty(t, out, c.name)
		assert.Contains(t, errOut, c.says, c.name)
	}
	// One Date, by either flag, and distinct headers are taken.
	for _, args := range [][]string{
		{"-H", "Date: Mon, 01 Jan 2024 00:00:00 GMT"},
		{"-date", "Mon, 01 Jan 2024 00:00:00 GMT", "-H", "PSU-ID: a", "-H", "X-Request-ID: 2f4b3c1e-1111-4aaa-8bbb-123456789abc"},
	} {
		out, errOut, code := psd2(t, append([]string{"sign", "-cert", certFile, "-key", keyFile, "-url", url}, args...)...)
		assert.Equal(t, exitOK, code, "%v: %s", args, errOut)
		assert.Contains(t, out, "Date: Mon, 01 Jan 2024 00:00:00 GMT", "%v", args)
	}
}
