package riverrefresh_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// Start on a schema where River's tables were never made (Migrate not
// run) is refused with an error that says so and names Engine.Migrate,
// not River's `relation "…river_queue" does not exist`.
func TestStartWithoutRiverTablesSaysRunMigrate(t *testing.T) {
	w := newWorld(t, 1)
	e, err := riverrefresh.New(riverrefresh.Config{Pool: newPool(t), Schema: w.schema, Work: true,
		Banks: map[string]riverrefresh.Bank{"testbank": {Service: w.svc(t), Sessions: w.store}}})
	require.NoError(t, err)
	err = e.Start(t.Context())
	if err == nil {
		_ = e.Stop(t.Context())
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Migrate")
	assert.Contains(t, err.Error(), w.schema)
	assert.Contains(t, err.Error(), "missing")
}
