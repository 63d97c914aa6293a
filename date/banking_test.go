package date

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func d(s string) Date {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// TestEaster checks the computus against Easter Sundays from published
// tables, the earliest (22 March) and latest (25 April) possible among
// them.
func TestEaster(t *testing.T) {
	t.Parallel()
	for _, want := range []string{
		"1818-03-22", "1943-04-25", "2000-04-23", "2008-03-23", "2011-04-24", "2019-04-21",
		"2024-03-31", "2025-04-20", "2026-04-05", "2027-03-28", "2028-04-16", "2038-04-25", "2285-03-22",
	} {
		w := d(want)
		assert.Equal(t, w, Easter(w.Year), "Easter %d", w.Year)
	}
}

// TestNorwegianHolidays lists every day Norwegian banks close, weekdays
// and weekends, for several years, as the published calendars give them,
// and checks that no other day of those years is a holiday.
func TestNorwegianHolidays(t *testing.T) {
	t.Parallel()
	fixed := func(y int) map[string]string {
		return map[string]string{
			fmt.Sprintf("%d-01-01", y): NewYearsDay, fmt.Sprintf("%d-05-01", y): LabourDay,
			fmt.Sprintf("%d-05-17", y): ConstitutionDay, fmt.Sprintf("%d-12-24", y): ChristmasEve,
			fmt.Sprintf("%d-12-25", y): ChristmasDay, fmt.Sprintf("%d-12-26", y): BoxingDay,
			fmt.Sprintf("%d-12-31", y): NewYearsEve,
		}
	}
	movable := map[int]map[string]string{
		2024: {"2024-03-28": MaundyThursday, "2024-03-29": GoodFriday, "2024-03-31": EasterSunday, "2024-04-01": EasterMonday,
			"2024-05-09": AscensionDay, "2024-05-19": WhitSunday, "2024-05-20": WhitMonday},
		2025: {"2025-04-17": MaundyThursday, "2025-04-18": GoodFriday, "2025-04-20": EasterSunday, "2025-04-21": EasterMonday,
			"2025-05-29": AscensionDay, "2025-06-08": WhitSunday, "2025-06-09": WhitMonday},
		2026: {"2026-04-02": MaundyThursday, "2026-04-03": GoodFriday, "2026-04-05": EasterSunday, "2026-04-06": EasterMonday,
			"2026-05-14": AscensionDay, "2026-05-24": WhitSunday, "2026-05-25": WhitMonday},
		// 2027: Whit Monday falls on 17 May; the fixed day is named.
		2027: {"2027-03-25": MaundyThursday, "2027-03-26": GoodFriday, "2027-03-28": EasterSunday, "2027-03-29": EasterMonday,
			"2027-05-06": AscensionDay, "2027-05-16": WhitSunday},
		2028: {"2028-04-13": MaundyThursday, "2028-04-14": GoodFriday, "2028-04-16": EasterSunday, "2028-04-17": EasterMonday,
			"2028-05-25": AscensionDay, "2028-06-04": WhitSunday, "2028-06-05": WhitMonday},
	}
	for year, mov := range movable {
		t.Run(fmt.Sprint(year), func(t *testing.T) {
			want := fixed(year)
			for k, v := range mov {
				want[k] = v
			}
			got := map[string]string{}
			for day := d(fmt.Sprintf("%d-01-01", year)).Time(nil); day.Year() == year; day = day.AddDate(0, 0, 1) {
				if name, ok := NorwegianHoliday(Of(day)); ok {
					got[Of(day).String()] = name
				}
			}
			assert.Equal(t, want, got)
		})
	}
	_, ok := NorwegianHoliday(Date{})
	assert.False(t, ok)
}

func TestBankingDays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from string
		n    int
		want string
	}{
		{"2026-03-16", 0, "2026-03-16"}, // a Monday
		{"2026-03-16", 1, "2026-03-17"},
		{"2026-03-20", 1, "2026-03-23"}, // Friday to Monday
		{"2026-03-21", 0, "2026-03-23"}, // Saturday: the next banking day
		{"2026-03-21", 1, "2026-03-24"},
		{"2026-04-01", 1, "2026-04-07"}, // over Easter: 2, 3 and 6 April closed
		{"2026-04-02", 0, "2026-04-07"},
		{"2026-05-13", 1, "2026-05-15"}, // Ascension Day
		{"2025-12-23", 1, "2025-12-29"}, // Christmas Eve to Boxing Day, then a weekend
		{"2025-12-30", 1, "2026-01-02"}, // New Year's Eve and Day
		{"2027-05-14", 1, "2027-05-18"}, // 17 May on Whit Monday
		{"2026-03-16", -4, "2026-03-16"},
		{"2026-03-16", 5, "2026-03-23"},
	} {
		assert.Equal(t, d(tc.want), AddBankingDays(d(tc.from), tc.n), "%s + %d", tc.from, tc.n)
	}
	assert.Equal(t, Date{}, AddBankingDays(Date{}, 3))
	assert.False(t, IsBankingDay(Date{}))
	assert.True(t, IsBankingDay(d("2026-04-01")))
	assert.False(t, IsBankingDay(d("2026-04-04")), "Easter Saturday is a Saturday")
	// Bounded for any input.
	far := AddBankingDays(d("2026-01-01"), 1<<40)
	assert.True(t, far.Before(d("2028-01-01")), "%s", far)
	for _, y := range []int{-4000, 0, 1582, 9999, 1 << 20} {
		got := AddBankingDays(Date{Year: y, Month: time.January, Day: 1}, 1)
		assert.True(t, IsBankingDay(got), "year %d: %s", y, got)
		assert.NotEqual(t, time.Weekday(time.Saturday), got.Time(nil).Weekday())
	}
}
