package site

import (
	"cmp"
	"errors"
	"net/http"
	"slices"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

// latestTransactions is how many booked transactions the accounts page
// shows per account.
const latestTransactions = 5

type homePage struct {
	Connected, Corporate bool
	Payments             []paymentRow
}

type paymentRow struct {
	Ref, Creditor, Amount, StatusText string
}

// home shows the way in: connect the bank or pay, and the PSU's payments.
func (s *Site) home(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	sess, err := s.session(r, key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := homePage{Connected: sess != nil, Corporate: sess != nil && sess.Context == client.Corporate}
	list, err := s.listPayments(r.Context(), key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, rec := range list {
		p.Payments = append(p.Payments, paymentRow{Ref: rec.Ref, Creditor: rec.Creditor, Amount: rec.Amount, StatusText: statusText(rec)})
	}
	s.render(w, r, http.StatusOK, "home", frame{Title: "Home", Nav: "home"}, p)
}

// connect starts a bank-offered consent in a new SCA session and sends
// the PSU to the bank.
func (s *Site) connect(w http.ResponseWriter, r *http.Request) {
	call, err := s.sessions.Begin(r.Context(), s.user(w, r), present(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	consent, err := s.ais.StartConsent(r.Context(), call.Options)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.toBank(w, r, call, consent, purpose{Kind: kindConsent, Next: "/accounts"})
}

type accountsPage struct {
	Agreement string // the corporate agreement's name
	Accounts  []accountView
}

type accountView struct {
	Index            int
	Name, Number     string
	Balance          string
	Transactions     []transactionView
	TransactionsNote string
}

type transactionView struct{ Date, Text, Amount string }

// accounts shows the PSU's accounts with their balances and latest
// transactions, or sends the PSU to the bank when the bank asks for SCA
// (no session yet, the hour passed, a new agreement).
func (s *Site) accounts(w http.ResponseWriter, r *http.Request) {
	key := s.user(w, r)
	psu := present(r)
	call, err := s.sessions.Prepare(r.Context(), key, psu)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if call.Session != nil && call.Session.NeedsCorporateID() {
		http.Redirect(w, r, "/company", http.StatusSeeOther)
		return
	}
	list, err := s.ais.List(r.Context(), &accounts.ListOptions{WithBalance: true}, call.Options)
	if errors.Is(err, client.ErrSCARequired) {
		s.toBank(w, r, call, err, purpose{Kind: kindConsent, Next: "/accounts"})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := accountsPage{}
	if call.Session.Context == client.Corporate {
		if ags, err := s.ais.Agreements(r.Context(), call.Options); err == nil {
			for _, ag := range ags {
				if ag.ID == call.Session.PSUCorporateID {
					p.Agreement = cmp.Or(ag.Name, "unnamed agreement")
				}
			}
		}
	}
	var own []ownAccount
	for i, acc := range list {
		v := accountView{Index: i + 1, Name: cmp.Or(acc.DisplayName, acc.Name, "Account"), Number: cmp.Or(acc.BBAN, acc.IBAN)}
		if len(acc.Balances) > 0 {
			v.Balance = acc.Balances[0].BalanceAmount.String()
		}
		page, err := s.ais.Transactions(r.Context(), acc.ResourceID, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, call.Options)
		if err != nil {
			s.log.Warn("webapp: transactions", "err", err)
			v.TransactionsNote = "The latest transactions cannot be shown right now."
		} else {
			v.Transactions = latest(page.Booked)
		}
		p.Accounts = append(p.Accounts, v)
		if acc.BBAN != "" {
			own = append(own, ownAccount{Name: v.Name, Number: acc.BBAN})
		}
	}
	if err := s.saveOwn(r.Context(), key, own); err != nil {
		s.log.Warn("webapp: keeping the account list", "err", err)
	}
	s.render(w, r, http.StatusOK, "accounts", frame{Title: "Accounts", Nav: "accounts"}, p)
}

// latest returns the newest booked transactions, newest first.
func latest(booked []accounts.Transaction) []transactionView {
	sorted := slices.Clone(booked)
	slices.SortStableFunc(sorted, func(a, b accounts.Transaction) int {
		return cmp.Compare(b.BookingDate.String(), a.BookingDate.String())
	})
	var out []transactionView
	for _, t := range sorted[:min(len(sorted), latestTransactions)] {
		text := cmp.Or(t.RemittanceInformationUnstructured, t.CreditorName, t.DebtorName, "–")
		out = append(out, transactionView{Date: t.BookingDate.String(), Text: text, Amount: t.TransactionAmount.String()})
	}
	return out
}
