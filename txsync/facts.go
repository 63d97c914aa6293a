package txsync

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"hash/fnv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// maxText is the length, in characters, of the text a Version keeps.
const maxText = 140

// item is one entry of a read, with what matching needs of it.
type item struct {
	v Version
	// fp is the fingerprint of every fact of the entry (its dates,
	// amount, counterparty, remittance and proprietary references, its
	// status); core that of its dates, amount, counterparty and
	// remittance only, for a bank that changes a reference with the id.
	fp, core uint64
	value    decimal.Decimal
	occ      int
	tx       *accounts.Transaction
	card     *accounts.CardTransaction
	// txn, orig and origCur are a card entry's transaction date and
	// original amount (stored), origValue that amount's value.
	txn           date.Date
	orig, origCur string
	origValue     decimal.Decimal
}

// amount is one amount of an entry with its currency.
type amount struct {
	value decimal.Decimal
	cur   string
}

// amounts are the entry's amounts matching compares: its amount and, for
// a card entry, its original amount.
func (it *item) amounts() []amount {
	out := make([]amount, 0, 2)
	if it.v.Currency != "" {
		out = append(out, amount{value: it.value, cur: it.v.Currency})
	}
	if it.origCur != "" {
		out = append(out, amount{value: it.origValue, cur: it.origCur})
	}
	return out
}

// entry is the Entry of a read's item under key, with a copy of the
// transaction: the caller may reuse the read's slices.
func (it *item) entry(key Key) Entry {
	e := Entry{Key: key, Occurrence: it.occ}
	// The copy carries the status the sync counted (an entry built in
	// code has none), so that a consumer tells a pending entry from a
	// booked one.
	if it.tx != nil {
		t := *it.tx
		t.Status = it.v.Status
		e.Transaction = &t
	}
	if it.card != nil {
		c := *it.card
		c.Status = it.v.Status
		e.Card = &c
	}
	return e
}

// hasher writes facts into a 64-bit FNV-1a hash, each followed by a zero
// byte so that "ab","c" and "a","bc" differ. FNV, not maphash: the
// fingerprints are stored and compared by every replica.
type hasher struct{ h hash.Hash64 }

func newHasher() hasher { return hasher{fnv.New64a()} }

func (h hasher) add(parts ...string) {
	for _, p := range parts {
		_, _ = h.h.Write([]byte(p))
		_, _ = h.h.Write([]byte{0})
	}
}

func (h hasher) sum() uint64 { return h.h.Sum64() }

// cut returns s without surrounding space, at most maxText characters.
func cut(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxText {
		return s
	}
	return string([]rune(s)[:maxText])
}

// maxRef is the length, in bytes, of an id, amount text or currency a
// Version keeps as sent: a longer one (an unreadable amount keeps the
// bank's text, whatever its length) is kept as ref writes it.
const maxRef = 140

// ref returns s when it has at most maxRef bytes, else its first bytes
// (whole characters) and a digest of the whole: the state keeps a
// bounded text per fact whatever the bank sends, and two different long
// texts stay different.
func ref(s string) string {
	if len(s) <= maxRef {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := s[:96]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	return head + "…#" + hex.EncodeToString(sum[:12])
}

// entryID is the id the sync recognises an entry by: the bank's
// transactionId (cardTransactionId) bounded by ref, or "" for one with a
// control character or U+FFFD (which encoding/json puts in place of
// bytes that are not UTF-8, so that two different ids of the bank read
// as one; client.CheckPrintable), or blank or with spaces around it.
// Such an id is no identity: the entry is matched by its facts, as an
// entry without an id, and is not refused, which would stop every later
// read of the account. Package accounts sets such a transactionId aside
// when it decodes a page (accounts.Transaction.TransactionIDErr); this
// holds for entries a caller builds itself, and for card entries.
func entryID(id string) string {
	if id == "" || client.CheckPrintable("transactionId", id) != nil || strings.TrimSpace(id) != id {
		return ""
	}
	return ref(id)
}

// amountOf returns a's text and currency, each bounded (ref), and value.
func amountOf(a money.Amount) (text, currency string, v decimal.Decimal) {
	if a.IsZero() {
		return "", "", decimal.Zero
	}
	return ref(a.Text()), ref(a.Currency), a.Value
}

func refText(r *accounts.AccountReference) string {
	if r == nil {
		return ""
	}
	return r.IBAN + "/" + r.BBAN + "/" + r.MaskedPAN + "/" + r.OtherAccountIdentification
}

// transactionItem is the item of an account's entry.
func transactionItem(t *accounts.Transaction) item {
	it := item{tx: t}
	v := &it.v
	v.Status, v.TransactionID, v.BookingDate, v.ValueDate = t.Status, entryID(t.TransactionID), t.BookingDate, t.ValueDate
	v.Amount, v.Currency, it.value = amountOf(t.TransactionAmount)
	v.Counterparty = t.CreditorName
	if it.value.IsPositive() || v.Counterparty == "" {
		if t.DebtorName != "" {
			v.Counterparty = t.DebtorName
		}
	}
	v.Counterparty = cut(v.Counterparty)
	text := t.RemittanceInformationUnstructured
	if text == "" {
		text = strings.Join(t.RemittanceInformationUnstructuredArray, " ")
	}
	v.Text = cut(text)

	core := newHasher()
	core.add(v.BookingDate.String(), v.ValueDate.String(), v.Amount, v.Currency,
		t.CreditorName, refText(t.CreditorAccount), t.DebtorName, refText(t.DebtorAccount),
		t.RemittanceInformationUnstructured, strings.Join(t.RemittanceInformationUnstructuredArray, "\x1f"),
		string(t.RemittanceInformationStructured), string(t.RemittanceInformationStructuredArray))
	it.core = core.sum()
	full := newHasher()
	full.add(string(v.Status), u64(it.core), t.EntryReference, t.EndToEndID, t.MandateID, t.CheckID,
		t.CreditorID, t.AdditionalInformation, t.ProprietaryBankTransactionCode, t.BankTransactionCode)
	for _, p := range t.AdditionalInformationProprietary {
		full.add(p.Suffix, p.Value)
	}
	it.fp = full.sum()
	return it
}

// cardItem is the item of a card account's entry.
func cardItem(t *accounts.CardTransaction) item {
	it := item{card: t}
	v := &it.v
	v.Status, v.TransactionID, v.BookingDate, v.ValueDate = t.Status, entryID(t.CardTransactionID), t.BookingDate, t.ValueDate
	if v.BookingDate.IsZero() {
		v.BookingDate = t.TransactionDate
	}
	v.Amount, v.Currency, it.value = amountOf(t.TransactionAmount)
	v.Counterparty = cut(t.CardAcceptorID)
	v.Text = cut(t.TransactionDetails)
	it.txn = t.TransactionDate
	var orig string
	if t.OriginalAmount != nil {
		orig = t.OriginalAmount.String()
		it.orig, it.origCur, it.origValue = amountOf(*t.OriginalAmount)
	}
	core := newHasher()
	core.add(t.TransactionDate.String(), t.BookingDate.String(), t.ValueDate.String(), v.Amount, v.Currency, orig,
		t.CardAcceptorID, t.TransactionDetails, t.MaskedPAN)
	it.core = core.sum()
	full := newHasher()
	full.add(string(v.Status), u64(it.core), t.TerminalID, t.AcceptorTransactionDateTime, t.MerchantCategoryCode,
		t.ProprietaryBankTransactionCode)
	it.fp = full.sum()
	return it
}

func u64(n uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return string(b[:])
}

// date is the date an entry is listed under: its booking date, else its
// value date.
func (v *Version) date() date.Date {
	if !v.BookingDate.IsZero() {
		return v.BookingDate
	}
	return v.ValueDate
}

// diff says which facts differ from v to w; fpChanged tells that a fact
// the Version does not keep (a reference) changed.
func diff(v, w *Version, fpChanged bool) What {
	var out What
	switch {
	case v.Status == accounts.BookingPending && w.Status == accounts.BookingBooked:
		out |= Booked
	case v.Status == accounts.BookingBooked && w.Status == accounts.BookingPending:
		out |= Unbooked
	}
	if v.Amount != w.Amount || v.Currency != w.Currency {
		out |= Amount
	}
	if v.Counterparty != w.Counterparty || v.Text != w.Text {
		out |= Text
	}
	if v.BookingDate != w.BookingDate || v.ValueDate != w.ValueDate {
		out |= Dates
	}
	if out == 0 && fpChanged {
		out = Text
	}
	return out
}
