package accounts

import (
	"encoding/json"
	"log/slog"
)

// GoString is String (the hashed store key), for %#v: a BudgetKey holds an
// account id, which no printed form shows.
func (k BudgetKey) GoString() string { return k.String() }

// LogValue makes log/slog print k as String does.
func (k BudgetKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalJSON writes String as a JSON string.
func (k BudgetKey) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }
