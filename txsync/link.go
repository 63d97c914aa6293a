package txsync

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
)

// Linked is what [Syncer.Link] found: the key of every listed account,
// and the accounts the owner had before that the bank no longer lists.
type Linked struct {
	// Accounts are the listed accounts, then the card accounts, in the
	// order given.
	Accounts []LinkedAccount
	// Gone are the keys of the owner's accounts that an earlier Link
	// listed and this one does not (closed, or left out of the new
	// consent). Their state stays until its ttl ends; a later Link that
	// lists them again finds it.
	Gone []AccountKey
}

// LinkedAccount is one account of a [Linked].
type LinkedAccount struct {
	// ResourceID is the account's id under the new consent.
	ResourceID string
	// Card marks a card account.
	Card bool
	// Key is the account's key: the one it had under an earlier consent
	// when its IBAN, BBAN (or masked PAN) is the same.
	Key AccountKey
	// New is set for an account never linked before.
	New bool
}

// identity is what identifies an account across consents: its IBAN, else
// its BBAN, else its MSISDN, else (nothing better known) its resource id.
func identity(a *accounts.Account) string {
	switch {
	case a.IBAN != "":
		return "iban:" + compact(a.IBAN)
	case a.BBAN != "":
		return "bban:" + compact(a.BBAN)
	case a.MSISDN != "":
		return "msisdn:" + compact(a.MSISDN)
	}
	return "resource:" + a.ResourceID
}

// cardIdentity identifies a card account: its masked PAN and currency,
// else its resource id.
func cardIdentity(k *accounts.CardAccount) string {
	if k.MaskedPAN != "" {
		return "pan:" + compact(k.MaskedPAN) + "/" + strings.ToUpper(k.Currency)
	}
	return "resource:" + k.ResourceID
}

func compact(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }

// digest is a store key element for a personal identifier: no account
// number or id appears in a store key.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func newAccountKey() AccountKey {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return AccountKey("a" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])))
}

// checkAccount refuses a key the SDK did not make.
func checkAccount(a AccountKey) error {
	if len(a) != 17 || a[0] != 'a' || strings.Trim(string(a[1:]), "abcdefghijklmnopqrstuvwxyz234567") != "" {
		return fmt.Errorf("%w: not an account key of this package", ErrInvalidOption)
	}
	return nil
}

// Link records the accounts and card accounts of a consent (as listed
// right after the SCA) for owner, the TPP's own stable id of the PSU (a
// user id; it never leaves the store, hashed). Each account keeps the
// [AccountKey] it had under an earlier consent of owner when its IBAN
// (else BBAN) is the same, a card account when its masked PAN and
// currency are: the sync state, and the TPP's entry keys, carry over
// to the new resource ids. Accounts listed under one IBAN with different
// currencies (the sub-accounts of a multi-currency account) are told
// apart by their currency, whatever their order. Accounts the owner had before and this list
// lacks are reported in Linked.Gone.
//
// Two card accounts of one owner with the same masked PAN and currency
// are told apart by their order in the list. An account listed again
// under the same resource id is that account, linked once (Linked lists
// it once); one resource id listed for two different accounts (another
// IBAN, an account and a card account) is refused with
// [ErrInvalidOption], nothing linked, and so is a list of more than
// [MaxLinkAccounts] accounts or card accounts.
func (s *Syncer) Link(ctx context.Context, owner string, accts []accounts.Account, cards []accounts.CardAccount) (*Linked, error) {
	if owner == "" {
		return nil, fmt.Errorf("%w: empty owner", ErrInvalidOption)
	}
	// The bank's list is checked before anything is written: a resource
	// id listed twice for one account is that account once (its list sent
	// again); for two accounts it names neither.
	type listed struct {
		ident string
		card  bool
	}
	var accts1 []accounts.Account
	var cards1 []accounts.CardAccount
	ids := map[string]listed{}
	first := func(resourceID, ident string, card bool) (bool, error) {
		if resourceID == "" {
			return false, fmt.Errorf("%w: an account without resource id", ErrInvalidOption)
		}
		l, dup := ids[resourceID]
		if dup && l != (listed{ident, card}) {
			return false, fmt.Errorf("%w: one resource id listed for two accounts", ErrInvalidOption)
		}
		ids[resourceID] = listed{ident, card}
		return !dup, nil
	}
	for i := range accts {
		ok, err := first(accts[i].ResourceID, identity(&accts[i]), false)
		if err != nil {
			return nil, err
		}
		if ok {
			accts1 = append(accts1, accts[i])
		}
	}
	for i := range cards {
		ok, err := first(cards[i].ResourceID, cardIdentity(&cards[i]), true)
		if err != nil {
			return nil, err
		}
		if ok {
			cards1 = append(cards1, cards[i])
		}
	}
	if len(accts1) > MaxLinkAccounts || len(cards1) > MaxLinkAccounts {
		return nil, fmt.Errorf("%w: more than %d accounts or card accounts", ErrInvalidOption, MaxLinkAccounts)
	}
	accts, cards = accts1, cards1
	out := &Linked{}
	seen := map[string]int{}
	// The sub-accounts of a multi-currency account share its IBAN: each
	// is told by its currency, not by its place in the list, which may
	// change from one consent to the next.
	currencies := map[string]map[string]bool{}
	for i := range accts {
		id, cur := identity(&accts[i]), strings.ToUpper(accts[i].Currency)
		if currencies[id] == nil {
			currencies[id] = map[string]bool{}
		}
		currencies[id][cur] = true
	}
	legacySeen := map[string]int{}
	link := func(resourceID, ident, currency string, card bool) error {
		// legacy is the name versions before currencies told sub-accounts
		// apart gave the account (its place among those of its IBAN): the
		// account keeps the key it had under it.
		legacy := ""
		if cs := currencies[ident]; !card && len(cs) > 1 {
			legacy = ident
			if n := legacySeen[ident]; n > 0 {
				legacy += "#" + strconv.Itoa(n)
			}
			legacySeen[ident]++
			ident += "/" + strings.ToUpper(currency)
		}
		if n := seen[ident]; n > 0 {
			ident += "#" + strconv.Itoa(n)
		}
		seen[ident]++
		var before AccountKey
		if legacy != "" {
			b, err := s.st.Get(ctx, "txsync/id/"+digest(owner, legacy))
			if err != nil && !errors.Is(err, store.ErrNotStored) {
				return fmt.Errorf("txsync: %w", err)
			}
			if checkAccount(AccountKey(b)) == nil {
				before = AccountKey(b)
			}
		}
		la := LinkedAccount{ResourceID: resourceID, Card: card}
		err := s.st.Update(ctx, "txsync/id/"+digest(owner, ident), func(old []byte, found bool) ([]byte, time.Duration, error) {
			la.Key, la.New = AccountKey(old), !found
			if !found || checkAccount(la.Key) != nil {
				la.Key, la.New = newAccountKey(), true
				if before != "" {
					la.Key, la.New = before, false
				}
			}
			return []byte(la.Key), s.linkTTL(), nil
		})
		if err == nil {
			err = s.st.Put(ctx, resourceKey(resourceID), []byte(la.Key), s.linkTTL())
		}
		if err != nil {
			return fmt.Errorf("txsync: %w", err)
		}
		out.Accounts = append(out.Accounts, la)
		return nil
	}
	for i := range accts {
		if err := link(accts[i].ResourceID, identity(&accts[i]), accts[i].Currency, false); err != nil {
			return nil, err
		}
	}
	for i := range cards {
		if err := link(cards[i].ResourceID, cardIdentity(&cards[i]), "", true); err != nil {
			return nil, err
		}
	}
	now := make([]AccountKey, len(out.Accounts))
	linked := make(map[AccountKey]struct{}, len(out.Accounts))
	for i, a := range out.Accounts {
		now[i] = a.Key
		linked[a.Key] = struct{}{}
	}
	err := s.st.Update(ctx, "txsync/owner/"+digest(owner), func(old []byte, found bool) ([]byte, time.Duration, error) {
		var before []AccountKey
		if found {
			_ = json.Unmarshal(old, &before) // unreadable: nothing known before
		}
		out.Gone = nil
		for _, k := range before {
			if _, ok := linked[k]; !ok {
				out.Gone = append(out.Gone, k)
			}
		}
		b, err := json.Marshal(now)
		return b, s.linkTTL(), err
	})
	if err != nil {
		return nil, fmt.Errorf("txsync: %w", err)
	}
	return out, nil
}

// MaxLinkAccounts bounds the accounts, and separately the card
// accounts, one [Syncer.Link] takes, once repeats of a resource id are
// dropped: the bound a session keeps of a consent's accounts
// (sca.MaxAccounts), far above any PSU's count. A bank's listing may hold
// some 20,000 accounts within the client's limits on an answer, and Link
// writes two records for each (an id record and the resource's), one
// store call each: 40,000 writes, half a second on a memory store and
// far longer on a database, for a list no session can remember. A
// longer list is refused with [ErrInvalidOption] before anything is
// written.
const MaxLinkAccounts = 1000

// maxConsent is the longest a consent may last (sca.MaxConsentValidity):
// the reads that need a Link's records come within it.
const maxConsent = 366 * 24 * time.Hour

// linkTTL is how long a Link's records are kept: reads do not write
// them, and the reads of the consent they were written for come within
// maxConsent of the Link, so that they are kept for the state's TTL
// after the last of those reads (a re-consent then finds the account's
// key).
func (s *Syncer) linkTTL() time.Duration { return s.ttl + maxConsent }

func resourceKey(resourceID string) string { return "txsync/resource/" + digest(resourceID) }

// KeyOf returns the key [Syncer.Link] recorded for a resource id, or
// an error matching [ErrNotLinked].
func (s *Syncer) KeyOf(ctx context.Context, resourceID string) (AccountKey, error) {
	b, err := s.st.Get(ctx, resourceKey(resourceID))
	if errors.Is(err, store.ErrNotStored) {
		return "", ErrNotLinked
	}
	if err != nil {
		return "", fmt.Errorf("txsync: %w", err)
	}
	a := AccountKey(b)
	if checkAccount(a) != nil {
		return "", ErrNotLinked
	}
	return a, nil
}
