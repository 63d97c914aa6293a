package accounts

import "time"

// The windows of docs/interface.md section 8 for reading without the PSU
// present, each named once. They are distinct from the hour after SCA in
// which accounts may be listed and full history read (sca.SCAValidity)
// and from how long a consent lasts (sca.ConsentValidity, a per-bank fact:
// banks.Bank.ConsentValidity).
const (
	// HistoryWithoutPSU is how far back transactions can be read without
	// the PSU present: 90 days.
	HistoryWithoutPSU = 90 * 24 * time.Hour
	// OnlineSCARecency is the platform's rule for reading transactions
	// without the PSU: only accounts the PSU accessed online with SCA in
	// the last 180 days answer.
	OnlineSCARecency = 180 * 24 * time.Hour
)
