package sandbox

import (
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the sandbox's bodies and answers. Their
// JSON is what is sent to the sandbox or what it answered, and stays
// data. String, GoString, Format (every fmt verb) and LogValue show
// customer types, currencies, amounts, dates, statuses, codes, roles,
// counts and link names; customer ids and numbers (the customer number
// is a mocked national identity number the PSU types at the SCA page),
// names, account ids (resourceId, IBAN, BBAN, masked PAN), agreement ids
// and remittance or card details show as redacted when set.

func (a Amount) text() string {
	if a.Amount == "" {
		return ""
	}
	return string(a.Amount) + " " + a.Currency
}

// String describes a sandbox customer: its type and counts; its ids, customer number (a national identity number) and name redacted.
func (c Customer) form() *redact.Form {
	f := redact.New("sandbox.Customer").Secret("customerId", c.CustomerID).Secret("customerNumber", c.CustomerNumber).
		Str("customerType", string(c.CustomerType)).Secret("customerName", c.CustomerName)
	redact.FormsOf(f, "agreements", c.Agreements, Agreement.form)
	f.Int("accounts", len(c.Accounts)).Int("cardAccounts", len(c.CardAccounts))
	return redact.Keys(f, "links", c.Links)
}

// String describes a sandbox agreement: the number of engagements and link names; its id and name redacted.
func (a Agreement) form() *redact.Form {
	f := redact.New("sandbox.Agreement").Secret("id", a.ID).Secret("name", a.Name).Int("engagements", len(a.Engagements))
	return redact.Keys(f, "links", a.Links)
}

// String describes a new customer by its type; the customer number and name redacted.
func (n NewCustomer) form() *redact.Form {
	return redact.New("sandbox.NewCustomer").Secret("customerNumber", n.CustomerNumber).
		Str("customerType", string(n.CustomerType)).Secret("customerName", n.CustomerName)
}

// String describes a mock account: currency, product, codes and the number of balances; its ids, names and customer number redacted.
func (a Account) form() *redact.Form {
	f := redact.New("sandbox.Account").Secret("resourceId", a.ResourceID).Secret("bban", a.BBAN).Secret("iban", a.IBAN).
		Str("currency", a.Currency).Secret("name", a.Name).Str("product", a.Product).
		Str("cashAccountType", a.CashAccountType).Str("bic", a.BIC).Int("balances", len(a.Balances)).
		Secret("accountName", a.AccountName).Secret("customerNumber", a.CustomerNumber)
	return redact.Keys(f, "links", a.Links)
}

// String describes a new mock account: currency, product, balance and credit line; the customer's and account's ids and the name redacted.
func (a NewAccount) form() *redact.Form {
	return redact.New("sandbox.NewAccount").Secret("customerId", a.CustomerID).Secret("customerNumber", a.CustomerNumber).
		Secret("bban", a.BBAN).Str("currency", a.Currency).Secret("name", a.Name).Str("product", a.Product).
		Str("cashAccountType", a.CashAccountType).Str("balance", string(a.Balance)).Str("creditLine", string(a.CreditLine))
}

// String describes a mock card account: currency, product and the number of balances; its id, masked PAN, name and related account redacted.
func (a CardAccount) form() *redact.Form {
	f := redact.New("sandbox.CardAccount").Secret("resourceId", a.ResourceID).Secret("maskedPan", a.MaskedPan).
		Str("currency", a.Currency).Secret("name", a.Name).Str("product", a.Product).
		Int("balances", len(a.Balances)).Secret("relatedAccount", string(a.RelatedAccount))
	return redact.Keys(f, "links", a.Links)
}

// String describes a new mock card account: currency, product, credit limit and balance; the ids, masked PAN and name redacted.
func (a NewCardAccount) form() *redact.Form {
	return redact.New("sandbox.NewCardAccount").Secret("customerId", a.CustomerID).Secret("customerNumber", a.CustomerNumber).
		Secret("maskedPan", a.MaskedPan).Str("currency", a.Currency).Secret("name", a.Name).Str("product", a.Product).
		Str("creditLimit", string(a.CreditLimit)).Str("balance", string(a.Balance))
}

// String describes an account reference with its IBAN and BBAN redacted.
func (r AccountRef) form() *redact.Form {
	return redact.New("sandbox.AccountRef").Secret("iban", r.IBAN).Secret("bban", r.BBAN)
}

// String describes a mock transaction: status, dates, amount and code; names, accounts and remittance text redacted.
func (t Transaction) form() *redact.Form {
	return redact.New("sandbox.Transaction").Str("bookingStatus", t.BookingStatus).Str("bookingDate", t.BookingDate).
		Str("valueDate", t.ValueDate).Str("transactionAmount", t.TransactionAmount.text()).
		Secret("creditorName", t.CreditorName).Nested("creditorAccount", redact.Ptr(t.CreditorAccount, AccountRef.form)).
		Secret("debtorName", t.DebtorName).Nested("debtorAccount", redact.Ptr(t.DebtorAccount, AccountRef.form)).
		Secret("remittanceInformationUnstructured", t.RemittanceInformationUnstructured).
		Str("proprietaryBankTransactionCode", t.ProprietaryBankTransactionCode)
}

// String describes a mock card transaction: status, dates and amounts; its details redacted.
func (t CardTransaction) form() *redact.Form {
	f := redact.New("sandbox.CardTransaction").Str("bookingStatus", t.BookingStatus).
		Str("transactionDate", t.TransactionDate).Str("bookingDate", t.BookingDate).
		Str("transactionAmount", t.TransactionAmount.text())
	if t.OriginalAmount != nil {
		f.Str("originalAmount", t.OriginalAmount.text())
	}
	return f.Bool("invoiced", &t.Invoiced).Secret("transactionDetails", t.TransactionDetails)
}

// String describes a new mock agreement: its engagements' roles; the owner, name, customers and accounts redacted.
func (a NewAgreement) form() *redact.Form {
	f := redact.New("sandbox.NewAgreement").Secret("owner", a.Owner).Secret("name", a.Name)
	return redact.FormsOf(f, "engagements", a.Engagements, Engagement.form)
}

// String describes an engagement by its roles; the customer and account redacted.
func (e Engagement) form() *redact.Form {
	return redact.New("sandbox.Engagement").Secret("customer", e.Customer).Nested("account", e.Account.form()).
		List("roles", e.Roles)
}
