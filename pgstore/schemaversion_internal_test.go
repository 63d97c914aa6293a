package pgstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// SchemaVersion is the newest embedded migration: a new migration file
// raises it.
func TestSchemaVersionIsTheNewestMigration(t *testing.T) {
	ms, err := migrations()
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	require.Equal(t, SchemaVersion, ms[len(ms)-1].version)
}
