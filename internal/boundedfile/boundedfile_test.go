package boundedfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(small, 5); err != nil || string(got) != "12345" {
		t.Fatalf("Read at the limit = %q, %v", got, err)
	}
	if _, err := Read(small, 4); err == nil {
		t.Fatal("a file over the limit was read")
	}
	if _, err := Read(filepath.Join(dir, "none"), 4); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Read("/dev/zero", 1<<10); err == nil {
			t.Fatal("a device without end was read as a file")
		}
	}
}
