package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
)

// createCost measures what creating a file costs in dir: n empty files
// created there (O_CREATE|O_EXCL, named probePrefix and a number) and
// closed, then removed, by the process's CPU time and the wall time per
// file. The file store's first round creates a file per account (every
// budget key is new), so this figure sets most of that round's gap to
// the memory store. It varies widely between machines, and on one
// machine between directories and over time: on the machine of the
// README's figures (ext4 on a virtual disk), from 16 to 900 µs of CPU a
// file, in the same directory within minutes. So run measures it in
// each run's store directory, before the rounds and after them.
func createCost(dir string, n int) (cpu, wall time.Duration, err error) {
	names := make([]string, 0, n)
	defer func() {
		for _, name := range names {
			if rerr := os.Remove(name); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	c0, t0 := refreshbench.ProcessCPU(), time.Now()
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("%s%d", probePrefix, i))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, 0, err
		}
		names = append(names, name)
		if err := f.Close(); err != nil {
			return 0, 0, err
		}
	}
	return (refreshbench.ProcessCPU() - c0) / time.Duration(n), time.Since(t0) / time.Duration(n), nil
}

// probePrefix starts the names of createCost's files: not a name the
// file store gives its files (their names end in .val, or start with a
// dot).
const probePrefix = "storeratio-probe-"
