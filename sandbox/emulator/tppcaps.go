package emulator

import "time"

// Per-TPP caps ([Limits] AuthorisationsPerTPP, PaymentsPerTPP,
// BasketsPerTPP): one TPP that fills its share gets the 507 itself, and
// the others go on until the server-wide caps. tppUsage counts what each
// TPP (its tppIdentity) holds; it is kept where the server adds and drops
// authorisations (sca.go, limits.go), payments (payments.go) and baskets
// (baskets.go). Guarded by s.mu.
type tppUsage struct {
	flows, payments, baskets map[string]int
}

// count adds d to tpp's count in *m.
func count(m *map[string]int, tpp string, d int) {
	if *m == nil {
		*m = map[string]int{}
	}
	if (*m)[tpp] += d; (*m)[tpp] <= 0 {
		delete(*m, tpp)
	}
}

const freeOwnShare = "This TPP holds its share; other TPPs are not affected."

// roomForTPPPayment checks the PaymentsPerTPP cap of tpp.
func (bk *bank) roomForTPPPayment(tpp string) error {
	if bk.profile.SharedCaps {
		return nil
	}
	return room(bk.usage.payments[tpp], 1, bk.limits.PaymentsPerTPP, "PaymentsPerTPP", "payments of this TPP", freeOwnShare+" "+freeRestart)
}

// roomForTPPBasket checks the BasketsPerTPP cap of tpp.
func (bk *bank) roomForTPPBasket(tpp string) error {
	if bk.profile.SharedCaps {
		return nil
	}
	return room(bk.usage.baskets[tpp], 1, bk.limits.BasketsPerTPP, "BasketsPerTPP", "signing baskets of this TPP", freeOwnShare+" "+freeRestart)
}

// roomForTPPAuthorisation checks the AuthorisationsPerTPP cap of tpp; when
// it is reached, tpp's authorisations older than abandonedAuthorisation
// are dropped first.
func (bk *bank) roomForTPPAuthorisation(tpp string, now time.Time) error {
	if bk.profile.SharedCaps {
		return nil
	}
	if bk.usage.flows[tpp] >= bk.limits.AuthorisationsPerTPP {
		for state, f := range bk.flows {
			if f.tpp == tpp && now.Sub(f.created) > abandonedAuthorisation {
				bk.dropFlowLocked(state)
			}
		}
	}
	return room(bk.usage.flows[tpp], 1, bk.limits.AuthorisationsPerTPP, "AuthorisationsPerTPP", "SCA authorisations of this TPP waiting for the PSU",
		freeOwnShare+" Complete or abandon them (they are dropped after an hour).")
}

// addFlowLocked registers the authorisation f.
func (bk *bank) addFlowLocked(f *scaFlow) {
	bk.flows[f.state] = f
	count(&bk.usage.flows, f.tpp, 1)
}

// dropFlowLocked removes the authorisation state, if held.
func (bk *bank) dropFlowLocked(state string) {
	if f := bk.flows[state]; f != nil {
		delete(bk.flows, state)
		count(&bk.usage.flows, f.tpp, -1)
	}
}
