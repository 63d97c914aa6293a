package refresh

import (
	"fmt"

	"github.com/tppkit/psd2/internal/redact"
)

// Format prints String under every fmt verb (%q quoted): fmt would
// otherwise print a struct field by field for verbs such as %d, %x and
// %s, showing the account id and the session's PSU data.
func (j Job) Format(st fmt.State, verb rune) { redact.Write(st, verb, j.String()) }

// Format prints String under every fmt verb (%q quoted): fmt would
// otherwise print a struct field by field for verbs such as %d, %x and
// %s, showing the job's account id and the transactions read.
func (r Result) Format(st fmt.State, verb rune) { redact.Write(st, verb, r.String()) }
