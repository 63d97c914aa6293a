package budget

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/store"
)

// Records says what the client's store holds of a budget: whether it has
// a ledger of the account (of either kind: an account or a card account)
// and whether it has any ledger of the client's bank at all.
//
// A ledger lives while a call it counted is in the window, so an account
// that made no call without the PSU in the last window has none, exactly
// like an account id with a typo, or an account of another bank. A tool
// that reports an allowance must not present that absence as "all
// calls left": Remaining alone cannot tell the two apart, Records can.
type Records struct {
	// Account is true when the store holds a ledger of the account.
	Account bool
	// Bank is true when the store holds a ledger of any account of the
	// client's bank (its scope: TPP, bank and environment).
	Bank bool
}

// Recorded reports what the store holds of accountID's budget and of its
// bank's (see [Records]).
func (b *Budget) Recorded(ctx context.Context, accountID string) (Records, error) {
	if b == nil {
		return Records{}, errNoBudget
	}
	if accountID == "" {
		return Records{}, errors.New("budget.Recorded: empty account id")
	}
	ctx, cancel := b.storeContext(ctx)
	defer cancel()
	var r Records
	for _, card := range []bool{false, true} {
		_, err := b.st.Get(ctx, b.key(accountID, card))
		switch {
		case err == nil:
			r.Account = true
		case !errors.Is(err, store.ErrNotStored):
			return Records{}, fmt.Errorf("budget: store: %w", err)
		}
	}
	if r.Account {
		r.Bank = true
		return r, nil
	}
	var err error
	if r.Bank, err = b.RecordedBank(ctx); err != nil {
		return Records{}, err
	}
	return r, nil
}

// RecordedBank reports whether the store holds a ledger of any account of
// the client's bank (Records.Bank): whether some account of it was read
// without the PSU within the window.
func (b *Budget) RecordedBank(ctx context.Context) (bool, error) {
	if b == nil {
		return false, errNoBudget
	}
	ctx, cancel := b.storeContext(ctx)
	defer cancel()
	for _, err := range b.st.Keys(ctx, keyPrefix+b.scope+"/") {
		if err != nil {
			return false, fmt.Errorf("budget: store: %w", err)
		}
		return true, nil
	}
	return false, nil
}
