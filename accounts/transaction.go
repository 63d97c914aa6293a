package accounts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// Transaction is one entry of an account's transactions, or the answer
// of [Service.TransactionDetails] (the Berlin Group 1.3.9 transaction
// schema; docs/interface.md section 2.9). Every member of that schema
// has a field; members it does not name are kept in Extra, and the
// additionalInformationProprietaryN members of this platform in
// AdditionalInformationProprietary. Encoding a decoded entry writes them
// all back.
//
// Booked entries have a stable TransactionID (since release 1.18.0) that
// can be used to recognise an entry across reads. Pending entries often
// have neither TransactionID nor ValueDate and may change between reads;
// do not use them as keys.
type Transaction struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts);
	// zero for an element of a list, whose metadata the list's call has.
	client.Answer

	// Status says whether the entry came from the booked or the pending
	// list of its page. It is not a field of the bank's document.
	Status BookingStatus `json:"-"`

	// TransactionID is the bank's id of the entry: what
	// [Service.TransactionDetails] takes, and what txsync recognises a
	// booked entry by. An id the bank sent with a control character (C0,
	// DEL or C1: a line break, a terminal escape), with bytes that are
	// not UTF-8 (which encoding/json reads as U+FFFD, so that two
	// different ids of the bank would read as one) or blank or with
	// spaces around it is no identity: decoding leaves TransactionID
	// empty, keeps the bank's value in Extra (as "transactionId") and
	// says why in TransactionIDErr. The entry and the rest of its page
	// are read as usual (refusing the page would stop every later read
	// of the account at that entry), and txsync matches the entry by its
	// other facts, as an entry without an id. A long id is kept (txsync
	// keeps a digest of it); TransactionDetails refuses one no path can
	// carry before sending.
	TransactionID  string `json:"transactionId,omitempty"`
	EntryReference string `json:"entryReference,omitempty"`
	// TransactionIDErr is nil, or why the transactionId the bank sent
	// was set aside (see TransactionID): a [*client.MalformedValueError]
	// (matching [client.ErrMalformedValue]) that quotes nothing of the
	// id.
	TransactionIDErr error  `json:"-"`
	EndToEndID       string `json:"endToEndId,omitempty"`
	// BatchIndicator is true for an entry that stands for a batch of
	// transactions (see EntryDetails); nil when the bank does not say.
	BatchIndicator *bool `json:"batchIndicator,omitempty"`
	// BatchNumberOfTransactions is the number of transactions of a batch
	// entry; 0 when absent.
	BatchNumberOfTransactions int `json:"batchNumberOfTransactions,omitempty"`
	// MandateID identifies the direct debit mandate (AvtaleGiro, SEPA
	// direct debit) of a collection; CreditorID the creditor scheme id of
	// its creditor.
	MandateID  string `json:"mandateId,omitempty"`
	CheckID    string `json:"checkId,omitempty"`
	CreditorID string `json:"creditorId,omitempty"`
	// BookingDate and ValueDate are zero when absent.
	BookingDate date.Date `json:"bookingDate,omitzero"`
	ValueDate   date.Date `json:"valueDate,omitzero"`
	// TransactionAmount is zero when the bank sent none.
	TransactionAmount money.Amount `json:"transactionAmount"`
	// CurrencyExchange gives the exchange rates of a transaction in
	// another currency.
	CurrencyExchange []ExchangeRate `json:"currencyExchange,omitzero"`

	CreditorName     string            `json:"creditorName,omitempty"`
	CreditorAccount  *AccountReference `json:"creditorAccount,omitempty"`
	CreditorAgent    string            `json:"creditorAgent,omitempty"` // BIC
	UltimateCreditor string            `json:"ultimateCreditor,omitempty"`
	DebtorName       string            `json:"debtorName,omitempty"`
	DebtorAccount    *AccountReference `json:"debtorAccount,omitempty"`
	DebtorAgent      string            `json:"debtorAgent,omitempty"` // BIC
	UltimateDebtor   string            `json:"ultimateDebtor,omitempty"`

	RemittanceInformationUnstructured      string   `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray []string `json:"remittanceInformationUnstructuredArray,omitzero"`
	// RemittanceInformationStructured and ...StructuredArray are kept as
	// sent (compact); their shape varies between banks and versions (a
	// string in Berlin Group 1.3.9, an object in earlier ones).
	RemittanceInformationStructured      json.RawMessage `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray json.RawMessage `json:"remittanceInformationStructuredArray,omitempty"`
	// EntryDetails describes the transactions of a batch entry.
	EntryDetails []EntryDetail `json:"entryDetails,omitzero"`

	AdditionalInformation string `json:"additionalInformation,omitempty"`
	// AdditionalInformationStructured carries the standing order behind
	// an entry of the information list.
	AdditionalInformationStructured *AdditionalInformationStructured `json:"additionalInformationStructured,omitempty"`
	PurposeCode                     string                           `json:"purposeCode,omitempty"`
	// BankTransactionCode is the ISO 20022 domain, family and sub-family
	// codes joined by hyphens, e.g. "PMNT-RDDT-ESDD".
	BankTransactionCode            string `json:"bankTransactionCode,omitempty"`
	ProprietaryBankTransactionCode string `json:"proprietaryBankTransactionCode,omitempty"`
	// BalanceAfterTransaction is the account's balance after the entry;
	// nil when absent.
	BalanceAfterTransaction *Balance `json:"balanceAfterTransaction,omitempty"`

	// AdditionalInformationProprietary holds every
	// additionalInformationProprietaryN property of the entry (extra
	// proprietary references, docs/interface.md section 2.9), ordered by
	// N. See [Transaction.Proprietary].
	AdditionalInformationProprietary []ProprietaryInformation `json:"-"`

	// Links holds the entry's links (transactionDetails, when the bank
	// gives one).
	Links client.Links `json:"_links,omitzero"`

	// Extra holds the members of the entry that no field names.
	Extra Extra `json:"-"`
}

// ExchangeRate is one exchange rate of a transaction
// (reportExchangeRate): one unit of UnitCurrency is ExchangeRate units of
// TargetCurrency.
type ExchangeRate struct {
	SourceCurrency         string    `json:"sourceCurrency,omitempty"`
	ExchangeRate           string    `json:"exchangeRate,omitempty"`
	UnitCurrency           string    `json:"unitCurrency,omitempty"`
	TargetCurrency         string    `json:"targetCurrency,omitempty"`
	QuotationDate          date.Date `json:"quotationDate,omitzero"`
	ContractIdentification string    `json:"contractIdentification,omitempty"`
	// Extra holds the members no field names.
	Extra Extra `json:"-"`
}

// EntryDetail is one transaction of a batch entry
// ([Transaction.EntryDetails]).
type EntryDetail struct {
	EndToEndID                             string            `json:"endToEndId,omitempty"`
	MandateID                              string            `json:"mandateId,omitempty"`
	CheckID                                string            `json:"checkId,omitempty"`
	CreditorID                             string            `json:"creditorId,omitempty"`
	TransactionAmount                      money.Amount      `json:"transactionAmount"`
	CurrencyExchange                       []ExchangeRate    `json:"currencyExchange,omitzero"`
	CreditorName                           string            `json:"creditorName,omitempty"`
	CreditorAccount                        *AccountReference `json:"creditorAccount,omitempty"`
	CreditorAgent                          string            `json:"creditorAgent,omitempty"`
	UltimateCreditor                       string            `json:"ultimateCreditor,omitempty"`
	DebtorName                             string            `json:"debtorName,omitempty"`
	DebtorAccount                          *AccountReference `json:"debtorAccount,omitempty"`
	DebtorAgent                            string            `json:"debtorAgent,omitempty"`
	UltimateDebtor                         string            `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured      string            `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray []string          `json:"remittanceInformationUnstructuredArray,omitzero"`
	RemittanceInformationStructured        json.RawMessage   `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray   json.RawMessage   `json:"remittanceInformationStructuredArray,omitempty"`
	PurposeCode                            string            `json:"purposeCode,omitempty"`
	// Extra holds the members no field names.
	Extra Extra `json:"-"`
}

// AdditionalInformationStructured is the structured additional
// information of an entry: the standing order behind it.
type AdditionalInformationStructured struct {
	StandingOrderDetails *StandingOrderDetails `json:"standingOrderDetails,omitempty"`
	// Extra holds the members no field names.
	Extra Extra `json:"-"`
}

// StandingOrderDetails describes a standing order (Berlin Group
// standingOrderDetails).
type StandingOrderDetails struct {
	StartDate date.Date `json:"startDate,omitzero"`
	// Frequency is Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths,
	// Quarterly, SemiAnnual, Annual or MonthlyVariable.
	Frequency string    `json:"frequency,omitempty"`
	EndDate   date.Date `json:"endDate,omitzero"`
	// ExecutionRule is following or preceding.
	ExecutionRule     string   `json:"executionRule,omitempty"`
	WithinAMonthFlag  *bool    `json:"withinAMonthFlag,omitempty"`
	MonthsOfExecution []string `json:"monthsOfExecution,omitzero"`
	Multiplicator     int      `json:"multiplicator,omitempty"`
	DayOfExecution    string   `json:"dayOfExecution,omitempty"`
	// LimitAmount is zero when absent.
	LimitAmount money.Amount `json:"limitAmount"`
	// Extra holds the members no field names.
	Extra Extra `json:"-"`
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

// Wire forms: each document type's fields without its methods, with its
// amounts as docAmount (see document.go).
type (
	transactionFields Transaction
	transactionWire   struct {
		transactionFields
		TransactionAmount docAmount `json:"transactionAmount,omitzero"`
	}
	exchangeRateFields ExchangeRate
	entryDetailFields  EntryDetail
	entryDetailWire    struct {
		entryDetailFields
		TransactionAmount docAmount `json:"transactionAmount,omitzero"`
	}
	additionalInformationFields AdditionalInformationStructured
	standingOrderFields         StandingOrderDetails
	standingOrderWire           struct {
		standingOrderFields
		LimitAmount docAmount `json:"limitAmount,omitzero"`
	}
)

var (
	transactionNames           = namesOf[Transaction]()
	exchangeRateNames          = namesOf[ExchangeRate]()
	entryDetailNames           = namesOf[EntryDetail]()
	additionalInformationNames = namesOf[AdditionalInformationStructured]()
	standingOrderNames         = namesOf[StandingOrderDetails]()
)

// UnmarshalJSON decodes an entry, keeping its
// additionalInformationProprietaryN properties and the members no field
// names. It keeps t.Status.
func (t *Transaction) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w transactionWire
	extra, taken, err := decodeObject(data, &w, transactionNames(), func(name []byte) bool {
		return bytes.HasPrefix(name, []byte(proprietaryPrefix))
	})
	if err != nil {
		return err
	}
	var prop []ProprietaryInformation
	for _, m := range taken {
		prop = append(prop, ProprietaryInformation{Suffix: m.Name[len(proprietaryPrefix):], Value: rawText(m.Value)})
	}
	slices.SortStableFunc(prop, compareSuffix)
	f := w.transactionFields
	f.Status = t.Status
	f.TransactionAmount = money.Amount(w.TransactionAmount)
	f.RemittanceInformationStructured = normalRaw(f.RemittanceInformationStructured)
	f.RemittanceInformationStructuredArray = normalRaw(f.RemittanceInformationStructuredArray)
	f.AdditionalInformationProprietary = prop
	f.Extra = extra
	if f.TransactionIDErr, err = setAside("transactionId", &f.TransactionID, &f.Extra); err != nil {
		return err
	}
	*t = Transaction(f)
	return nil
}

// MarshalJSON writes the entry as the bank sent it, including its
// additionalInformationProprietaryN properties (a value the bank sent as
// an object or a number is written as one) and Extra.
func (t Transaction) MarshalJSON() ([]byte, error) {
	var more []Member
	for _, p := range t.AdditionalInformationProprietary {
		v, err := proprietaryJSON(p.Value)
		if err != nil {
			return nil, err
		}
		more = append(more, Member{Name: proprietaryPrefix + p.Suffix, Value: v})
	}
	return encodeObject(transactionWire{transactionFields(t), docAmount(t.TransactionAmount)}, more, t.Extra)
}

// UnmarshalJSON decodes a rate, keeping the members no field names.
func (r *ExchangeRate) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f exchangeRateFields
	extra, _, err := decodeObject(data, &f, exchangeRateNames(), nil)
	if err != nil {
		return err
	}
	f.Extra = extra
	*r = ExchangeRate(f)
	return nil
}

// MarshalJSON writes the rate with its Extra members.
func (r ExchangeRate) MarshalJSON() ([]byte, error) {
	return encodeObject(exchangeRateFields(r), nil, r.Extra)
}

// UnmarshalJSON decodes an entry detail, keeping the members no field
// names.
func (d *EntryDetail) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w entryDetailWire
	extra, _, err := decodeObject(data, &w, entryDetailNames(), nil)
	if err != nil {
		return err
	}
	f := w.entryDetailFields
	f.TransactionAmount = money.Amount(w.TransactionAmount)
	f.RemittanceInformationStructured = normalRaw(f.RemittanceInformationStructured)
	f.RemittanceInformationStructuredArray = normalRaw(f.RemittanceInformationStructuredArray)
	f.Extra = extra
	*d = EntryDetail(f)
	return nil
}

// MarshalJSON writes the entry detail with its Extra members.
func (d EntryDetail) MarshalJSON() ([]byte, error) {
	return encodeObject(entryDetailWire{entryDetailFields(d), docAmount(d.TransactionAmount)}, nil, d.Extra)
}

// UnmarshalJSON decodes the structured information, keeping the members
// no field names.
func (a *AdditionalInformationStructured) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f additionalInformationFields
	extra, _, err := decodeObject(data, &f, additionalInformationNames(), nil)
	if err != nil {
		return err
	}
	f.Extra = extra
	*a = AdditionalInformationStructured(f)
	return nil
}

// MarshalJSON writes the structured information with its Extra members.
func (a AdditionalInformationStructured) MarshalJSON() ([]byte, error) {
	return encodeObject(additionalInformationFields(a), nil, a.Extra)
}

// UnmarshalJSON decodes standing order details, keeping the members no
// field names.
func (s *StandingOrderDetails) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w standingOrderWire
	extra, _, err := decodeObject(data, &w, standingOrderNames(), nil)
	if err != nil {
		return err
	}
	f := w.standingOrderFields
	f.LimitAmount = money.Amount(w.LimitAmount)
	f.Extra = extra
	*s = StandingOrderDetails(f)
	return nil
}

// MarshalJSON writes the standing order details with their Extra members.
func (s StandingOrderDetails) MarshalJSON() ([]byte, error) {
	return encodeObject(standingOrderWire{standingOrderFields(s), docAmount(s.LimitAmount)}, nil, s.Extra)
}

// proprietaryJSON is the JSON value of a proprietary property with the
// text v: the JSON text itself when v is a JSON value other than a string
// in the form rawText gives it (the bank sent an object, a number), else
// a JSON string. Either decodes back to v.
func proprietaryJSON(v string) (json.RawMessage, error) {
	if v != "" && v[0] != '"' && json.Valid([]byte(v)) && string(normalJSON([]byte(v))) == v {
		return json.RawMessage(v), nil
	}
	return json.Marshal(v)
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

// setAside checks *id, the entry's id the bank sent as member name, with
// checkEntryID. One that cannot identify the entry is set aside, not
// refused (refusing the page would stop every later read of the account
// at this entry): *id is emptied, the bank's value kept in *extra under
// name, and why is returned as bad. err is an encoding error only.
func setAside(name string, id *string, extra *Extra) (bad, err error) {
	if *id == "" {
		return nil, nil
	}
	bad = checkEntryID(name, *id)
	if bad == nil {
		return nil, nil
	}
	v, err := json.Marshal(*id)
	if err != nil {
		return nil, err
	}
	*extra = append(*extra, Member{Name: name, Value: v})
	*id = ""
	return bad, nil
}

// checkEntryID returns a [*client.MalformedValueError] naming field when
// id, an entry's id the bank sent, cannot identify the entry: it holds a
// control character or U+FFFD ([client.CheckPrintable]), or is blank or
// has spaces around it. Else nil.
func checkEntryID(field, id string) error {
	if err := client.CheckPrintable(field, id); err != nil {
		return err
	}
	if strings.TrimSpace(id) != id || id == "" {
		return &client.MalformedValueError{Field: field, Problem: "is blank or has spaces around it"}
	}
	return nil
}
