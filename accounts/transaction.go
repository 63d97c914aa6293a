package accounts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
)

// Transaction is one entry of an account's transactions (PLATFORM.md
// "JSON shapes", SERVICE.md 2.9).
//
// Booked entries have a stable TransactionID (since release 1.18.0) that
// can be used to recognise an entry across reads. Pending entries often
// have neither TransactionID nor ValueDate and may change between reads;
// do not use them as keys.
type Transaction struct {
	// Status says whether the entry came from the booked or the pending
	// list of its page. It is not a field of the bank's document.
	Status BookingStatus `json:"-"`

	TransactionID  string `json:"transactionId,omitempty"`
	EntryReference string `json:"entryReference,omitempty"`
	EndToEndID     string `json:"endToEndId,omitempty"`
	// BookingDate and ValueDate are zero when absent.
	BookingDate       Date         `json:"bookingDate,omitzero"`
	ValueDate         Date         `json:"valueDate,omitzero"`
	TransactionAmount money.Amount `json:"transactionAmount"`

	CreditorName     string            `json:"creditorName,omitempty"`
	CreditorAccount  *AccountReference `json:"creditorAccount,omitempty"`
	UltimateCreditor string            `json:"ultimateCreditor,omitempty"`
	DebtorName       string            `json:"debtorName,omitempty"`
	DebtorAccount    *AccountReference `json:"debtorAccount,omitempty"`
	UltimateDebtor   string            `json:"ultimateDebtor,omitempty"`

	RemittanceInformationUnstructured      string   `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray []string `json:"remittanceInformationUnstructuredArray,omitempty"`
	// RemittanceInformationStructured and ...StructuredArray are kept as
	// sent; their shape varies between banks.
	RemittanceInformationStructured      json.RawMessage `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray json.RawMessage `json:"remittanceInformationStructuredArray,omitempty"`

	PurposeCode                    string `json:"purposeCode,omitempty"`
	BankTransactionCode            string `json:"bankTransactionCode,omitempty"`
	ProprietaryBankTransactionCode string `json:"proprietaryBankTransactionCode,omitempty"`
	AdditionalInformation          string `json:"additionalInformation,omitempty"`

	// AdditionalInformationProprietary holds every
	// additionalInformationProprietaryN property of the entry (extra
	// proprietary references, SERVICE.md 2.9), ordered by N. See
	// [Transaction.Proprietary].
	AdditionalInformationProprietary []ProprietaryInformation `json:"-"`

	Links client.Links `json:"_links,omitempty"`
}

// ProprietaryInformation is one additionalInformationProprietaryN property
// of a transaction.
type ProprietaryInformation struct {
	// Suffix is what follows "additionalInformationProprietary" in the
	// property name, usually a number ("1", "2", ...).
	Suffix string
	// Value is the property's value: the text of a JSON string, or the
	// JSON text of any other value.
	Value string
}

// proprietaryPrefix starts the names of the extra proprietary properties.
const proprietaryPrefix = "additionalInformationProprietary"

// Proprietary returns the value of additionalInformationProprietary<n> and
// whether the entry has it.
func (t *Transaction) Proprietary(n int) (string, bool) {
	want := strconv.Itoa(n)
	for _, p := range t.AdditionalInformationProprietary {
		if p.Suffix == want {
			return p.Value, true
		}
	}
	return "", false
}

// transactionFields has Transaction's fields without its methods.
type transactionFields Transaction

// UnmarshalJSON decodes an entry and keeps its
// additionalInformationProprietaryN properties.
func (t *Transaction) UnmarshalJSON(data []byte) error {
	var f transactionFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	f.Status = t.Status
	f.AdditionalInformationProprietary = nil
	if bytes.Contains(data, []byte(proprietaryPrefix)) {
		var all map[string]json.RawMessage
		if err := json.Unmarshal(data, &all); err != nil {
			return err
		}
		for k, v := range all {
			if !strings.HasPrefix(k, proprietaryPrefix) {
				continue
			}
			f.AdditionalInformationProprietary = append(f.AdditionalInformationProprietary,
				ProprietaryInformation{Suffix: k[len(proprietaryPrefix):], Value: rawText(v)})
		}
		slices.SortFunc(f.AdditionalInformationProprietary, compareSuffix)
	}
	*t = Transaction(f)
	return nil
}

// MarshalJSON writes the entry as the bank sent it, including its
// additionalInformationProprietaryN properties.
func (t Transaction) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(transactionFields(t))
	if err != nil || len(t.AdditionalInformationProprietary) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // drop the closing brace
	for _, p := range t.AdditionalInformationProprietary {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(proprietaryPrefix + p.Suffix)
		v, _ := json.Marshal(p.Value)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// rawText returns the text of a JSON string, or the compact JSON text of
// any other value.
func rawText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		return b.String()
	}
	return string(v)
}

// compareSuffix orders numeric suffixes by value, before other suffixes
// in lexical order.
func compareSuffix(a, b ProprietaryInformation) int {
	na, ea := strconv.Atoi(a.Suffix)
	nb, eb := strconv.Atoi(b.Suffix)
	switch {
	case ea == nil && eb == nil:
		return cmp.Or(cmp.Compare(na, nb), strings.Compare(a.Suffix, b.Suffix))
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a.Suffix, b.Suffix)
}
