package rules

import (
	"testing"
	"time"
)

func TestBankZoneIsOslo(t *testing.T) {
	if got := bankZone.String(); got != "Europe/Oslo" {
		t.Fatalf("bank zone %q, want Europe/Oslo", got)
	}
	// 23:30 UTC on 30 June is 01:30 on 1 July in Oslo (UTC+2).
	now := time.Date(2026, 6, 30, 23, 30, 0, 0, time.UTC)
	if got := BankDate(now); got != "2026-07-01" {
		t.Errorf("BankDate = %s, want 2026-07-01", got)
	}
	if got := Today(now); !got.Equal(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Today = %v, want 2026-07-01 00:00 UTC", got)
	}
}
