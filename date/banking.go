package date

import "time"

// The Norwegian banking calendar, the one place the SDK keeps it: which
// dates Norwegian banks settle payments on. Package reconcile counts a
// payment's expected booking window in these days.
//
// A banking day is a weekday that is neither a Norwegian public holiday
// (helligdag or høytidsdag, by the law on public holidays: New Year's
// Day, Maundy Thursday, Good Friday, Easter Sunday and Monday, 1 May,
// 17 May, Ascension Day, Whit Sunday and Monday, Christmas Day and
// Boxing Day) nor one of the two days the banks close although no law
// makes them holidays: Christmas Eve (24 December) and New Year's Eve
// (31 December), when Norges Bank's settlement system, and with it the
// banks' clearing (NICS), settles nothing. ASSUMPTION (docs/interface.md
// is silent): the platform's banks book on these banking days.

// Easter returns Easter Sunday of year in the Gregorian calendar (the
// anonymous Gregorian algorithm of Meeus, Jones and Butcher), from which
// Norway's movable holidays are counted.
func Easter(year int) Date {
	a := mod(year, 19)
	b, c := floorDiv(year, 100), mod(year, 100)
	d, e := floorDiv(b, 4), mod(b, 4)
	f := floorDiv(b+8, 25)
	g := floorDiv(b-f+1, 3)
	h := mod(19*a+b-d-g+15, 30)
	i, k := floorDiv(c, 4), mod(c, 4)
	l := mod(32+2*e+2*i-h-k, 7)
	m := floorDiv(a+11*h+22*l, 451)
	month := floorDiv(h+l-7*m+114, 31)
	day := mod(h+l-7*m+114, 31) + 1
	return Date{Year: year, Month: time.Month(month), Day: day}
}

// floorDiv and mod divide rounding down, so that Easter is defined for
// every year an int holds (a year before 1583 is computed in the
// proleptic Gregorian calendar).
func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func mod(a, b int) int { return a - b*floorDiv(a, b) }

// Holiday names, as [NorwegianHoliday] returns them.
const (
	NewYearsDay     = "New Year's Day"
	MaundyThursday  = "Maundy Thursday"
	GoodFriday      = "Good Friday"
	EasterSunday    = "Easter Sunday"
	EasterMonday    = "Easter Monday"
	LabourDay       = "Labour Day"
	ConstitutionDay = "Constitution Day"
	AscensionDay    = "Ascension Day"
	WhitSunday      = "Whit Sunday"
	WhitMonday      = "Whit Monday"
	ChristmasEve    = "Christmas Eve"
	ChristmasDay    = "Christmas Day"
	BoxingDay       = "Boxing Day"
	NewYearsEve     = "New Year's Eve"
)

// fixedHolidays are the days banks close on the same date every year.
var fixedHolidays = [...]struct {
	month time.Month
	day   int
	name  string
}{
	{time.January, 1, NewYearsDay},
	{time.May, 1, LabourDay},
	{time.May, 17, ConstitutionDay},
	{time.December, 24, ChristmasEve},
	{time.December, 25, ChristmasDay},
	{time.December, 26, BoxingDay},
	{time.December, 31, NewYearsEve},
}

// easterHolidays are the days banks close counted from Easter Sunday.
var easterHolidays = [...]struct {
	offset int
	name   string
}{
	{-3, MaundyThursday},
	{-2, GoodFriday},
	{0, EasterSunday},
	{1, EasterMonday},
	{39, AscensionDay},
	{49, WhitSunday},
	{50, WhitMonday},
}

// NorwegianHoliday reports whether Norwegian banks are closed on d for a
// holiday (see the calendar above; weekends are not holidays here) and
// which: the name of the fixed or Easter-based day. Where two fall on
// one date (17 May on Whit Monday, as in 2027), the fixed one is named.
// The zero Date is no holiday.
func NorwegianHoliday(d Date) (string, bool) {
	if d.IsZero() {
		return "", false
	}
	for _, h := range fixedHolidays {
		if d.Month == h.month && d.Day == h.day {
			return h.name, true
		}
	}
	easter := Easter(d.Year).Time(nil)
	for _, h := range easterHolidays {
		if Of(easter.AddDate(0, 0, h.offset)) == d {
			return h.name, true
		}
	}
	return "", false
}

// IsBankingDay reports whether Norwegian banks settle payments on d: a
// Monday to Friday that is no [NorwegianHoliday]. The zero Date is not
// one.
func IsBankingDay(d Date) bool {
	if d.IsZero() {
		return false
	}
	switch d.Time(nil).Weekday() {
	case time.Saturday, time.Sunday:
		return false
	}
	_, holiday := NorwegianHoliday(d)
	return !holiday
}

// maxBankingDays bounds the n of [AddBankingDays]: more than any
// settlement window, and a bound on the loop for any input.
const maxBankingDays = 366

// AddBankingDays returns the n-th banking day after the first banking
// day on or after d: n = 0 gives d itself when it is a banking day, else
// the next one; n = 1 the banking day after that. A negative n counts as
// 0 and n is at most 366. The zero Date stays zero.
func AddBankingDays(d Date, n int) Date {
	if d.IsZero() {
		return d
	}
	n = min(max(n, 0), maxBankingDays)
	t := d.Time(nil)
	for !IsBankingDay(Of(t)) {
		t = t.AddDate(0, 0, 1)
	}
	for n > 0 {
		t = t.AddDate(0, 0, 1)
		if IsBankingDay(Of(t)) {
			n--
		}
	}
	return Of(t)
}
