// Package panicvalue describes the value of a recovered panic for a log
// line: the SDK recovers the panics of the TPP's code that it calls on
// goroutines of its own (a breaker subscriber, a refresh hook, a job
// engine's event function) and logs them, and its logs hold no personal
// data, while a panic's value is whatever the TPP's code put in it (an
// account, a PSU's name).
package panicvalue

import (
	"fmt"
	"runtime"
)

// Describe returns what a log line may show of the panic value v: the
// message of a runtime error (an index out of range, a nil map: the
// runtime's words, none of the TPP's data), else only v's type. The
// stack (runtime/debug.Stack) names the line that panicked.
func Describe(v any) string {
	if re, ok := v.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("panic value of type %T", v)
}
