package emulator_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestMultiBankHostLabels: NewMultiBank takes only host names whose
// DirectoryJSON package banks reads (its doc: "give it to banks.Parse").
// Before the fix it took a first label of 64 or more characters, longer
// than a DNS label may be (RFC 1035: 63), which became a bank id that
// banks.Parse refuses, so the emulator's own directory did not parse.
func TestMultiBankHostLabels(t *testing.T) {
	t.Parallel()
	for _, h := range []string{strings.Repeat("a", 64) + ".localhost", "alpha." + strings.Repeat("b", 64) + ".localhost"} {
		m, err := emulator.NewMultiBank([]string{h})
		if err == nil {
			_, perr := banks.Parse(m.DirectoryJSON())
			m.Close()
			t.Errorf("host %q (a label over 63) taken; banks.Parse of its directory: %v", h, perr)
		}
	}
	h := strings.Repeat("a", 63) + ".localhost"
	m, err := emulator.NewMultiBank([]string{h})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	d, err := banks.Parse(m.DirectoryJSON())
	require.NoError(t, err)
	_, ok := d.Lookup(strings.Repeat("a", 63))
	assert.True(t, ok)
}
