package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
)

// createCost measures what creating a file costs on the file system of
// dir: n empty files created (O_CREATE|O_EXCL) and closed, in a directory
// of their own made for it and removed after, by the process's CPU time
// and the wall time per file. The file store's first round creates a
// file per account (every budget key is new), so this figure, which
// varies widely between file systems and machines, sets most of that
// round's gap to the memory store.
func createCost(dir string, n int) (cpu, wall time.Duration, err error) {
	d, err := os.MkdirTemp(dir, "storeratio-fscost-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(d)
	c0, t0 := refreshbench.ProcessCPU(), time.Now()
	for i := range n {
		f, err := os.OpenFile(filepath.Join(d, fmt.Sprintf("f%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, 0, err
		}
		if err := f.Close(); err != nil {
			return 0, 0, err
		}
	}
	return (refreshbench.ProcessCPU() - c0) / time.Duration(n), time.Since(t0) / time.Duration(n), nil
}
