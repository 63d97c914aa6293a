package syncscript

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// Event is one thing the bank did before a round's read, for the
// example's output.
type Event string

// Advance moves the clock to day (1 to [Days]) and plays that day's
// script; at [ReconsentDay] it also plays the new consent (new resource
// ids; the TPP lists the accounts again within the hour). It returns what
// the bank did.
func (w *World) Advance(ctx context.Context, day int) ([]Event, error) {
	if day <= w.Day || day > Days {
		return nil, fmt.Errorf("syncscript: day %d after day %d", day, w.Day)
	}
	w.Day = day
	w.Clock.set(w.start.Add(RoundEvery * time.Duration(day)))
	var ev []Event
	say := func(format string, args ...any) { ev = append(ev, Event(fmt.Sprintf(format, args...))) }
	d := strconv.Itoa(day)
	today := w.start.AddDate(0, 0, day)

	// Yesterday's pending card purchases at Rema: booked today under a new
	// id, some for another amount (a tip), every 7th dropped instead.
	for _, e := range w.pendingOf(0, "Rema") {
		switch {
		case day%7 == 0:
			if err := w.drop(0, e); err != nil {
				return nil, err
			}
			say("pending %s dropped", e.fact.Text)
		case day%3 == 0:
			if err := w.book(0, e, day, e.fact.Amount, "-5.00"); err != nil {
				return nil, err
			}
			say("pending %s booked with a new id for 5.00 more", e.fact.Text)
		default:
			if err := w.book(0, e, day, e.fact.Amount, ""); err != nil {
				return nil, err
			}
			say("pending %s booked with a new id", e.fact.Text)
		}
	}
	// Yesterday's pending coffee twins are booked today.
	for _, e := range w.pendingOf(0, "Kaffebar") {
		if err := w.book(0, e, day, e.fact.Amount, ""); err != nil {
			return nil, err
		}
		say("pending twin %s booked with a new id", e.fact.Text)
	}
	// Today's entries.
	if _, err := w.add(0, emulator.SeedTransaction{BookingDate: today, Amount: "-" + strconv.Itoa(100+day) + ".00",
		CounterpartyName: "Kiwi", Remittance: "Kiwi d" + d}); err != nil {
		return nil, err
	}
	say("booked Kiwi d%s", d)
	if _, err := w.add(0, emulator.SeedTransaction{Pending: true, BookingDate: today, Amount: "-" + strconv.Itoa(50+day) + ".50",
		CounterpartyName: "Rema", Remittance: "Rema d" + d}); err != nil {
		return nil, err
	}
	say("pending Rema d%s", d)
	switch day {
	case 3, 10, 20:
		if err := w.twins(0, emulator.SeedTransaction{BookingDate: today, Amount: "-49.00", CounterpartyName: "Kaffebar", Remittance: "Kaffe"}); err != nil {
			return nil, err
		}
		say("booked twins: 2 x Kaffe 49.00")
	case 12:
		if err := w.twins(0, emulator.SeedTransaction{Pending: true, BookingDate: today, Amount: "-49.00", CounterpartyName: "Kaffebar", Remittance: "Kaffe"}); err != nil {
			return nil, err
		}
		say("pending twins: 2 x Kaffe 49.00")
	case 9:
		if _, err := w.add(0, emulator.SeedTransaction{BookingDate: today.AddDate(0, 0, -3), Amount: "-310.00",
			CounterpartyName: "Fjordkraft", Remittance: "Strøm, booked late"}); err != nil {
			return nil, err
		}
		say("booked Fjordkraft under a date 3 days back")
	case 25:
		if _, err := w.add(0, emulator.SeedTransaction{BookingDate: today, Amount: "30000.00", CounterpartyName: "Arbeidsgiver AS", Remittance: "Lønn"}); err != nil {
			return nil, err
		}
		say("booked Lønn")
	}
	if day%3 == 0 {
		if _, err := w.add(1, emulator.SeedTransaction{BookingDate: today, Amount: "-" + strconv.Itoa(day) + ".00", CounterpartyName: "Vipps", Remittance: "Vipps d" + d}); err != nil {
			return nil, err
		}
		say("account 2: booked Vipps d%s", d)
	}
	// Id churn: the bank gives booked entries of the last days new ids.
	switch day {
	case 5, 12, 18, 26:
		n, err := w.churn(0, day-2, 2)
		if err != nil {
			return nil, err
		}
		say("%d booked entries of the last 2 days get new ids", n)
	case 22:
		n, err := w.churn(0, day-5, 100)
		if err != nil {
			return nil, err
		}
		n1, err := w.churn(1, day-5, 100)
		if err != nil {
			return nil, err
		}
		say("%d booked entries of the last 5 days get new ids", n+n1)
	}
	if day == ReconsentDay {
		cu, err := w.Srv.Control().Reconsent(w.cert, w.Customer.CustomerID)
		if err != nil {
			return nil, err
		}
		w.Customer = cu
		if err := w.newSession(); err != nil {
			return nil, err
		}
		say("re-consent: the accounts have new resource ids")
	}
	return ev, nil
}

func addAmounts(a, b string) string {
	return decimal.RequireFromString(a).Add(decimal.RequireFromString(b)).StringFixed(2)
}

func deleteEntry(es []*entry, e *entry) []*entry {
	return slices.DeleteFunc(es, func(x *entry) bool { return x == e })
}

// pendingOf returns account i's scripted pending entries of party.
func (w *World) pendingOf(i int, party string) []*entry {
	var out []*entry
	for _, e := range w.bank[i] {
		if e.ref != "" && e.fact.Pending && e.fact.Party == party {
			out = append(out, e)
		}
	}
	return out
}

func (w *World) add(i int, t emulator.SeedTransaction) (*entry, error) {
	ref, err := w.Srv.Control().AddTransaction(w.Customer.Accounts[i].ID, t)
	if err != nil {
		return nil, err
	}
	e := &entry{ref: ref, fact: factOfSeed(t)}
	w.bank[i] = append(w.bank[i], e)
	return e, nil
}

func (w *World) twins(i int, t emulator.SeedTransaction) error {
	refs, err := w.Srv.Control().AddTwins(w.Customer.Accounts[i].ID, t, 2)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		w.bank[i] = append(w.bank[i], &entry{ref: ref, fact: factOfSeed(t)})
	}
	return nil
}

// book books pending entry e on day, for amount plus extra (a decimal
// to add, "" for none).
func (w *World) book(i int, e *entry, day int, amount, extra string) error {
	if extra != "" {
		amount = addAmounts(amount, extra)
	}
	newAmount := ""
	if amount != e.fact.Amount {
		newAmount = amount
	}
	ref, err := w.Srv.Control().BookPending(w.Customer.Accounts[i].ID, e.ref, w.start.AddDate(0, 0, day), newAmount)
	if err != nil {
		return err
	}
	e.ref = ref
	e.fact.Pending, e.fact.Date, e.fact.Amount = false, w.date(day), amount
	return nil
}

func (w *World) drop(i int, e *entry) error {
	if err := w.Srv.Control().DropPending(w.Customer.Accounts[i].ID, e.ref); err != nil {
		return err
	}
	w.bank[i] = deleteEntry(w.bank[i], e)
	return nil
}

// churn gives up to n booked entries of account i dated from day on new
// ids and returns how many.
func (w *World) churn(i, from, n int) (int, error) {
	done := 0
	for _, e := range w.bank[i] {
		if done == n {
			break
		}
		if e.ref == "" || e.fact.Pending || e.fact.Date.Before(w.date(from)) {
			continue
		}
		ref, err := w.Srv.Control().ChangeTransactionID(w.Customer.Accounts[i].ID, e.ref)
		if err != nil {
			return done, err
		}
		e.ref = ref
		done++
	}
	return done, nil
}
