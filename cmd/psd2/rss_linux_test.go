package main

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// watchRSS samples a running process's peak resident memory (VmHWM in
// /proc/<pid>/status) until the returned function is called, which gives
// the highest value seen in bytes (0 when none could be read).
//
// The rusage of a finished child is not used: Go starts children with
// vfork, and the kernel then counts the parent's peak - the whole test
// binary - as the child's own maxrss.
func watchRSS(pid int) func() int64 {
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if v := readHWM(path); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return peak.Load()
	}
}

// readHWM reads VmHWM from a /proc status file, in bytes.
func readHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
