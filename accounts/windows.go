package accounts

import "time"

// The windows of docs/interface.md section 8 for reading without the PSU
// present, each named once. They are distinct from the hour after SCA in
// which accounts may be listed and full history read (sca.SCAValidity)
// and from how long a consent lasts (sca.ConsentValidity, a per-bank fact:
// banks.Bank.ConsentValidity).
const (
	// HistoryDaysWithoutPSU is how many days back transactions can be
	// read without the PSU present: 90. The one place the rule is
	// written: txsync and refresh derive their reach from it.
	HistoryDaysWithoutPSU = 90
	// HistoryWithoutPSU is [HistoryDaysWithoutPSU] as a duration.
	HistoryWithoutPSU = HistoryDaysWithoutPSU * 24 * time.Hour
	// OnlineSCARecency is the platform's rule for reading transactions
	// without the PSU: only accounts the PSU accessed online with SCA in
	// the last 180 days answer.
	OnlineSCARecency = 180 * 24 * time.Hour
)
