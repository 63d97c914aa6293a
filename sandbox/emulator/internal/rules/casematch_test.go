package rules

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type caseInner struct {
	Amount json.RawMessage `json:"amount"`
	Name   *string         `json:"name,omitempty"`
}

type caseEmbedded struct {
	Promoted string `json:"promoted"`
}

type caseOuter struct {
	caseEmbedded
	Inner   *caseInner           `json:"inner"`
	List    []caseInner          `json:"list"`
	ByKey   map[string]caseInner `json:"byKey"`
	Untaged string
	Skipped string     `json:"-"`
	Self    *caseOuter `json:"self"`
}

func TestDropMiscased(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[*caseOuter]()
	tests := []struct {
		name, in string
		want     map[string]any // nil: body unchanged
		dropped  []string
	}{
		{"exact keys kept", `{"inner":{"amount":1.50,"name":"a"},"Untaged":"x","promoted":"p","unknown":1}`, nil, nil},
		{"nested pointer", `{"inner":{"Amount":"1.00","name":"a"}}`,
			map[string]any{"inner": map[string]any{"name": "a"}}, []string{"inner.Amount"}},
		{"slice element", `{"list":[{"amount":2},{"NAME":"b"}]}`,
			map[string]any{"list": []any{map[string]any{"amount": json.Number("2")}, map[string]any{}}}, []string{"list[1].NAME"}},
		{"map value", `{"byKey":{"k":{"Name":"c","amount":"3"}}}`,
			map[string]any{"byKey": map[string]any{"k": map[string]any{"amount": "3"}}}, []string{"byKey.k.Name"}},
		{"promoted and untagged fields", `{"Promoted":"p","untaged":"x"}`, map[string]any{}, []string{"Promoted", "untaged"}},
		{"recursive type", `{"self":{"self":{"INNER":{}}}}`,
			map[string]any{"self": map[string]any{"self": map[string]any{}}}, []string{"self.self.INNER"}},
		{"a raw value is not looked into", `{"inner":{"amount":{"Amount":1}}}`, nil, nil},
		{"a skipped field is unknown", `{"skipped":"s","Skipped":"t"}`, nil, nil},
		{"not JSON", `{"Inner":`, nil, nil},
		{"two values", `{"Inner":{}} {}`, nil, nil},
		{"wrong JSON type", `{"inner":[{"Name":"x"}],"list":{"NAME":1}}`, nil, nil},
	}
	for _, tt := range tests {
		out, dropped := DropMiscased([]byte(tt.in), typ)
		assert.ElementsMatch(t, tt.dropped, dropped, tt.name)
		if tt.want == nil {
			assert.Equal(t, tt.in, string(out), tt.name)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		dec.UseNumber()
		var got map[string]any
		require.NoError(t, dec.Decode(&got), tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}

	// A number is written back as sent.
	out, _ := DropMiscased([]byte(`{"inner":{"amount":1250.500,"NAME":"x"}}`), typ)
	assert.JSONEq(t, `{"inner":{"amount":1250.500}}`, string(out))
	assert.Contains(t, string(out), "1250.500")

	// The fields of a type are read once.
	assert.Same(t, fieldsOf(reflect.TypeFor[caseOuter]()), fieldsOf(reflect.TypeFor[caseOuter]()))
}

func TestMiscasedHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, path, want string
	}{
		{"nested miscased key", `{"payments":[{"instructedAmount":{"AMOUNT":"1.00"}}]}`, "payments[0].instructedAmount.amount",
			` The body has "payments[0].instructedAmount.AMOUNT" instead: field names are case-sensitive.`},
		{"long key clipped", `{"` + strings.Repeat("A", 120) + `":1}`, strings.Repeat("a", 120),
			` The body has "` + strings.Repeat("A", MaxQuoted) + `…" instead: field names are case-sensitive.`},
		{"exact key present", `{"creditorName":"x","CREDITORNAME":"y"}`, "creditorName", ""},
		{"no such key", `{"debtorName":"x"}`, "creditorName", ""},
		{"no path", `{"CreditorName":"x"}`, "", ""},
		{"no body", ``, "creditorName", ""},
		{"body not JSON", `{"CreditorName"`, "creditorName", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MiscasedHint([]byte(tt.body), tt.path), tt.name)
	}
}
