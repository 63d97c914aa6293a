package emulatorcmd

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReadCertificatesBounded: a certificate file above
// maxCertificateFile is refused unread. On the code before, it was read
// whole (os.ReadFile): a 64 MiB (sparse) file cost 64 MiB.
func TestReadCertificatesBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "ca.pem")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = readCertificates(big)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("readCertificates of a 64 MiB file: %d MiB allocated, %v", alloc>>20, err)
	if err == nil {
		t.Error("a 64 MiB file of zeros was taken")
	}
	if alloc >= 16<<20 {
		t.Errorf("readCertificates read a 64 MiB file whole (%d MiB)", alloc>>20)
	}
}
