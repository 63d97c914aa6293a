package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCredentialFilesBounded: the certificate, key, PKCS#12 and CA files
// are read within maxCredentialFile: a device or a mistaken file named
// there is refused, not read whole. On the code before, each was read
// with os.ReadFile: a 64 MiB (sparse) file cost 64 MiB and more per read,
// and -cert /dev/zero never ended.
func TestCredentialFilesBounded(t *testing.T) {
	big := sparseFile(t, 64<<20)
	reads := map[string]func() error{
		"-cert":        func() error { _, err := (&credFlags{cert: big}).certificate(); return err },
		"-p12":         func() error { _, err := (&credFlags{p12: big}).certificate(); return err },
		"-p12 (creds)": func() error { _, err := (&credFlags{p12: big}).credentials(); return err },
		"-cert -key":   func() error { _, err := (&credFlags{cert: big, key: big}).credentials(); return err },
		"-ca":          func() error { _, err := (&bankFlags{ca: big}).options("https://bank.example"); return err },
		"sign -ca":     func() error { _, err := caPath(big); return err },
	}
	for name, read := range reads {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := read()
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s of a 64 MiB file: %d MiB allocated, %v", name, alloc>>20, err)
		assert.Error(t, err, name)
		assert.Less(t, alloc, uint64(16<<20), "%s read a 64 MiB file whole", name)
	}
}

// sparseFile makes a file of size zero bytes that takes no disk space.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "big.pem")
	f, err := os.Create(name)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	return name
}

// TestSignBodyFileBounded: psd2 sign -body-file reads at most
// maxRequestBodyFile. On the code before, it read the file whole: a
// 64 MiB file was read, digested and printed as a curl command.
func TestSignBodyFileBounded(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, _ := tppFiles(t)
	big := sparseFile(t, 64<<20)
	out, errOut, code := psd2(t, "sign", "-cert", certFile, "-key", keyFile, "-X", "POST",
		"-url", s.URL+"/v1/payments/norwegian-domestic-credit-transfers", "-body-file", big)
	assert.NotEqual(t, exitOK, code, "a 64 MiB body file was signed (%d bytes printed)", len(out))
	assert.Contains(t, errOut, "larger than")
}
