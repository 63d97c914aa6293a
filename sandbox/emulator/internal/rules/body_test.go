package rules

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckJSONBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, contentType, body string
		want                    *Violation // nil: accepted
	}{
		{"json", "application/json", `{"a":"Æ © ®"}`, nil},
		{"json with charset", "application/json; charset=utf-8", `[]`, nil},
		{"xml", "application/xml", `<a/>`, Format("Content-Type", "XML is not supported; send application/json.")},
		{"xml subtype", "text/XML", `{}`, Format("Content-Type", "XML is not supported; send application/json.")},
		{"missing type", "", `{}`, Format("Content-Type", "The body must be application/json.")},
		{"text", "text/plain", `{}`, Format("Content-Type", "The body must be application/json.")},
		{"not utf-8", "application/json", "{\"a\":\"\xff\"}", Format("", "The body is not valid UTF-8.")},
		{"not json", "application/json", `{"a":`, Format("", "The body is not valid JSON.")},
		{"emoji value", "application/json", `{"a":{"b":["x","Pizza 🍕"]}}`,
			Format("a.b[1]", "a.b[1] holds U+1F355, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).")},
		{"escaped pictograph", "application/json", `{"z":"ok","a":"\u2705"}`,
			Format("a", "a holds U+2705, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).")},
		{"pictograph key", "application/json", `{"\u2615":1}`,
			Format("\u2615", "\u2615 holds U+2615, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).")},
		{"whole body string", "application/json", `"\ud83d\ude00"`,
			Format("", "The body holds U+1F600, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).")},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CheckJSONBody(tt.contentType, []byte(tt.body)), tt.name)
	}
}

// Keys are visited in sorted order, so one body always names the same
// field.
func TestCheckCharactersFirstKeyInOrder(t *testing.T) {
	t.Parallel()
	body := []byte(`{"b":"\u2705","a":"\u2705","c":"\u2705"}`)
	for range 20 {
		assert.Equal(t, "a", CheckCharacters(body).Path)
	}
}

func TestDecodeViolation(t *testing.T) {
	t.Parallel()
	type inner struct {
		N int `json:"n"`
	}
	var v struct {
		Name  *string  `json:"name"`
		List  []string `json:"list"`
		In    *inner   `json:"in"`
		Flag  bool     `json:"flag"`
		Inner inner    `json:"inner"`
	}
	for body, want := range map[string]*Violation{
		`{"name":1}`:          Format("name", "name must be a JSON string."),
		`{"list":{}}`:         Format("list", "list must be a JSON array."),
		`{"in":[]}`:           Format("in", "in must be a JSON object."),
		`{"flag":"yes"}`:      Format("flag", "flag must be a JSON boolean."),
		`{"inner":{"n":"1"}}`: Format("inner.n", "inner.n must be a JSON number."),
		`[1]`:                 Format("", "The body must be a JSON object."),
		`{"name":`:            Format("", "The body is not valid JSON."),
	} {
		assert.Equal(t, want, DecodeViolation(json.Unmarshal([]byte(body), &v)), body)
	}
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	type basket struct {
		PaymentIDs *[]string `json:"paymentIds"`
	}
	var b basket
	assert.Nil(t, DecodeJSON([]byte(`{"paymentIds":["a"],"other":1}`), &b))
	assert.Equal(t, &[]string{"a"}, b.PaymentIDs)

	b = basket{}
	assert.Nil(t, DecodeJSON([]byte(`{"PAYMENTIDS":["a"]}`), &b), "a miscased key is an unknown field")
	assert.Nil(t, b.PaymentIDs)

	assert.Equal(t, Format("", "A JSON body is required."), DecodeJSON(nil, &b))
	assert.Equal(t, Format("paymentIds", "paymentIds must be a JSON array."), DecodeJSON([]byte(`{"paymentIds":"a"}`), &b))
	assert.Equal(t, Format("", "The body is not valid JSON."), DecodeJSON([]byte(`{"paymentIds":`), &b))
}
