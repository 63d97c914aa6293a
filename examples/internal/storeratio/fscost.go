package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
)

// createCost measures what creating a file costs in dir: n empty files
// created there (O_CREATE|O_EXCL, named probePrefix, the label and a
// number) and closed, by the process's CPU time and the wall time per
// file. The file store's first round creates a file per account (every
// budget key is new), so this figure weighs on that round. It varies
// widely between machines, and on one machine between directories and
// over time: on the machine of the README's figures (ext4 on a virtual
// disk, without a journal), from 16 to 900 µs of CPU a file, in the same
// directory within minutes. So run measures it in each run's store
// directory, before the rounds and after them.
//
// The files are left in dir: run removes them with the run's directory
// when it ends. Removing them here would make them recently freed
// inodes, and ext4 without a journal does not reuse an inode freed in
// the last 60 seconds (or longer, while its inode table block is not yet
// written back): each new file of the directory's group checks every
// such inode before it finds one to take. Removed before the rounds,
// the probe's files would slow the first round it measures.
func createCost(dir, label string, n int) (cpu, wall time.Duration, err error) {
	c0, t0 := refreshbench.ProcessCPU(), time.Now()
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("%s%s-%d", probePrefix, label, i))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, 0, err
		}
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
