//go:build !linux

package main

import "os"

// maxRSS is unknown outside Linux (0: not checked).
func maxRSS(*os.ProcessState) int64 { return 0 }
