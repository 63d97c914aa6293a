package budget_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A stored ledger whose call times are not Unix nanoseconds (the calls of
// a form that writes seconds, milliseconds or microseconds, which read as
// nanoseconds fall in January 1970), or whose members are spelt or
// repeated otherwise than this version writes them (JSON matches member
// names without regard to case, and the last of two equal members wins),
// is unreadable: read as this version's ledger it would count no call,
// and the client would send the bank 4 more calls within its 24 hours.
// The call is refused before it is sent, and Remaining says the value
// is unreadable.
func TestLedgerOfAnotherUnitOrSpellingUnreadable(t *testing.T) {
	t.Parallel()
	now := time.Now()
	four := func(member string, v int64) string {
		return fmt.Sprintf(`{%q:[%d,%d,%d,%d]}`, member, v, v, v, v)
	}
	spent := four("b", now.UnixNano())
	for _, raw := range []string{
		four("b", now.Unix()),
		four("b", now.UnixMilli()),
		four("b", now.UnixMicro()),
		four("b", 0),
		four("b", -now.UnixNano()),
		spent[:len(spent)-1] + `,"b":[1]}`,
		spent[:len(spent)-1] + `,"B":[1]}`,
		spent[:len(spent)-1] + `,"b":[]}`,
	} {
		bank := newCountingBank(t)
		st := store.NewMemoryStore()
		c := bank.client(t, client.WithStore(st))
		svc := newService(t, c)
		key := "accounts/budget/" + c.Scope() + "/" + budget.Key(acc1, false)
		require.NoError(t, st.Put(t.Context(), key, []byte(raw), time.Hour))

		_, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
		assert.Error(t, err, "Remaining of %s", raw)
		_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
		assert.ErrorIs(t, err, client.ErrNotSent, "a call over %s", raw)
		assert.Zero(t, bank.balances.Load(), "the bank received a call over %s", raw)
	}
}
