package paymentrules_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	pt "github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules/paymentrulestest"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// wantOf is what a violation is compared on.
func wantOf(v *rules.Violation) *pt.Want {
	if v == nil {
		return nil
	}
	return &pt.Want{Code: v.Code, Path: v.Path}
}

// asServed checks a payment body as the emulator checks a served request:
// the characters of every JSON body first (rules.CheckJSONBody, before
// the operation), then the body's schema and rules.
func asServed(service, product string, body []byte) (*paymentrules.Body, *rules.Violation) {
	if utf8.Valid(body) && json.Valid(body) {
		if v := rules.CheckCharacters(body); v != nil {
			return nil, v
		}
	}
	return paymentrules.Check(service, product, body, pt.Today)
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range pt.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			b, v := asServed(tc.Service, tc.Product, tc.Body())
			assert.Equal(t, tc.Want, wantOf(v))
			if tc.Want == nil {
				assert.NotNil(t, b)
				return
			}
			assert.Nil(t, b)
			assert.NotEmpty(t, v.Message)
			assert.LessOrEqual(t, utf8.RuneCountInString(v.Message), 512)
		})
	}
}

// The violations themselves: code, path and the text the emulator
// answers with.
func TestCheckMessages(t *testing.T) {
	t.Parallel()
	ndct := func(edit ...func(pt.Body)) []byte {
		b := pt.ValidNDCT()
		for _, e := range edit {
			e(b)
		}
		return b.Bytes()
	}
	noText := pt.Del("remittanceInformationUnstructured")
	kid := func(ref string) func(pt.Body) {
		return pt.Set("remittanceInformationStructuredArray", []any{map[string]any{"reference": ref, "referenceType": "kid"}})
	}
	tests := []struct {
		name             string
		service, product string
		body             []byte
		want             rules.Violation
	}{
		{"missing field", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Del("creditorName")),
			rules.Violation{Code: rules.CodeFormat, Path: "creditorName", Message: "creditorName is required."}},
		{"fraction digits", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("instructedAmount.amount", "150")),
			rules.Violation{Code: rules.CodeFormat, Path: "instructedAmount.amount", Message: "instructedAmount.amount must have exactly 2 fraction digits for NOK."}},
		{"amount as number", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("instructedAmount.amount", json.Number("1.00"))),
			rules.Violation{Code: rules.CodeFormat, Path: "instructedAmount.amount", Message: "instructedAmount.amount must be a JSON string (x-accept-fix: amount-as-string)."}},
		{"instant in EUR", rules.ServicePayments, rules.ProductInstant, ndct(pt.Set("instructedAmount.currency", "EUR")),
			rules.Violation{Code: rules.CodeFormat, Path: "instructedAmount.currency", Message: "Instant payments are in NOK only."}},
		{"MOD-11", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("creditorAccount.bban", "91026527437")),
			rules.Violation{Code: rules.CodeFormat, Path: "creditorAccount.bban", Message: "creditorAccount.bban must be 11 digits with a valid MOD11 check digit."}},
		{"KID type in lower case, no KID", rules.ServicePayments, rules.ProductNDCT, ndct(noText, kid("")),
			rules.Violation{Code: rules.CodeKIDMissing, Path: "remittanceInformationStructuredArray[0].reference", Message: "A structured reference of type KID needs the KID in reference."}},
		{"KID check digit", rules.ServicePayments, rules.ProductNDCT, ndct(noText, kid("1234567890")),
			rules.Violation{Code: rules.CodeKIDInvalid, Path: "remittanceInformationStructuredArray[0].reference", Message: "The KID does not have a valid check digit."}},
		{"past date", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("requestedExecutionDate", pt.Day(-1))),
			rules.Violation{Code: rules.CodeExecutionDateInvalid, Path: "requestedExecutionDate", Message: "requestedExecutionDate " + pt.Day(-1) + " is in the past."}},
		{"long value quoted clipped", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("purposeCode", strings.Repeat("P", 150))),
			rules.Violation{Code: rules.CodeFormat, Path: "purposeCode", Message: `purposeCode "` + strings.Repeat("P", 100) + `…" is not one of the allowed codes.`}},
		{"type mismatch", rules.ServicePayments, rules.ProductNDCT, ndct(pt.Set("creditorName", 7)),
			rules.Violation{Code: rules.CodeFormat, Path: "creditorName", Message: "creditorName must be a JSON string."}},
		{"bulk entry", rules.ServiceBulk, rules.ProductNDCT, func() []byte {
			b := pt.ValidBulk()
			b["payments"] = []any{map[string]any{}}
			return b.Bytes()
		}(), rules.Violation{Code: rules.CodeFormat, Path: "payments[0].instructedAmount", Message: "payments[0].instructedAmount is required."}},
		{"periodic months", rules.ServicePeriodic, rules.ProductNDCT, func() []byte {
			b := pt.ValidPeriodic()
			b["frequency"], b["monthsOfExecution"] = "MonthlyVariable", []string{"3", "3"}
			return b.Bytes()
		}(), rules.Violation{Code: rules.CodeFormat, Path: "monthsOfExecution[1]", Message: "monthsOfExecution[1] repeats month 3."}},
	}
	for _, tt := range tests {
		b, v := paymentrules.Check(tt.service, tt.product, tt.body, pt.Today)
		assert.Nil(t, b, tt.name)
		if assert.NotNil(t, v, tt.name) {
			assert.Equal(t, tt.want, *v, tt.name)
		}
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	b, v := paymentrules.Decode([]byte(`{"creditorName":"Ola","CREDITORNAME":"","unknown":1}`))
	require.Nil(t, v)
	require.NotNil(t, b.CreditorName)
	assert.Equal(t, "Ola", *b.CreditorName, "a miscased key is an unknown field, whatever its place")

	b, v = paymentrules.Decode([]byte(`{"instructedAmount":{"amount":12.5,"currency":"NOK"}}`))
	require.Nil(t, v)
	assert.Equal(t, "12.5", string(b.InstructedAmount.Amount), "the amount stays raw for Check to tell a number from a string")

	for body, want := range map[string]rules.Violation{
		"\xff":                    {Code: rules.CodeFormat, Message: "The body is not valid UTF-8."},
		" \n":                     {Code: rules.CodeFormat, Message: "The body is empty; a JSON payment object is required."},
		`["x"]`:                   {Code: rules.CodeFormat, Message: "The body must be a JSON object."},
		`{} {}`:                   {Code: rules.CodeFormat, Message: "The body holds data after the JSON object."},
		`{"creditorName":`:        {Code: rules.CodeFormat, Message: "The body is not valid JSON."},
		`{"payments":{}}`:         {Code: rules.CodeFormat, Path: "payments", Message: "payments must be a JSON array."},
		`{"debtorAccount":"NO1"}`: {Code: rules.CodeFormat, Path: "debtorAccount", Message: "debtorAccount must be a JSON object."},
	} {
		b, v := paymentrules.Decode([]byte(body))
		assert.Nil(t, b, body)
		if assert.NotNil(t, v, body) {
			assert.Equal(t, want, *v, body)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, tc := range pt.Cases {
		f.Add(tc.Service, tc.Product, tc.Body())
	}
	codes := []string{rules.CodeFormat, rules.CodeKIDMissing, rules.CodeKIDInvalid, rules.CodeExecutionDateInvalid}
	f.Fuzz(func(t *testing.T, service, product string, data []byte) {
		b, v := paymentrules.Check(service, product, data, pt.Today)
		if v == nil {
			require.NotNil(t, b)
			return
		}
		require.Nil(t, b)
		require.Contains(t, codes, v.Code)
		require.NotEmpty(t, v.Message)
	})
}

func BenchmarkCheck(b *testing.B) {
	data := pt.ValidNDCT().Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, v := paymentrules.Check(rules.ServicePayments, rules.ProductNDCT, data, pt.Today); v != nil {
			b.Fatal(v)
		}
	}
}
