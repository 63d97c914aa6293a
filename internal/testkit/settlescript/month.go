package settlescript

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// Fate is what the script's bank does with a payment.
type Fate uint8

// The fates of the script's payments.
const (
	// OnTime: credited within its window.
	OnTime Fate = iota + 1
	// Late: credited two banking days after its window.
	Late
	// Fee: credited within its window, less a fee.
	Fee
	// Returned: credited, then reversed three banking days later.
	Returned
	// Never: accepted, never credited (it stalls).
	Never
	// Rejected: rejected by the bank, never credited.
	Rejected
)

var fateNames = [...]string{OnTime: "on time", Late: "late", Fee: "fee", Returned: "returned", Never: "never", Rejected: "rejected"}

// String names the fate.
func (f Fate) String() string {
	if int(f) < len(fateNames) && fateNames[f] != "" {
		return fateNames[f]
	}
	return "Fate(" + strconv.Itoa(int(f)) + ")"
}

// Plan is one payment of the script and what the bank does with it.
type Plan struct {
	Payment reconcile.Payment
	Fate    Fate
	// Twin is set for both payments of an identical pair.
	Twin bool
	// Deadline is the last banking day of its window.
	Deadline date.Date
	// CreditOn is the day the bank books its credit (zero: never),
	// Credited the amount; ReturnOn the day the credit is reversed.
	CreditOn date.Date
	Credited money.Amount
	ReturnOn date.Date
	// Pending lists the credit as pending the day before.
	Pending bool

	credit, reversal string // the bank's transaction ids
}

// Config sizes a month.
type Config struct {
	// Start is the first day; Days the days payments are made on, Tail
	// the days the rounds go on after, so that every window ends.
	Start      date.Date
	Days, Tail int
	// PerDay is the payments made each day; Strangers the credits from
	// elsewhere over the month.
	PerDay, Strangers int
	// ReconsentDay is the day (from 0) the merchant gives a new consent,
	// before that day's round.
	ReconsentDay int
	// Seed makes the script's choices.
	Seed uint64
}

// Month is the measure of package reconcile (docs/reconcile.md): 30
// days from Monday 16 March 2026 (Easter and its holidays inside), 7
// payments a day (210), 20 credits from elsewhere, a re-consent on day 15.
var Month = Config{Start: date.Date{Year: 2026, Month: time.March, Day: 16}, Days: 30, Tail: 12, PerDay: 7,
	Strangers: 20, ReconsentDay: 15, Seed: 39}

// eurNOK is the bank's rate for euro credits: the script's, never the
// reconciler's.
var eurNOK = decimal.RequireFromString("11.4720")

// priceList are the merchant's invoice amounts: many payments share one,
// and so do some credits from elsewhere.
var priceList = []string{"149.00", "199.00", "249.00", "299.00", "349.00", "399.00", "499.00", "590.00", "790.00", "990.00",
	"1250.00", "1490.00", "1990.00", "2490.00", "4990.00"}

// kid returns a KID for an invoice number: its digits and a MOD-10
// (Luhn) check digit.
func kid(invoice int) string {
	s := fmt.Sprintf("%09d", invoice)
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return s + strconv.Itoa((10-sum%10)%10)
}

// Script is a month's plans and credits from elsewhere, by day.
type Script struct {
	Config    Config
	Plans     []*Plan
	Strangers []Stranger
}

// Stranger is a credit from elsewhere: no payment of the TPP's.
type Stranger struct {
	Entry
	id string
}

// NewScript makes the month's script.
func NewScript(c Config) *Script {
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x5eed))
	s := &Script{Config: c}
	n := 0
	for d := range c.Days {
		day := date.Of(c.Start.Time(nil).AddDate(0, 0, d))
		for j := 0; j < c.PerDay; j++ {
			created := At(day, 9).Add(time.Duration(j) * 7 * time.Minute)
			s.Plans = append(s.Plans, s.plan(rng, n, created)...)
			n++
		}
	}
	for i := range c.Strangers {
		d := date.Of(c.Start.Time(nil).AddDate(0, 0, 1+i*c.Days/max(c.Strangers, 1)))
		for !date.IsBankingDay(d) {
			d = date.Of(d.Time(nil).AddDate(0, 0, 1))
		}
		amount := money.MustParse(priceList[rng.IntN(len(priceList))], "NOK")
		text := []string{"Overføring", "Vipps", "Gave", "Faktura 9" + strconv.Itoa(1000+i), "Tilbakebetaling", "KID " + kid(900000+i)}[i%6]
		s.Strangers = append(s.Strangers, Stranger{Entry: Entry{Day: d, Amount: amount, Debtor: "Ukjent Betaler " + strconv.Itoa(i), Text: text}})
	}
	return s
}

// plan makes payment n (and its twin) created at created.
func (s *Script) plan(rng *rand.Rand, n int, created time.Time) []*Plan {
	id := fmt.Sprintf("0c39%04d-7e1a-4c2b-9d3f-%012d", n, n)
	amount := money.MustParse(priceList[rng.IntN(len(priceList))], "NOK")
	p := &Plan{Fate: OnTime, Payment: reconcile.Payment{RequestID: id, Created: created, Product: payments.ProductNorwegianDomestic,
		Amount: amount, CreditorBBAN: MerchantBBAN, KID: kid(100000 + n), Status: payments.StatusACTC, StatusAt: created}}
	var twin *Plan
	switch n % 20 {
	case 10, 11: // remittance text only
		p.Payment.KID, p.Payment.Remittance = "", "Faktura "+strconv.Itoa(5000+n)+" Eksempel Handel"
	case 12: // twins: two identical payments on one day, by text
		p.Payment.KID, p.Payment.Remittance, p.Payment.Amount = "", "Kaffeavtale månedlig", money.MustParse("49.00", "NOK")
		p.Twin = true
		t := *p
		t.Payment.RequestID = id[:len(id)-1] + "t"
		t.Payment.Created = created.Add(time.Minute)
		t.Payment.StatusAt = t.Payment.Created
		twin = &t
	case 13:
		p.Fate = Late
	case 14:
		p.Fate = Fee
	case 15:
		p.Fate = Returned
	case 16:
		p.Fate = Never
	case 17: // SEPA in euro, by end-to-end id, credited in kroner
		p.Payment.Product, p.Payment.KID, p.Payment.EndToEndID = payments.ProductSEPA, "", "E2E-"+strconv.Itoa(n)
		p.Payment.Amount = money.MustParse(strconv.Itoa(20+rng.IntN(180))+".00", "EUR")
		p.Payment.CreditorBBAN, p.Payment.CreditorIBAN = "", MerchantIBAN
	case 18: // instant
		p.Payment.Product = payments.ProductInstantNorwegianDomestic
	case 19:
		if n%40 == 19 {
			p.Fate, p.Payment.Status = Rejected, payments.StatusRJCT
		} else { // text, less a small fee
			p.Payment.KID, p.Payment.Remittance, p.Fate = "", "Medlemskap "+strconv.Itoa(n)+" Eksempel klubb", Fee
		}
	}
	out := []*Plan{p}
	if twin != nil {
		out = append(out, twin)
	}
	for _, q := range out {
		s.schedule(q, n)
	}
	return out
}

// schedule sets when the bank books q's credit and its reversal.
func (s *Script) schedule(q *Plan, n int) {
	sch, _ := reconcile.SchemeOf(q.Payment.Product)
	start := date.Of(q.Payment.Created.In(date.Oslo()))
	q.Deadline = sch.Deadline(start)
	onTime := date.AddBankingDays(start, n%2) // the same banking day or the next, within every window but instant's
	if sch == reconcile.Instant {
		onTime = start // instant books at once, weekends too
	}
	if onTime.Time(nil).After(q.Deadline.Time(nil)) {
		onTime = q.Deadline
	}
	q.Credited = q.Payment.Amount
	if q.Payment.Amount.Currency == "EUR" {
		q.Credited = money.Amount{Value: q.Payment.Amount.Value.Mul(eurNOK).Round(2), Currency: "NOK"}
	}
	switch q.Fate {
	case OnTime, Fee, Returned:
		q.CreditOn = onTime
	case Late:
		q.CreditOn = date.AddBankingDays(q.Deadline, 2)
	}
	if q.Fate == Fee {
		fee := decimal.RequireFromString("25.00")
		if q.Payment.KID == "" { // a text match takes at most reconcile.FeeShare
			fee = q.Payment.Amount.Value.Mul(decimal.RequireFromString("0.02")).Round(2)
		}
		q.Credited = money.Amount{Value: q.Credited.Value.Sub(fee), Currency: q.Credited.Currency}
	}
	if q.Fate == Returned {
		q.ReturnOn = date.AddBankingDays(q.CreditOn, 3)
	}
	q.Pending = q.Fate == OnTime && n%7 == 3 && sch != reconcile.Instant && !onTime.Time(nil).Equal(start.Time(nil))
}

// entryOf is the bank's credit of q.
func (q *Plan) entryOf() Entry {
	text := q.Payment.Remittance
	if q.Payment.KID != "" {
		text = q.Payment.KID // the echo the SDK's emulator gives a KID
	}
	return Entry{Day: q.CreditOn, Amount: q.Credited, Debtor: "Betaler " + q.Payment.RequestID[4:8], Text: text,
		EndToEndID: q.Payment.EndToEndID, Pending: q.Pending}
}

// Day is what happened on one day of the month: the bank's bookings
// and the reconciler's round.
type Day struct {
	// N is the day (from 0), Date its date.
	N    int
	Date date.Date
	// Created are the payments made that day; Reconsent is set on the
	// day of the new consent.
	Created   int
	Reconsent bool
	Delta     *txsync.Delta
	Round     *reconcile.Round
}

// Play runs the script against r: each day at 09:00 the payments are made
// and tracked (accepted, or rejected), at 18:00 the bank books the day's
// credits and reversals, and at 20:00 the TPP reads the account and
// applies the sync's delta. each is called after every day's round.
func (s *Script) Play(ctx context.Context, w *World, r *reconcile.Reconciler, each func(Day)) (*Result, error) {
	if err := r.Watch(ctx, w.Key, w.Account); err != nil {
		return nil, err
	}
	res := newResult(s)
	stranger := 0
	for n := range s.Config.Days + s.Config.Tail {
		day := date.Of(s.Config.Start.Time(nil).AddDate(0, 0, n))
		d := Day{N: n, Date: day}
		if n == s.Config.ReconsentDay {
			if err := w.Reconsent(ctx, "enc!!merchant-consent-"+strconv.Itoa(n)); err != nil {
				return nil, err
			}
			if err := r.Watch(ctx, w.Key, w.Account); err != nil {
				return nil, err
			}
			d.Reconsent = true
		}
		for _, p := range s.Plans {
			if date.Of(p.Payment.Created.In(date.Oslo())) != day {
				continue
			}
			w.Clock.Set(p.Payment.Created)
			st, err := r.Track(ctx, p.Payment)
			if err != nil {
				return nil, fmt.Errorf("track %s: %w", p.Payment.RequestID, err)
			}
			if st.Settlement == reconcile.NotApplicable {
				return nil, fmt.Errorf("track %s: not applicable", p.Payment.RequestID)
			}
			d.Created++
		}
		w.Clock.Set(At(day, 18))
		for _, p := range s.Plans {
			if p.CreditOn == day || (p.Pending && p.CreditOn == date.Of(day.Time(nil).AddDate(0, 0, 1))) {
				if p.credit == "" {
					p.credit = w.Book(p.entryOf())
				}
			}
			if p.ReturnOn == day {
				p.reversal = w.Book(Entry{Day: day, Amount: money.Amount{Value: p.Credited.Value.Neg(), Currency: p.Credited.Currency},
					Debtor: "Retur", Text: "Retur " + p.entryOf().Text})
			}
		}
		for ; stranger < len(s.Strangers) && s.Strangers[stranger].Day == day; stranger++ {
			s.Strangers[stranger].id = w.Book(s.Strangers[stranger].Entry)
		}
		w.Clock.Set(At(day, 20))
		delta, err := w.Read(ctx)
		if err != nil {
			return nil, err
		}
		round, err := r.Apply(ctx, delta)
		if err != nil {
			return nil, err
		}
		d.Delta, d.Round = delta, round
		res.add(w, day, round)
		if each != nil {
			each(d)
		}
	}
	if err := res.finish(ctx, w, r); err != nil {
		return nil, err
	}
	return res, nil
}
