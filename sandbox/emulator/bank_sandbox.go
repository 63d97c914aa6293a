package emulator

import (
	"net/http"
	"time"
)

// resetSandboxLocked is the sandbox initialisation of the TPP owner (its
// tppIdentity): its sandbox (views.go) is replaced by the default data as
// in a new server, with exactly the default customers (CustomerKari,
// CustomerOla, CustomerFjordlys, CustomerTestfirma), their accounts, card
// accounts, balances, transactions and agreements, a deleted one
// included. What owner created or changed (customers, mock accounts and
// transactions, agreements, booked payments) is gone; the sandboxes of
// other TPPs are not touched. Transaction ids stay unique within the
// TPP's sandbox. The PSU-IDs, sessions and access budgets owner held for
// removed customers and accounts go too.
func (bk *bank) resetSandboxLocked(owner string, now time.Time) {
	st := newDefaultStore(now, bk.data)
	if old := bk.storeOf(owner); old != nil {
		st.seq = max(st.seq, old.seq)
	}
	bk.stores[owner] = st
	bk.forgetRemovedLocked(owner)
}

// owner finds the customer a mock object belongs to, by customerId or
// customerNumber.
func (bk *bank) owner(st *store, id, number string) (*customer, error) {
	var cu *customer
	switch {
	case id != "":
		cu = st.customerByID(id)
	case number != "":
		cu = st.customerByNumber(number)
	default:
		return nil, newError(http.StatusBadRequest, "FORMAT_ERROR", "customerId or customerNumber is required.").at("customerId")
	}
	if cu == nil {
		return nil, errNotFound("The customer is unknown.").at("customerId")
	}
	return cu, nil
}
