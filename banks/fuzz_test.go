package banks_test

import (
	"testing"

	"github.com/tppkit/psd2/banks"
)

// FuzzParse checks that a TPP's directory file never panics the parser
// and that every bank it accepts can be looked up by its id.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"banks":[{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","source":"s","verified":"2026"}]}`))
	f.Add([]byte(`{"banks":[{"id":"x"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := banks.Parse(data)
		if err != nil {
			return
		}
		for _, b := range d.All() {
			got, ok := d.Lookup(b.ID)
			if !ok || got != b {
				t.Fatalf("bank %q not found by its id", b.ID)
			}
			if b.ConsentValidity() <= 0 {
				t.Fatalf("bank %q: consent validity %v", b.ID, b.ConsentValidity())
			}
		}
	})
}
