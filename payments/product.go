package payments

import (
	"encoding/json"

	"github.com/tppkit/psd2/client"
)

// Product is a payment product, the {payment-product} segment of the
// payment paths (docs/interface.md section 10 "Paths").
type Product string

// The payment products of the platform (docs/interface.md section 10 "Paths"; docs/interface.md
// 4.2, 4.3).
const (
	// ProductNorwegianDomestic is the Norwegian domestic credit transfer
	// (NDCT, docs/interface.md section 2.4, 4.2).
	ProductNorwegianDomestic Product = "norwegian-domestic-credit-transfers"
	// ProductSEPA is the SEPA credit transfer (docs/interface.md section 2.5, 4.3).
	ProductSEPA Product = "sepa-credit-transfers"
	// ProductCrossBorder is the non-SEPA cross-border credit transfer.
	ProductCrossBorder Product = "cross-border-credit-transfers"
	// ProductInstantNorwegianDomestic is the instant domestic transfer
	// (straks).
	ProductInstantNorwegianDomestic Product = "instant-norwegian-domestic-credit-transfers-straks"
)

// String returns the product as it appears in paths.
func (p Product) String() string { return string(p) }

// TransactionStatus is a payment's transactionStatus (docs/interface.md section 3;
// docs/interface.md section 10 "Status values", ISO 20022 codes).
type TransactionStatus string

// Transaction statuses (docs/interface.md section 3, docs/interface.md section 10 "Status values").
const (
	// StatusACCC: settlement on the creditor's account completed.
	StatusACCC TransactionStatus = "ACCC"
	// StatusACCP: customer profile accepted. On this platform also a
	// payment the bank cannot fund now (fundsAvailable false, docs/interface.md
	// 2.6, 3); the batch tries again.
	StatusACCP TransactionStatus = "ACCP"
	// StatusACSC: settlement on the debtor's account completed (executed).
	StatusACSC TransactionStatus = "ACSC"
	// StatusACSP: settlement in process.
	StatusACSP TransactionStatus = "ACSP"
	// StatusACTC: accepted technical validation; authorised, waiting for
	// execution.
	StatusACTC TransactionStatus = "ACTC"
	// StatusACWC: accepted with change.
	StatusACWC TransactionStatus = "ACWC"
	// StatusACWP: accepted without posting.
	StatusACWP TransactionStatus = "ACWP"
	// StatusRCVD: received, not yet authorised by the PSU.
	StatusRCVD TransactionStatus = "RCVD"
	// StatusPDNG: pending; authorised with a future execution date.
	StatusPDNG TransactionStatus = "PDNG"
	// StatusRJCT: rejected.
	StatusRJCT TransactionStatus = "RJCT"
	// StatusCANC: cancelled.
	StatusCANC TransactionStatus = "CANC"
	// StatusACFC: accepted, funds checked.
	StatusACFC TransactionStatus = "ACFC"
	// StatusPATC: partially accepted technical correct (some of several
	// required authorisations done).
	StatusPATC TransactionStatus = "PATC"
	// StatusPART: partially accepted (some payments of a bulk).
	StatusPART TransactionStatus = "PART"
)

// UnmarshalJSON decodes a transactionStatus and refuses one longer than
// [client.MaxIDLength] bytes with a [*client.ValueTooLongError]: a status
// drives what the SDK and its caller do next, so it is never cut. One
// holding a control character (a line break, a terminal escape) or bytes
// that are not UTF-8 is no status code and is refused with a
// [*client.MalformedValueError] ([client.CheckPrintable]), rather than
// handed on as an unknown status whose text reaches the caller's logs.
// Any other text is taken: an unknown status is the caller's to judge
// ([TransactionStatus.IsKnown]).
func (s *TransactionStatus) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := client.CheckLength("transactionStatus", v, client.MaxIDLength); err != nil {
		return err
	}
	if err := client.CheckPrintable("transactionStatus", v); err != nil {
		return err
	}
	*s = TransactionStatus(v)
	return nil
}

// IsKnown reports whether s is one of the statuses above.
func (s TransactionStatus) IsKnown() bool {
	switch s {
	case StatusACCC, StatusACCP, StatusACSC, StatusACSP, StatusACTC, StatusACWC, StatusACWP,
		StatusRCVD, StatusPDNG, StatusRJCT, StatusCANC, StatusACFC, StatusPATC, StatusPART:
		return true
	}
	return false
}

// IsFinal reports whether the payment can no longer change: executed
// (ACSC, ACCC), rejected (RJCT) or cancelled (CANC). ACCP is not final:
// a payment waiting for funds is tried again by the bank's batch.
func (s TransactionStatus) IsFinal() bool {
	switch s {
	case StatusACSC, StatusACCC, StatusRJCT, StatusCANC:
		return true
	}
	return false
}

// IsAccepted reports whether the bank has accepted the payment at some
// stage (the AC* statuses: authorised, funds checked, in settlement or
// settled). Accepted is not executed: only ACSC and ACCC are.
func (s TransactionStatus) IsAccepted() bool {
	switch s {
	case StatusACCC, StatusACCP, StatusACSC, StatusACSP, StatusACTC, StatusACWC, StatusACWP, StatusACFC:
		return true
	}
	return false
}

// IsRejected reports whether the bank rejected the payment (RJCT).
func (s TransactionStatus) IsRejected() bool { return s == StatusRJCT }

// IsCancelled reports whether the payment was cancelled (CANC).
func (s TransactionStatus) IsCancelled() bool { return s == StatusCANC }

// IsPending reports whether a known status may still change (it is not
// final): the TPP keeps following the status. Unknown statuses report
// false; treat them as needing a person.
func (s TransactionStatus) IsPending() bool { return s.IsKnown() && !s.IsFinal() }

// IsExecuted reports whether the debtor's account has been debited (ACSC,
// ACCC).
func (s TransactionStatus) IsExecuted() bool { return s == StatusACSC || s == StatusACCC }
