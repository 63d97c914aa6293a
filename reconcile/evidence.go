package reconcile

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/txsync"
)

// What a booking echoes of the payment that made it, the one place the
// package decides it.
//
// ASSUMPTION (docs/interface.md section 2.9 gives the fields of a
// transaction but not how a credit echoes the payment's references; the
// recorded answers of the platform carry remittanceInformationUnstructured
// and its array, never endToEndId nor a structured reference): a KID may
// come back
//
//   - in remittanceInformationStructured, a string (Berlin Group 1.3.9)
//     or an object whose "reference" it is (earlier versions), or in
//     remittanceInformationStructuredArray, of either;
//   - in an additionalInformationProprietaryN whose whole value is the
//     KID;
//   - in the unstructured text or its array, alone ("1234567890128", as
//     the SDK's emulator echoes it) or among words ("KID 1234567890128"),
//     as a word of at least minTextKID digits (a shorter number in a
//     text is a price, a date, an invoice line, more often than a KID)
//     standing apart (standsApart: "2026/12345678903" is an order number,
//     not KID 12345678903);
//   - in any of these places written in groups of digits, as a bank
//     prints it for the eye ("1234 5678 903" for 12345678903): see
//     kidOf, the one place a reference is read as a KID. A run of a text
//     so read is one number: its groups are not words of their own
//     ("12345 67890 3" is never 12345 nor 67890).
//
// The end-to-end id comes back in endToEndId; "NOTPROVIDED" (ISO 20022's
// placeholder) is none. The remittance text comes back in
// remittanceInformationUnstructured, else its array joined, and is
// compared as words (see words and textMatches): the interface says the
// bank may truncate or re-encode it (section 2.4).

// minTextKID is the fewest digits of a KID found in free text.
const minTextKID = 5

// maxKIDs bounds the KIDs taken from one booking.
const maxKIDs = 8

// notProvided is ISO 20022's end-to-end id of a payment without one.
const notProvided = "NOTPROVIDED"

// booking is one booked entry of a delta, with what matching needs.
type booking struct {
	key    txsync.Key
	kh, fp uint64 // hashes of the key and of the facts (see fingerprint)
	day    int32  // booking date (else value date), as a day number
	amt    amt
	amtOK  bool // the amount fits amt
	kids   []string
	e2e    string
	words  []string
	entry  *accounts.Transaction
	order  int
	again  bool // seen before: a changed credit matched again
	quiet  bool // matched again after it settled nothing: not reported unmatched again
	future bool // txsync reported it booked in the future (see holds)
	// reversal: a debit that was a held reversal, changed: matched again
	// as it is now (no other debit is, but a fresh one)
	reversal bool
	// fresh: an entry reported unreadable before (Round.Unreadable,
	// never as a credit nor a debit) that the bank changed so that it
	// can be read: a debit so is matched as a debit read for the first
	// time (a credit so is reported unmatched when it matches nothing:
	// see quiet)
	fresh bool
	// unreadable: an entry bookingOf refuses (see unreadableOf): only
	// reported, in Round.Unreadable
	unreadable bool
}

// bookingOf returns the booking of a booked entry of an account; false
// for a pending entry, a card entry, or one that cannot be read: without
// a date, or an amount that is unreadable, absent or zero (see
// unreadableOf, which reports those).
func bookingOf(e txsync.Entry, order int) (booking, bool) {
	t := e.Transaction
	if t == nil || t.Status == accounts.BookingPending || !readable(t) {
		return booking{}, false
	}
	d := t.BookingDate
	if d.IsZero() {
		d = t.ValueDate
	}
	b := booking{key: e.Key, kh: hashString(string(e.Key)), day: dayOf(d), entry: t, order: order}
	b.amt, b.amtOK = amtOf(t.TransactionAmount)
	b.fp = fingerprint(t, e.Occurrence)
	b.kids = echoedKIDs(t)
	if id := strings.TrimSpace(t.EndToEndID); id != "" && !strings.EqualFold(id, notProvided) {
		b.e2e = id
	}
	b.words = words(textOf(t))
	return b, true
}

// readable reports whether a booked entry can be matched: it has a
// booking or value date, and an amount that is readable and not zero (an
// amount of zero neither credits nor debits; an unreadable one has no
// sign).
func readable(t *accounts.Transaction) bool {
	a := t.TransactionAmount
	return a.Err() == nil && !a.IsZero() && !a.Value.IsZero() && (!t.BookingDate.IsZero() || !t.ValueDate.IsZero())
}

// unreadableVersion reports whether v, the previous version of a
// changed entry as txsync kept it, was a booked entry that cannot be
// read (see readable): no booking nor value date, or an amount absent,
// unreadable or zero. It was reported so (Round.Unreadable), never as a
// credit. The zero Version (none given) is not.
func unreadableVersion(v txsync.Version) bool {
	if v.Status != accounts.BookingBooked {
		return false
	}
	if (v.BookingDate.IsZero() && v.ValueDate.IsZero()) || v.Amount == "" {
		return true
	}
	// The amount's text as the bank wrote it, read as a money object is.
	b, err := json.Marshal(struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	}{v.Amount, v.Currency})
	var a money.Amount
	if err != nil || a.UnmarshalJSON(b) != nil {
		return true
	}
	return a.Err() != nil || a.Value.IsZero()
}

// unreadableOf returns a booked entry that bookingOf refuses as
// unreadable (no date, or an amount unreadable, absent or zero) as a
// booking to report (Round.Unreadable): its key, fingerprint, date (0 when
// none) and entry; false for any other entry. No payment is matched with
// it, but it must not vanish: it may be a payment's credit, or the
// reversal of one.
func unreadableOf(e txsync.Entry, order int) (booking, bool) {
	t := e.Transaction
	if t == nil || t.Status == accounts.BookingPending || readable(t) {
		return booking{}, false
	}
	d := t.BookingDate
	if d.IsZero() {
		d = t.ValueDate
	}
	return booking{key: e.Key, kh: hashString(string(e.Key)), fp: fingerprint(t, e.Occurrence), day: dayOf(d), entry: t,
		order: order, unreadable: true}, true
}

// unreadableCredit is the report of an unreadable booking b: its key,
// date (zero when none) and amount as the bank sent it.
func unreadableCredit(b *booking) Credit {
	return Credit{Key: b.key, BookingDate: dateOf(b.day), Amount: b.entry.TransactionAmount}
}

// textOf is the remittance text of an entry.
func textOf(t *accounts.Transaction) string {
	if t.RemittanceInformationUnstructured != "" {
		return t.RemittanceInformationUnstructured
	}
	return strings.Join(t.RemittanceInformationUnstructuredArray, " ")
}

// echoedKIDs returns the KIDs an entry may carry (see above), each once.
func echoedKIDs(t *accounts.Transaction) []string {
	var out []string
	add := func(s string, least int) {
		if k, ok := kidOf(s); ok && len(strings.TrimRight(k, "-")) >= least && len(out) < maxKIDs && !contains(out, k) {
			out = append(out, k)
		}
	}
	for _, r := range structuredReferences(t.RemittanceInformationStructured, false) {
		add(r, 0)
	}
	for _, r := range structuredReferences(t.RemittanceInformationStructuredArray, true) {
		add(r, 0)
	}
	for _, p := range t.AdditionalInformationProprietary {
		add(p.Value, 0)
	}
	texts := append([]string{t.RemittanceInformationUnstructured}, t.RemittanceInformationUnstructuredArray...)
	for _, text := range texts {
		if _, ok := kidOf(text); ok {
			add(text, 0)
			continue
		}
		// A run of groups read as a KID is one number: its groups are
		// not KIDs of their own ("12345 67890 3" is 12345678903, never
		// 12345 nor 67890: a digit string less), and it is the KID only
		// standing apart; glued to a token ("12345 67890 3/2026"), it is
		// a piece of the token, and its groups still no KIDs. Its place
		// in the text is blanked, never more: the words around it stay
		// as they are.
		rest := []byte(nil)
		for _, sp := range digitGroupSpans(text) {
			g := text[sp[0]:sp[1]]
			if _, ok := kidOf(g); ok {
				if standsApart(text, sp[0], sp[1]) {
					add(g, minTextKID)
				}
				if rest == nil {
					rest = []byte(text)
				}
				for j := sp[0]; j < sp[1]; j++ {
					rest[j] = ' '
				}
			}
		}
		words := text
		if rest != nil {
			words = string(rest)
		}
		for _, sp := range digitWordSpans(words) {
			add(words[sp[0]:sp[1]], minTextKID)
		}
	}
	return out
}

// kidOf returns the KID a reference holds, the one place the package
// reads one (for a credit's references, and for the payment's own KID):
// s without the white space around it, when that has a KID's form
// (isKID, its check digit not verified); else, when s is the KID written
// in groups of digits, as a bank prints it for the eye ("1234 5678 903",
// "12 345 678 903"), the groups' digits joined, so that the KID is the
// payment's only when the digits are its own, in its order, neither one
// more nor one less. The groups must be a grouping, not numbers that
// happen to stand side by side ("faktura 1234 5678903"):
//
//   - each separated from the next by exactly one grouping space (an
//     ASCII space, or a no-break, figure, thin or narrow no-break space),
//     nothing else: no tab, line break, double space, punctuation or
//     word;
//   - at least two groups, all of one length n of 2 to 5 digits but the
//     last (grouped from the start: "1234 5678 903"), or but the first
//     (grouped from the end, as thousands are: "12 345 678 903"), which
//     has 1 to n; the last group may end with '-' (a MOD-11 check value
//     of 10), counted as one of its characters;
//   - the digits joined end in a valid MOD-10 or MOD-11 check digit
//     (checkdigit.KID): digits joined by chance fail it about four times
//     in five, before they are compared at all.
//
// A KID so found still settles a payment only when it is the payment's
// KID exactly (contains in matches).
func kidOf(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if isKID(s) {
		return s, true
	}
	if len(s) > 4*maxKIDLen || strings.ContainsFunc(s, func(r rune) bool { return !isDigit(r) && r != '-' && !isGroupSpace(r) }) {
		return "", false // more than any KID in groups, or a word
	}
	var groups []string
	for len(s) > 0 {
		i := strings.IndexFunc(s, isGroupSpace)
		if i < 0 {
			groups = append(groups, s)
			break
		}
		groups = append(groups, s[:i])
		_, n := utf8.DecodeRuneInString(s[i:])
		s = s[i+n:]
		if s == "" {
			return "", false
		}
	}
	if !grouped(groups) {
		return "", false
	}
	k := strings.Join(groups, "")
	if !isKID(k) || checkdigit.KID(k) != nil {
		return "", false
	}
	return k, true
}

// maxKIDLen is the longest KID (docs/interface.md section 10).
const maxKIDLen = 25

// grouped reports whether groups is a KID written in groups (see kidOf):
// two or more, of digits (the last may end with '-'), all of one length
// of 2 to 5 but the last or but the first, which is no longer.
func grouped(groups []string) bool {
	if len(groups) < 2 {
		return false
	}
	for i, g := range groups {
		if i == len(groups)-1 {
			g = strings.TrimSuffix(g, "-")
		}
		if g == "" || !checkdigit.AllDigits(g) {
			return false
		}
	}
	even := func(inner []string, odd string) bool {
		n := len(inner[0])
		if n < 2 || n > 5 || len(odd) < 1 || len(odd) > n {
			return false
		}
		for _, g := range inner {
			if len(g) != n {
				return false
			}
		}
		return true
	}
	last := len(groups) - 1
	return even(groups[:last], groups[last]) || even(groups[1:], groups[0])
}

// isGroupSpace reports whether r is a space a bank may group a number's
// digits with: the ASCII space, the no-break space, the figure space, the
// thin space and the narrow no-break space.
func isGroupSpace(r rune) bool {
	switch r {
	case ' ', '\u00a0', '\u2007', '\u2009', '\u202f':
		return true
	}
	return false
}

// digitGroups returns the runs of a text that may be a number written in
// groups (see kidOf): two or more groups of digits, each separated from
// the next by one grouping space, the last perhaps ending with '-'; each
// run whole (never a part of one), standing apart (standsApart: "1
// 234.50" is an amount, "16:12 345" a time, "2026/1234 5678" an order
// number). At most maxKIDs runs.
func digitGroups(text string) []string {
	var out []string
	for _, sp := range digitGroupSpans(text) {
		if len(out) < maxKIDs && standsApart(text, sp[0], sp[1]) {
			out = append(out, text[sp[0]:sp[1]])
		}
	}
	return out
}

// digitGroupSpans returns where the runs of a text that may be a number
// written in groups are, standing apart or not (see digitGroups): the
// byte offsets of each one's start and end.
func digitGroupSpans(text string) [][2]int {
	var out [][2]int
	i := 0
	for i < len(text) {
		if !isDigit(rune(text[i])) {
			i++
			continue
		}
		start, end, groups := i, i, 0
		for {
			for end < len(text) && isDigit(rune(text[end])) {
				end++
			}
			groups++
			r, n := utf8.DecodeRuneInString(text[end:])
			if n == 0 || !isGroupSpace(r) || end+n >= len(text) || !isDigit(rune(text[end+n])) {
				break
			}
			end += n
		}
		if end < len(text) && text[end] == '-' {
			end++
		}
		i = end
		if groups >= 2 {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// digitWordSpans returns where the words of digits of a text are that may
// be a KID (see kidOf): each a whole run of digits, perhaps ending with
// '-' (a MOD-11 check value of 10), standing apart (standsApart), as the
// byte offsets of its start and end. A run that is a piece of a longer
// token is none: an order number ("2026/12345678903"), an invoice's
// ("INV-12345678903", "faktura12345678903"), an amount ("12345678903.50",
// "12345,00"), a date or a time.
func digitWordSpans(text string) [][2]int {
	var out [][2]int
	i := 0
	for i < len(text) {
		if !isDigit(rune(text[i])) {
			i++
			continue
		}
		start, end := i, i
		for end < len(text) && isDigit(rune(text[end])) {
			end++
		}
		if end < len(text) && text[end] == '-' {
			end++
		}
		i = end
		if standsApart(text, start, end) {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// standsApart reports whether text[start:end], a run of digits (in groups
// or not, perhaps ending with '-'), stands apart in text as a number of
// its own rather than a piece of a longer token: each side is the text's
// end, white space, or a mark that ends a word in prose ('.', ',', ':',
// ';', '!', '?', '=', '#', a quote or a bracket) with no digit beyond it.
// A letter, a digit, '-', '/', '_' or any other mark or symbol next to it
// joins it to a token ("2026/12345678903" is an order number,
// "INV-12345678903" an invoice's, "16:12 345" a time, "1 234.50" an
// amount): the safe reading is no KID, since a payment left waiting is
// reported, a credit taken for the wrong payment is not.
func standsApart(text string, start, end int) bool {
	apart := func(r, beyond rune) bool {
		switch {
		case unicode.IsSpace(r):
			return true
		case strings.ContainsRune(".,:;!?=#\"'()[]{}<>", r), unicode.In(r, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf):
			// A mark between digits makes one number of them: an
			// amount ("1 234.50"), a time ("16:12 345"), a date.
			return !isDigit(beyond)
		}
		return false
	}
	if start > 0 {
		before, n := utf8.DecodeLastRuneInString(text[:start])
		beyond, _ := utf8.DecodeLastRuneInString(text[:start-n])
		if !apart(before, beyond) && !afterKIDLabel(text[:start], apart) {
			return false
		}
	}
	if end < len(text) {
		after, n := utf8.DecodeRuneInString(text[end:])
		beyond, _ := utf8.DecodeRuneInString(text[end+n:])
		if !apart(after, beyond) {
			return false
		}
	}
	return true
}

// afterKIDLabel reports whether head, the text before a run of digits,
// ends with the word "KID" (any case) glued to the run, the word itself
// standing apart on its left as apart says: "KID12345678903" names its
// KID as plainly as "KID 12345678903" does. No other word glued to a run
// lets it stand apart ("faktura12345678903", "SKID12345678903").
func afterKIDLabel(head string, apart func(r, beyond rune) bool) bool {
	const label = "kid"
	if len(head) < len(label) || !strings.EqualFold(head[len(head)-len(label):], label) {
		return false
	}
	rest := head[:len(head)-len(label)]
	if rest == "" {
		return true
	}
	before, n := utf8.DecodeLastRuneInString(rest)
	beyond, _ := utf8.DecodeLastRuneInString(rest[:len(rest)-n])
	return apart(before, beyond)
}

// maxStructured bounds the structured references read from one member.
const maxStructured = 16

// structuredReferences reads the references of a structured remittance
// member as sent: a string, an object with "reference", or (array) a
// list of either. Anything else gives none.
func structuredReferences(raw json.RawMessage, array bool) []string {
	if len(raw) == 0 {
		return nil
	}
	one := func(m json.RawMessage) (string, bool) {
		var s string
		if json.Unmarshal(m, &s) == nil {
			return s, true
		}
		var o struct {
			Reference string `json:"reference"`
		}
		if json.Unmarshal(m, &o) == nil && o.Reference != "" {
			return o.Reference, true
		}
		return "", false
	}
	if !array {
		if s, ok := one(raw); ok {
			return []string{s}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		if s, ok := one(raw); ok { // a bank that sends one where the array belongs
			return []string{s}
		}
		return nil
	}
	var out []string
	for _, m := range items[:min(len(items), maxStructured)] {
		if s, ok := one(m); ok {
			out = append(out, s)
		}
	}
	return out
}

// isKID reports whether s has a KID's form: 2 to 25 digits, the last of
// which may be '-' (a MOD-11 check value of 10, docs/interface.md section
// 10). Its check digit is not verified: a KID is compared, not judged.
func isKID(s string) bool {
	if len(s) < 2 || len(s) > 25 {
		return false
	}
	for i := range len(s) {
		if !isDigit(rune(s[i])) && (s[i] != '-' || i != len(s)-1) {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// maxWords bounds the words kept of a text (140 characters make at most
// 70 words).
const maxWords = 70

// words returns the words of a remittance text as compared: ASCII letters
// and digits in lower case, split at white space and ASCII punctuation.
// Every other character ('æ', 'ø', 'å', the '?' or U+FFFD a re-encoding
// leaves, the bytes of a double encoding) is dropped inside its word, so
// that "Strøm", "Str?m" and "StrÃ¸m" all read "strm" (a bank that
// writes "Strom" instead is not recognised).
func words(s string) []string {
	var out []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 && len(out) < maxWords {
			out = append(out, w.String())
		}
		w.Reset()
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			w.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			w.WriteRune(r + ('a' - 'A'))
		case r == '?' || r >= utf8.RuneSelf:
			if isSpace(r) {
				flush()
			}
		default:
			flush() // ASCII space, punctuation, control
		}
	}
	flush()
	return out
}

func isSpace(r rune) bool {
	switch r {
	case '\u00a0', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008',
		'\u2009', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u0085':
		return true
	}
	return false
}

// minTruncated is the fewest characters (of the words, joined) of a text
// the bank cut short that still matches the payment's longer text.
const minTruncated = 25

// textMatches reports whether a booking's words echo a payment's: the
// payment's words appear in the booking's in order and together (a bank
// that adds a word, "Giro" or a date, before or after), or the booking's
// are the payment's cut short (the last one perhaps inside a word), at
// least minTruncated characters long.
func textMatches(pay, booked []string) bool {
	if len(pay) == 0 || len(booked) == 0 {
		return false
	}
	for i := 0; i+len(pay) <= len(booked); i++ {
		if equalWords(booked[i:i+len(pay)], pay) {
			return true
		}
	}
	if len(booked) > len(pay) {
		return false
	}
	n := 0
	for i, w := range booked {
		last := i == len(booked)-1
		if w != pay[i] && (!last || !strings.HasPrefix(pay[i], w)) {
			return false
		}
		n += len(w)
	}
	return n >= minTruncated
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fingerprint identifies a booking by its facts, not its id nor its key,
// so that the same credit read again under a new key (the sync's state
// lost, an account linked anew) is known: booking and value date,
// amount, counterparty accounts and names, texts and end-to-end id, and
// its occurrence among identical entries of its read (twins stay two).
func fingerprint(t *accounts.Transaction, occurrence int) uint64 {
	h := fnv.New64a()
	add := func(parts ...string) {
		for _, p := range parts {
			_, _ = h.Write([]byte(p))
			_, _ = h.Write([]byte{0})
		}
	}
	ref := func(r *accounts.AccountReference) string {
		if r == nil {
			return ""
		}
		return r.IBAN + "/" + r.BBAN
	}
	add(t.BookingDate.String(), t.ValueDate.String(), t.TransactionAmount.Text(), t.TransactionAmount.Currency,
		t.DebtorName, ref(t.DebtorAccount), t.CreditorName, ref(t.CreditorAccount),
		t.RemittanceInformationUnstructured, strings.Join(t.RemittanceInformationUnstructuredArray, "\x1f"),
		string(t.RemittanceInformationStructured), string(t.RemittanceInformationStructuredArray), t.EndToEndID,
		strconv.Itoa(occurrence))
	return h.Sum64()
}

// hashString is a 64-bit FNV-1a hash (stored: the same on every replica).
func hashString(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}
