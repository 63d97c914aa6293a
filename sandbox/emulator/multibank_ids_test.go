package emulator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestMultiBankIDsAreDistinct checks that the banks of a MultiBank have
// one id each, as docs/emulator.md ("Several banks at once") promises a
// directory banks.Parse(m.DirectoryJSON()) reads and a control API whose
// ?bank=<id> names the bank. A bank's id is its host's first label, so
// two hosts with one first label (alpha.localhost and alpha.test, or
// `psd2 emulator -banks alpha.x,alpha.y`) must be refused. Before the fix
// NewMultiBank served both: DirectoryJSON listed id "alpha" twice, which
// banks.Parse refuses ("bank id \"alpha\" twice"), so banks.json in -out
// was unusable, and ?bank=alpha silently named the first bank only.
func TestMultiBankIDsAreDistinct(t *testing.T) {
	t.Parallel()
	_, err := emulator.NewMultiBank([]string{"alpha.localhost", "alpha.test"})
	assert.ErrorContains(t, err, `share the bank id "alpha"`)
	m, err := emulator.NewMultiBank([]string{"alpha.localhost", "beta.localhost"})
	require.NoError(t, err)
	defer m.Close()
	_, err = banks.Parse(m.DirectoryJSON())
	assert.NoError(t, err, "the directory of the banks served must read")
}
