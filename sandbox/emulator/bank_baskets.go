package emulator

import "net/http"

// basketState is the signing baskets' part of the Server state (guarded
// by s.mu).
type basketState struct {
	byID map[string]*basket
}

type basket struct {
	id       string
	tpp      string
	payments []*payment
}

func (b *basket) href() string { return "/v1/signing-baskets/" + b.id }

// status is the worst case of the basket's payments.
func (b *basket) status() string {
	rcvd := 0
	for _, p := range b.payments {
		switch p.Status {
		case statusRJCT, statusCANC:
			return statusRJCT
		case statusRCVD:
			rcvd++
		}
	}
	switch {
	case rcvd == len(b.payments):
		return statusRCVD
	case rcvd > 0:
		return "PATC"
	}
	return statusACTC
}

// basketApproval is the SCA callback of a basket: it approves the
// payments (see paymentApproval) while the basket exists; the SCA of a
// deleted basket fails with STATUS_INVALID.
func (bk *bank) basketApproval(b *basket) func(scaResult) error {
	approve := bk.paymentApproval(b.payments)
	return func(res scaResult) error {
		if res.OK && bk.baskets.byID[b.id] != b {
			return newError(http.StatusConflict, "STATUS_INVALID", "The signing basket was deleted.")
		}
		return approve(res)
	}
}
