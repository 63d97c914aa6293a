package accounts

import (
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the package's documents. Their JSON is
// the bank's document and stays data (decode, encode and decode again
// gives the same value). Their String, GoString, Format (every fmt verb,
// %d and %x included) and LogValue show only what identifies no one:
// the type, statuses, currencies, amounts, dates, codes, counts, the
// names of links and of Extra members. Account ids (resourceId, IBAN,
// BBAN, PAN and masked PAN, MSISDN, relatedAccount), names of holders
// and counterparties, the customer number (a national identity number),
// remittance and other free text of the bank, addresses and the values
// of Extra members show as redacted when set. An enumeration (a balance
// or cash account type, a status, a usage), a currency, a date-time, a
// rate or a percentage is shown only when it reads as one (a word, an
// ISO 4217 code, a date-time, a decimal number), else as OTHER, and an
// unreadable amount's text as redacted: each is the bank's text, which
// may hold a name or an account number. So is a code (a BIC, a purpose
// or bank transaction code, a merchant category code, a country, a
// standing order's rule) and a product's name: shown as redact.Code and
// redact.Label show them, else as OTHER, so that an account or identity
// number, a card number or a forged log line put in one by a bank or a
// gateway does not reach the TPP's logs.
//
// Each type declares its form once, in its form method, whose doc comment
// is its String's; String, GoString, Format and LogValue are generated
// from it into print_gen.go (internal/redact/gen, `go generate`), and a
// test fails when that file is stale.
//
// log/slog's JSON handler writes a slice (a []Account as List returns
// it) with encoding/json, that is as the bank's document: log the
// elements one by one, or a count.

// names are the names of the members of e, in order.
func (e Extra) names() []string {
	if len(e) == 0 {
		return nil
	}
	out := make([]string, len(e))
	for i, m := range e {
		out[i] = m.Name
	}
	return out
}

// String shows m's name; its value (a member of the bank's document the
// SDK does not know, which may identify the PSU) redacted.
func (m Member) form() *redact.Form {
	return redact.New("accounts.Member").Str("name", m.Name).SecretIf("value", len(m.Value) > 0)
}

// String lists e's member names; their values are not shown.
func (e Extra) form() *redact.Form { return redact.New("accounts.Extra").List("names", e.names()) }

// String describes a without its ids and names (see the package's forms above).
func (a Account) form() *redact.Form {
	f := redact.New("accounts.Account").Secret("resourceId", a.ResourceID).Secret("bban", a.BBAN).
		Secret("iban", a.IBAN).Secret("msisdn", a.MSISDN).Str("currency", redact.Currency(a.Currency)).
		Secret("name", a.Name).Secret("displayName", a.DisplayName).Str("product", redact.Label(a.Product)).
		Str("cashAccountType", redact.Word(string(a.CashAccountType))).Str("status", redact.Word(a.Status)).Str("bic", redact.Code(a.BIC)).
		Secret("linkedAccounts", a.LinkedAccounts).Str("usage", redact.Word(a.Usage)).Secret("details", a.Details)
	redact.FormsOf(f, "balances", a.Balances, Balance.form)
	redact.Keys(f, "links", a.Links)
	f.Secret("ownerName", a.OwnerName).Secret("accountName", a.AccountName).
		Secret("customerNumber", a.CustomerNumber)
	if a.CreditLine != nil {
		f.Str("creditLine", a.CreditLine.String())
	}
	return f.List("extra", a.Extra.names())
}

// String describes r with its account ids redacted.
func (r AccountReference) form() *redact.Form {
	return redact.New("accounts.AccountReference").Secret("iban", r.IBAN).Secret("bban", r.BBAN).
		Secret("pan", r.PAN).Secret("maskedPan", r.MaskedPAN).Secret("msisdn", r.MSISDN).
		Str("currency", redact.Currency(r.Currency)).Secret("otherAccountIdentification", r.OtherAccountIdentification).
		List("extra", r.Extra.names())
}

// String describes b: amount, type and dates; the last committed entry's
// reference and the Extra members' values redacted.
func (b Balance) form() *redact.Form {
	return redact.New("accounts.Balance").Amount("balanceAmount", b.BalanceAmount).
		Str("balanceType", redact.Word(string(b.BalanceType))).Bool("creditLimitIncluded", b.CreditLimitIncluded).
		Value("referenceDate", b.ReferenceDate).Str("lastChangeDateTime", redact.DateTime(b.LastChangeDateTime)).
		Secret("lastCommittedTransaction", b.LastCommittedTransaction).List("extra", b.Extra.names())
}

// String describes r: its balances, the account reference's ids redacted.
func (r BalanceReport) form() *redact.Form {
	f := redact.New("accounts.BalanceReport").Nested("account", redact.Ptr(r.Account, AccountReference.form)).
		Nested("cardAccount", redact.Ptr(r.CardAccount, AccountReference.form)).Bool("debitAccounting", r.DebitAccounting)
	redact.FormsOf(f, "balances", r.Balances, Balance.form)
	redact.Keys(f, "links", r.Links)
	return f.List("extra", r.Extra.names())
}

// String describes a without its ids, masked PAN and names.
func (a CardAccount) form() *redact.Form {
	f := redact.New("accounts.CardAccount").Secret("resourceId", a.ResourceID).
		Secret("maskedPan", a.MaskedPAN).Str("currency", redact.Currency(a.Currency)).Secret("ownerName", a.OwnerName).
		Secret("displayName", a.DisplayName).Bool("debitAccounting", a.DebitAccounting).
		Secret("details", a.Details).Secret("name", a.Name).Str("product", redact.Label(a.Product)).
		Str("status", redact.Word(a.Status)).Str("usage", redact.Word(a.Usage))
	if a.CreditLimit != nil {
		f.Amount("creditLimit", *a.CreditLimit)
	}
	redact.FormsOf(f, "balances", a.Balances, Balance.form)
	f.SecretIf("relatedAccount", len(a.RelatedAccount) > 0)
	redact.Keys(f, "links", a.Links)
	return f.List("extra", a.Extra.names())
}

// String describes t: status, dates, amounts and codes; ids, the masked
// PAN, the merchant's details and address redacted.
func (t CardTransaction) form() *redact.Form {
	f := redact.New("accounts.CardTransaction").Str("status", string(t.Status)).
		Secret("cardTransactionId", t.CardTransactionID).Str("cardTransactionIdErr", errText(t.CardTransactionIDErr)).
		Secret("terminalId", t.TerminalID).
		Value("transactionDate", t.TransactionDate).
		Str("acceptorTransactionDateTime", redact.DateTime(t.AcceptorTransactionDateTime)).
		Value("bookingDate", t.BookingDate).Value("valueDate", t.ValueDate).
		Amount("transactionAmount", t.TransactionAmount)
	redact.FormsOf(f, "currencyExchange", t.CurrencyExchange, ExchangeRate.form)
	if t.OriginalAmount != nil {
		f.Amount("originalAmount", *t.OriginalAmount)
	}
	if t.MarkupFee != nil {
		f.Amount("markupFee", *t.MarkupFee)
	}
	return f.Str("markupFeePercentage", redact.Decimal(t.MarkupFeePercentage)).Secret("cardAcceptorId", t.CardAcceptorID).
		Nested("cardAcceptorAddress", redact.Ptr(t.CardAcceptorAddress, Address.form)).
		Secret("cardAcceptorPhone", t.CardAcceptorPhone).Str("merchantCategoryCode", redact.Code(t.MerchantCategoryCode)).
		Secret("maskedPan", t.MaskedPAN).Secret("transactionDetails", t.TransactionDetails).
		Bool("invoiced", t.Invoiced).Str("proprietaryBankTransactionCode", redact.Code(t.ProprietaryBankTransactionCode)).
		List("extra", t.Extra.names())
}

// String describes a by its country; the rest redacted.
func (a Address) form() *redact.Form {
	return redact.New("accounts.Address").Secret("streetName", a.StreetName).
		Secret("buildingNumber", a.BuildingNumber).Secret("townName", a.TownName).
		Secret("postCode", a.PostCode).Str("country", redact.Code(a.Country)).List("extra", a.Extra.names())
}

// party shows one side of an entry: the name, account, agent (a BIC,
// shown) and ultimate party.
func party(f *redact.Form, side, name string, account *AccountReference, agent, ultimate string) {
	ultimateKey := "ultimateCreditor"
	if side == "debtor" {
		ultimateKey = "ultimateDebtor"
	}
	f.Secret(side+"Name", name).Nested(side+"Account", redact.Ptr(account, AccountReference.form)).Str(side+"Agent", redact.Code(agent)).
		Secret(ultimateKey, ultimate)
}

// remittance shows that an entry carries remittance information.
func remittance(f *redact.Form, unstructured string, array []string, structured, structuredArray []byte) {
	f.Secret("remittanceInformationUnstructured", unstructured).
		SecretIf("remittanceInformationUnstructuredArray", len(array) > 0).
		SecretIf("remittanceInformationStructured", len(structured) > 0).
		SecretIf("remittanceInformationStructuredArray", len(structuredArray) > 0)
}

// String describes t: status, dates, amount and codes; ids, the parties'
// names and accounts and the remittance information redacted.
func (t Transaction) form() *redact.Form {
	f := redact.New("accounts.Transaction").Str("status", string(t.Status)).
		Secret("transactionId", t.TransactionID).Str("transactionIdErr", errText(t.TransactionIDErr)).
		Secret("entryReference", t.EntryReference).
		Secret("endToEndId", t.EndToEndID).Bool("batchIndicator", t.BatchIndicator).
		Int("batchNumberOfTransactions", t.BatchNumberOfTransactions).Secret("mandateId", t.MandateID).
		Secret("checkId", t.CheckID).Secret("creditorId", t.CreditorID).
		Value("bookingDate", t.BookingDate).Value("valueDate", t.ValueDate).
		Amount("transactionAmount", t.TransactionAmount)
	redact.FormsOf(f, "currencyExchange", t.CurrencyExchange, ExchangeRate.form)
	party(f, "creditor", t.CreditorName, t.CreditorAccount, t.CreditorAgent, t.UltimateCreditor)
	party(f, "debtor", t.DebtorName, t.DebtorAccount, t.DebtorAgent, t.UltimateDebtor)
	remittance(f, t.RemittanceInformationUnstructured, t.RemittanceInformationUnstructuredArray,
		t.RemittanceInformationStructured, t.RemittanceInformationStructuredArray)
	redact.FormsOf(f, "entryDetails", t.EntryDetails, EntryDetail.form)
	f.Secret("additionalInformation", t.AdditionalInformation).
		Nested("additionalInformationStructured", redact.Ptr(t.AdditionalInformationStructured, AdditionalInformationStructured.form)).
		Str("purposeCode", redact.Code(t.PurposeCode)).Str("bankTransactionCode", redact.Code(t.BankTransactionCode)).
		Str("proprietaryBankTransactionCode", redact.Code(t.ProprietaryBankTransactionCode)).
		Nested("balanceAfterTransaction", redact.Ptr(t.BalanceAfterTransaction, Balance.form))
	redact.FormsOf(f, "additionalInformationProprietary", t.AdditionalInformationProprietary, ProprietaryInformation.form)
	redact.Keys(f, "links", t.Links)
	return f.List("extra", t.Extra.names())
}

// String describes r: currencies, rate and date; the contract's id
// redacted.
func (r ExchangeRate) form() *redact.Form {
	return redact.New("accounts.ExchangeRate").Str("sourceCurrency", redact.Currency(r.SourceCurrency)).
		Str("exchangeRate", redact.Decimal(r.ExchangeRate)).Str("unitCurrency", redact.Currency(r.UnitCurrency)).
		Str("targetCurrency", redact.Currency(r.TargetCurrency)).Value("quotationDate", r.QuotationDate).
		Secret("contractIdentification", r.ContractIdentification).List("extra", r.Extra.names())
}

// String describes d as [Transaction.String] describes an entry.
func (d EntryDetail) form() *redact.Form {
	f := redact.New("accounts.EntryDetail").Secret("endToEndId", d.EndToEndID).
		Secret("mandateId", d.MandateID).Secret("checkId", d.CheckID).Secret("creditorId", d.CreditorID).
		Amount("transactionAmount", d.TransactionAmount)
	redact.FormsOf(f, "currencyExchange", d.CurrencyExchange, ExchangeRate.form)
	party(f, "creditor", d.CreditorName, d.CreditorAccount, d.CreditorAgent, d.UltimateCreditor)
	party(f, "debtor", d.DebtorName, d.DebtorAccount, d.DebtorAgent, d.UltimateDebtor)
	remittance(f, d.RemittanceInformationUnstructured, d.RemittanceInformationUnstructuredArray,
		d.RemittanceInformationStructured, d.RemittanceInformationStructuredArray)
	return f.Str("purposeCode", redact.Code(d.PurposeCode)).List("extra", d.Extra.names())
}

// String describes a's standing order.
func (a AdditionalInformationStructured) form() *redact.Form {
	return redact.New("accounts.AdditionalInformationStructured").
		Nested("standingOrderDetails", redact.Ptr(a.StandingOrderDetails, StandingOrderDetails.form)).List("extra", a.Extra.names())
}

// String describes s: dates, frequency, rule and limit.
func (s StandingOrderDetails) form() *redact.Form {
	f := redact.New("accounts.StandingOrderDetails").Value("startDate", s.StartDate).
		Str("frequency", redact.Code(s.Frequency)).Value("endDate", s.EndDate).Str("executionRule", redact.Code(s.ExecutionRule)).
		Bool("withinAMonthFlag", s.WithinAMonthFlag).List("monthsOfExecution", redact.Codes(s.MonthsOfExecution)).
		Int("multiplicator", s.Multiplicator).Str("dayOfExecution", redact.Code(s.DayOfExecution))
	return f.Amount("limitAmount", s.LimitAmount).List("extra", s.Extra.names())
}

// String describes p by its suffix; the value (a reference of the bank's,
// free text) redacted.
func (p ProprietaryInformation) form() *redact.Form {
	return redact.New("accounts.ProprietaryInformation").Str("suffix", redact.Code(p.Suffix)).Secret("value", p.Value)
}

// String describes p: its entry counts, link names and balances, the
// account reference's ids redacted.
func (p TransactionsPage) form() *redact.Form {
	f := redact.New("accounts.TransactionsPage").Nested("account", p.Account.form()).
		Int("booked", len(p.Booked)).Int("pending", len(p.Pending)).Int("information", len(p.Information))
	redact.Keys(f, "links", p.Links)
	redact.FormsOf(f, "balances", p.Balances, Balance.form)
	return f.List("extra", p.Extra.names()).List("reportExtra", p.ReportExtra.names())
}

// String describes p: its entry counts, link names and balances, the
// masked PAN redacted.
func (p CardTransactionsPage) form() *redact.Form {
	f := redact.New("accounts.CardTransactionsPage").Nested("cardAccount", p.CardAccount.form()).
		Bool("debitAccounting", p.DebitAccounting).Int("booked", len(p.Booked)).Int("pending", len(p.Pending))
	redact.Keys(f, "links", p.Links)
	redact.FormsOf(f, "balances", p.Balances, Balance.form)
	return f.List("extra", p.Extra.names()).List("reportExtra", p.ReportExtra.names())
}

// String names c's links; their hrefs (the scaRedirect carries the bank's
// SCA state) are not shown. Read them with [Consent.SCARedirect].
//
// The Consent's only content is its links, whose scaRedirect carries the
// bank's SCA state: its forms name the links.
func (c Consent) form() *redact.Form {
	return redact.Keys(redact.New("accounts.Consent"), "links", c.Links)
}

// String describes a with its id (the PSU-Corporate-ID) and name
// redacted.
//
// The Agreement's id is what PSU-Corporate-ID carries; its name is the
// company's; its engagements are account ids.
func (a Agreement) form() *redact.Form {
	f := redact.New("accounts.Agreement").Secret("id", a.ID).Secret("name", a.Name).
		Int("engagements", len(a.Engagements))
	return redact.Keys(f, "links", a.Links)
}

// errText is err's message, "" for nil: for errors that quote nothing of
// the bank's values (client.CheckID's).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
