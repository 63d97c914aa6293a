package reconcile

import (
	"fmt"
	"time"

	"github.com/tppkit/psd2/internal/storebound"
)

// Reencode decodes an account's stored state and encodes it afresh,
// every payment from its fields (none copied from its earlier encoding).
func Reencode(b []byte) ([]byte, error) {
	s, err := decodeState(b)
	if err != nil {
		return nil, err
	}
	for i := range s.pays {
		s.pays[i].enc = nil
	}
	return encodeState(s), nil
}

// SetStoreWait shortens r's bound of each store call (storeWait) for a
// test of a hung store.
func SetStoreWait(r *Reconciler, d time.Duration) {
	r.st = storebound.Store{Store: r.st.(storebound.Store).Store, Wait: d}
}

// Fill adds to an account's stored state b open payments, not accepted,
// created at created (request ids "fill-000001" and on, after the state's
// own in initiation order), until its encoding is less than one of them
// more than room bytes below the state's bound, and returns it.
func Fill(b []byte, created time.Time, room int) ([]byte, error) {
	s, err := decodeState(b)
	if err != nil {
		return nil, err
	}
	filler := func(i int) pay {
		p := pay{id: fmt.Sprintf("fill-%06d", i), created: created.Unix(), scheme: Domestic,
			amt: amt{units: 10000, scale: 2, cur: "NOK"}}
		p.deadline = deadline(&p, bankDay(created))
		return p
	}
	limit := maxStateBytes - room
	per := len(encodeState(&acctState{pays: []pay{filler(0), filler(1)}})) - len(encodeState(&acctState{pays: []pay{filler(0)}}))
	n := max((limit-len(encodeState(s)))/per-2, 0)
	for i := range n {
		s.pays = append(s.pays, filler(i+1))
	}
	out := encodeState(s)
	for len(out)+per <= limit {
		n++
		s.pays = append(s.pays, filler(n))
		out = encodeState(s)
	}
	for len(out) > limit && n > 0 {
		s.pays = s.pays[:len(s.pays)-1]
		n--
		out = encodeState(s)
	}
	return out, nil
}

// MaxStateBytes is the bound of an account's encoded state.
const MaxStateBytes = maxStateBytes
