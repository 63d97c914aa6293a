package emulatorcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/tppkit/psd2/internal/heldanswer"
)

// directoryFile is the bank directory of several banks in the -out
// directory (BanksFile): what MultiBank.DirectoryJSON says of the banks,
// each bank's URL and what its profile says of it (consentDays, the
// profile in notes). It is the one writer of the file: Start writes it,
// and the control API rewrites it after every call (rewriteAfter), so a
// profile changed there (set-profile) shows in the file, as -profile does
// at the start.
type directoryFile struct {
	path     string
	describe func() []byte // the directory now: MultiBank.DirectoryJSON
	fails    *failures     // where a rewrite that failed is reported too

	mu   sync.Mutex
	last []byte // what the file holds
}

// write writes the directory as it is now, unless the file already
// holds it, never through a symbolic link (writeFile: the file is
// replaced whole, so a reader sees the old directory or the new one).
func (d *directoryFile) write() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	data := append(d.describe(), '\n')
	if d.last != nil && bytes.Equal(data, d.last) {
		return nil
	}
	if err := writeFile(d.path, data, 0o644); err != nil {
		return err
	}
	d.last = data
	return nil
}

// rewriteAfter serves next, the control API, and writes the directory
// again after each call, before the call's answer goes out: whoever reads
// the file once the control has answered reads what the banks are now.
// A control that changes nothing the directory says leaves the file as it
// is. When the file cannot be written the answer is a 500 of the control
// API's form ({"error", "code": "BANKS_FILE"}) that says so, the
// control's own answer withheld: the control ran, the file is stale.
func (d *directoryFile) rewriteAfter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held := heldanswer.New()
		next.ServeHTTP(held, r)
		if err := d.write(); err != nil {
			d.fails.report(fmt.Errorf("after a control (%s %s), %s could not be rewritten: it is stale: %w", r.Method, r.URL.Path, BanksFile, err))
			b, _ := json.Marshal(map[string]string{"code": "BANKS_FILE",
				"error": fmt.Sprintf("the control answered %d, but %s could not be rewritten: %v", held.Status(), BanksFile, err)})
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(append(b, '\n'))
			return
		}
		held.CopyHeader(w.Header())
		w.WriteHeader(held.Status())
		_, _ = w.Write(held.Body())
	})
}
