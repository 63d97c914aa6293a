package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The platform's OpenAPI description, docs/openapi.json, is generated here
// from the Berlin Group 1.3.9 file and the deviations table: nothing in it
// is written by hand but the few operations Berlin Group does not define
// and the Date header (dateParam), a standard HTTP header the Berlin Group
// file leaves out, which every request must carry.
// TestOpenAPIDocument fails while the checked-in file differs from what
// buildPlatformDoc makes; regenerate it with
//
//	cd conformance && go test -run TestOpenAPIDocument -update
//
// (go generate ./... in the conformance module runs the same).

// platformDocPath is the generated description, checked in under docs/.
const platformDocPath = "../docs/openapi.json"

// emulatorDocPath is the copy the emulator embeds and serves at
// /openapi.json (sandbox/emulator can only embed files of its own
// directory); TestOpenAPIDocument holds it equal to platformDocPath.
const emulatorDocPath = "../sandbox/emulator/openapi.json"

var update = flag.Bool("update", false, "rewrite docs/openapi.json and the emulator's copy from the Berlin Group file and the deviations")

// described are the operations of the Berlin Group file the SDK calls, by
// path template and method; the rest of the file is left out.
var described = []struct{ path, method string }{
	{"/v1/accounts", "get"},
	{"/v1/accounts/{account-id}", "get"},
	{"/v1/accounts/{account-id}/balances", "get"},
	{"/v1/accounts/{account-id}/transactions", "get"},
	{"/v1/accounts/{account-id}/transactions/{transactionId}", "get"},
	{"/v1/card-accounts", "get"},
	{"/v1/card-accounts/{account-id}", "get"},
	{"/v1/card-accounts/{account-id}/balances", "get"},
	{"/v1/card-accounts/{account-id}/transactions", "get"},
	{"/v1/{payment-service}/{payment-product}", "post"},
	{"/v1/{payment-service}/{payment-product}/{paymentId}", "get"},
	{"/v1/{payment-service}/{payment-product}/{paymentId}", "delete"},
	{"/v1/{payment-service}/{payment-product}/{paymentId}/status", "get"},
	{"/v1/{payment-service}/{payment-product}/{paymentId}/authorisations", "post"},
	{"/v1/signing-baskets", "post"},
	{"/v1/signing-baskets/{basketId}", "get"},
	{"/v1/signing-baskets/{basketId}", "delete"},
	{"/v1/signing-baskets/{basketId}/status", "get"},
	{"/v1/signing-baskets/{basketId}/authorisations", "post"},
}

// sandboxOperationIDs are the operationIds docs/openapi.json gives the
// sandbox's mock-data operations (sandboxOps, in the same order).
var sandboxOperationIDs = []string{"initializeSandbox", "listSandboxCustomers", "createSandboxCustomer", "getSandboxCustomer",
	"deleteSandboxCustomer", "createSandboxAccount", "createSandboxCardAccount", "createSandboxTransactions",
	"createSandboxCardTransactions", "createSandboxAgreement"}

// servedOnlyOperationIDs are the operationIds of the operations the
// emulator serves that the SDK does not call: the deprecated POST
// /v1/consents and the links of a mock agreement. docs/openapi.json
// describes them all the same; sandbox/emulator's
// TestOpenAPIDescribesEveryRoute holds its paths equal to the emulator's
// routes.
var servedOnlyOperationIDs = []string{"createConsent", "getSandboxAgreement", "deleteSandboxAgreement",
	"listSandboxAgreementEngagements", "addSandboxAgreementEngagements"}

// jsonMap is a JSON object of the document being built.
type jsonMap = map[string]any

// at returns the object at keys below m, making the missing ones.
func at(m jsonMap, keys ...string) jsonMap {
	for _, k := range keys {
		next, ok := m[k].(jsonMap)
		if !ok {
			next = jsonMap{}
			m[k] = next
		}
		m = next
	}
	return m
}

// refTo is a $ref to a component.
func refTo(kind, name string) jsonMap {
	return jsonMap{"$ref": "#/components/" + kind + "/" + name}
}

// deepCopy copies a JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case jsonMap:
		out := make(jsonMap, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// without returns list without the strings of drop.
func without(list any, drop ...string) []any {
	var out []any
	for _, v := range list.([]any) {
		if s, ok := v.(string); !ok || !slices.Contains(drop, s) {
			out = append(out, v)
		}
	}
	return out
}

// deviationID is the docs/interface.md number of deviations[i-1]: "11.i".
func deviationID(i int) string {
	if i < 1 || i > len(deviations) {
		panic(fmt.Sprintf("no deviation 11.%d", i))
	}
	return fmt.Sprintf("11.%d", i)
}

// mark notes on an element of the document the deviation it carries.
func mark(m jsonMap, i int) jsonMap {
	id := deviationID(i)
	switch prev := m["x-deviation"].(type) {
	case nil:
		m["x-deviation"] = id
	case string:
		if prev != id {
			m["x-deviation"] = []any{prev, id}
		}
	case []any:
		if !slices.Contains(prev, any(id)) {
			m["x-deviation"] = append(prev, id)
		}
	}
	return m
}

// platformDoc is the document being built, with its operations by
// operationId.
type platformDoc struct {
	doc jsonMap
	ops map[string]jsonMap
}

// buildPlatformDoc makes the platform's OpenAPI 3.1 description: the
// operations of described as the Berlin Group file defines them, changed
// where the platform differs (each change marked x-deviation with its
// docs/interface.md section 11 number), plus the platform's own
// operations the SDK calls; the components no operation reaches are left
// out.
func buildPlatformDoc() ([]byte, error) {
	bg, err := openapi3.NewLoader().LoadFromFile(specPath)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", specPath, err)
	}
	raw, err := json.Marshal(bg)
	if err != nil {
		return nil, err
	}
	var src jsonMap
	if err := json.Unmarshal(raw, &src); err != nil {
		return nil, err
	}
	p := &platformDoc{doc: jsonMap{}, ops: map[string]jsonMap{}}
	p.doc["components"] = src["components"]
	if sec, ok := src["security"]; ok {
		p.doc["security"] = sec
	}
	paths := at(p.doc, "paths")
	for _, d := range described {
		item, ok := src["paths"].(jsonMap)[d.path].(jsonMap)
		if !ok || item[d.method] == nil {
			return nil, fmt.Errorf("%s %s: not in the Berlin Group file", d.method, d.path)
		}
		out := at(paths, d.path)
		if params, ok := item["parameters"]; ok {
			out["parameters"] = params
		}
		op := item[d.method].(jsonMap)
		out[d.method] = op
		p.ops[op["operationId"].(string)] = op
	}
	if err := p.deviate(src); err != nil {
		return nil, err
	}
	p.platformOperations()
	p.addDate()
	p.requireHeaders()
	p.prune()
	to31(p.doc)
	p.doc["openapi"] = "3.1.0"
	p.doc["info"] = jsonMap{
		"title":   "Norwegian shared PSD2 interface, as the tppkit SDK and its emulator implement it",
		"version": "1.3.9-platform",
		"description": "Generated by the conformance module of github.com/tppkit/psd2 (conformance/openapi_test.go) " +
			"from the Berlin Group NextGenPSD2 XS2A Framework 1.3.9 OpenAPI file and the platform's deviations " +
			"from it (docs/interface.md section 11). Every place where the platform differs from Berlin Group " +
			"carries x-deviation, the number of its item in docs/interface.md section 11; x-deviations lists them, " +
			"with the platform's recorded answers that show each (recorded) where there are any. " +
			"Do not edit: regenerate with `go test -run TestOpenAPIDocument -update` in conformance/.",
	}
	var list []any
	for i, d := range deviations {
		dev := jsonMap{"id": deviationID(i + 1), "why": d.Why, "interface": "docs/interface.md section " + d.Section}
		if len(d.Recorded) > 0 {
			var files []any
			for _, f := range d.Recorded {
				files = append(files, "conformance/testdata/platform/"+f)
			}
			dev["recorded"] = files
		}
		list = append(list, dev)
	}
	p.doc["x-deviations"] = list
	p.doc["servers"] = []any{jsonMap{"url": "/api", "description": "the bank's base URL (the emulator's, or a bank of the directory)"}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p.doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// requiredHeaders are the headers the platform refuses a request of the
// operation without (400), which Berlin Group leaves optional ("might be
// mandated by ASPSP") or does not define: Date and the signature headers
// of every request (docs/interface.md sections 5.2, 5.3), TPP-Redirect-URI
// on every call outside the sandbox's mock data (section 5.8), those
// sections 4.1 to 4.3 list for basket and payment creation, Digest with
// every body an operation requires but the basket's (section 4.1 lists
// none: bodyRequired says whether the operation requires one), and
// TPP-Session-ID where an SCA starts, or may: the consents, the start of
// an authorisation, and the reads of the PSU's session (GET /v1/user,
// agreements, accounts and card accounts; sections 3, 6, 10 "Session
// model"). The emulator refuses the same (sandbox/emulator's
// TestOpenAPIRequiresWhatTheEmulatorRequires holds the description to its
// rules, and TestOpenAPIRequiredHeadersAsServed to its answers), so a
// client generated from the description sends them. PSU-IP-Address is
// required where sections 4.1 to 4.3 say so and nowhere else: it is sent
// while the PSU is present (section 5.14; 11.26 on the consents).
func requiredHeaders(method, path string, bodyRequired bool) []string {
	need := []string{"Date", "TPP-Signature-Certificate", "Signature"}
	if !strings.HasPrefix(path, "/v1/sandbox/") {
		need = append(need, "TPP-Redirect-URI")
	}
	if method == "post" && (path == "/v1/signing-baskets" || path == "/v1/{payment-service}/{payment-product}") {
		need = append(need, "x-accept-fix", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address")
	}
	if bodyRequired && !(method == "post" && path == "/v1/signing-baskets") {
		need = append(need, "Digest")
	}
	if method == "post" && (path == "/v1/bank-offered-consents" || path == "/v1/consents" || strings.HasSuffix(path, "/authorisations")) {
		need = append(need, "TPP-Session-ID") // an SCA starts: its session
	}
	if method == "get" && (path == "/v1/user" || path == "/v1/agreements" ||
		strings.HasPrefix(path, "/v1/accounts") || strings.HasPrefix(path, "/v1/card-accounts")) {
		need = append(need, "TPP-Session-ID") // the PSU's session (section 5.8)
	}
	return need
}

// bodyRequired reports whether the operation requires a request body.
func (p *platformDoc) bodyRequired(op jsonMap) bool {
	rb, ok := op["requestBody"].(jsonMap)
	if !ok {
		return false
	}
	if name, ok := strings.CutPrefix(fmt.Sprint(rb["$ref"]), "#/components/requestBodies/"); ok {
		rb, _ = at(p.doc, "components", "requestBodies")[name].(jsonMap)
	}
	return rb["required"] == true
}

// dateParam is the Date request header, which the Berlin Group file does
// not declare (it omits the standard HTTP headers) but the platform
// requires on every request, signed, within 60 seconds of its clock
// (docs/interface.md sections 5.3, 5.5, 8): declared, a client generated
// from the description sends it. Its form is the one HTTP senders write,
// IMF-fixdate in GMT (RFC 9110 section 5.6.7), also pattern.
var dateParam = jsonMap{
	"name": "Date", "in": "header", "required": true,
	"description": "When the request was made, as an HTTP date in IMF-fixdate form, in GMT (RFC 9110 section 5.6.7), " +
		"e.g. Tue, 03 Mar 2026 09:00:00 GMT. Required on every request and covered by the Signature (its headers list date); " +
		"a request without it is refused with 400 HTTP_HEADER_REQUIRED, one more than 60 seconds off the bank's clock " +
		"with 400 FORMAT_ERROR (docs/interface.md sections 5.3, 5.5, 8).",
	"schema": jsonMap{"type": "string",
		"pattern": `^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$`},
	"example": "Tue, 03 Mar 2026 09:00:00 GMT",
}

// addDate declares the Date header (dateParam) on every operation, after
// its X-Request-ID.
func (p *platformDoc) addDate() {
	at(p.doc, "components", "parameters")["Date"] = dateParam
	ref := "#/components/parameters/Date"
	for _, item := range at(p.doc, "paths") {
		for method, v := range item.(jsonMap) {
			op, ok := v.(jsonMap)
			if !ok || method == "parameters" {
				continue
			}
			params, _ := op["parameters"].([]any)
			if slices.ContainsFunc(params, func(v any) bool { return v.(jsonMap)["$ref"] == ref }) {
				continue
			}
			i := slices.IndexFunc(params, func(v any) bool { return v.(jsonMap)["$ref"] == "#/components/parameters/X-Request-ID" })
			op["parameters"] = slices.Insert(params, i+1, any(refTo("parameters", "Date")))
		}
	}
}

// requireHeaders makes the headers of requiredHeaders required
// parameters of each operation: a parameter component shared with
// operations that leave it optional is replaced by a required copy,
// "<component>_required".
func (p *platformDoc) requireHeaders() {
	comps := at(p.doc, "components", "parameters")
	for path, item := range at(p.doc, "paths") {
		for method, v := range item.(jsonMap) {
			op, ok := v.(jsonMap)
			if !ok || method == "parameters" {
				continue
			}
			params, _ := op["parameters"].([]any)
			for i, raw := range params {
				param := raw.(jsonMap)
				name, _ := strings.CutPrefix(fmt.Sprint(param["$ref"]), "#/components/parameters/")
				resolved, isRef := param, param["$ref"] != nil
				if isRef {
					resolved = comps[name].(jsonMap)
				}
				if resolved["in"] != "header" || resolved["required"] == true ||
					!slices.ContainsFunc(requiredHeaders(method, path, p.bodyRequired(op)), func(h string) bool { return strings.EqualFold(h, fmt.Sprint(resolved["name"])) }) {
					continue
				}
				if !isRef { // inline, perhaps shared with another operation: a copy
					c := deepCopy(param).(jsonMap)
					c["required"] = true
					params[i] = c
					continue
				}
				req := strings.TrimSuffix(name, "_optional") + "_required"
				if _, ok := comps[req]; !ok {
					c := deepCopy(resolved).(jsonMap)
					c["required"] = true
					comps[req] = c
				}
				params[i] = refTo("parameters", req)
			}
		}
	}
}

// op returns the operation with the Berlin Group operationId id.
func (p *platformDoc) op(id string) jsonMap {
	op, ok := p.ops[id]
	if !ok {
		panic("no operation " + id)
	}
	return op
}

// addParam adds a parameter (a component, made once) to the operations.
func (p *platformDoc) addParam(name string, param jsonMap, ops ...string) {
	comps := at(p.doc, "components", "parameters")
	if _, ok := comps[name]; !ok {
		comps[name] = param
	}
	for _, id := range ops {
		op := p.op(id)
		params, _ := op["parameters"].([]any)
		ref := "#/components/parameters/" + name
		if slices.ContainsFunc(params, func(v any) bool { return v.(jsonMap)["$ref"] == ref }) {
			continue
		}
		op["parameters"] = append(params, refTo("parameters", name))
	}
}

// header is an optional header parameter of string values.
func header(name, description string, i int, schema jsonMap) jsonMap {
	if schema == nil {
		schema = jsonMap{"type": "string"}
	}
	return mark(jsonMap{"name": name, "in": "header", "required": false, "description": description, "schema": schema}, i)
}

// schema returns the component schema name.
func (p *platformDoc) schema(name string) jsonMap {
	s, ok := at(p.doc, "components", "schemas")[name].(jsonMap)
	if !ok {
		panic("no schema " + name)
	}
	return s
}

// addProperty adds a member to a component schema.
func (p *platformDoc) addProperty(schemaName, member string, s jsonMap, i int) {
	at(p.schema(schemaName), "properties")[member] = mark(s, i)
	mark(p.schema(schemaName), i)
}

// optional makes members of a component schema optional.
func (p *platformDoc) optional(schemaName string, i int, members ...string) {
	s := p.schema(schemaName)
	s["required"] = without(s["required"], members...)
	mark(s, i)
}

// deviate changes the Berlin Group operations where the platform differs,
// one block per entry of deviations (docs/interface.md section 11).
func (p *platformDoc) deviate(src jsonMap) error {
	all := concat(aisOps, paymentOps, basketOps)
	str := func(desc string) jsonMap { return jsonMap{"type": "string", "description": desc} }

	// 11.1 the platform's own payment products.
	product := at(p.doc, "components", "parameters", "paymentProduct")
	schema := at(product, "schema")
	schema["enum"] = []any{"norwegian-domestic-credit-transfers", "instant-norwegian-domestic-credit-transfers-straks",
		"sepa-credit-transfers", "cross-border-credit-transfers"}
	mark(product, 1)

	// 11.2 no Consent-ID on account information.
	for _, id := range aisOps {
		op := p.op(id)
		op["parameters"] = slices.DeleteFunc(op["parameters"].([]any), func(v any) bool {
			return strings.HasPrefix(fmt.Sprint(v.(jsonMap)["$ref"]), "#/components/parameters/consentId_HEADER")
		})
		mark(op, 2)
	}

	// 11.3 and 11.4 on every operation.
	p.addParam("x-accept-fix", header("x-accept-fix", "The platform's switches for early adoption of breaking changes; the SDK always sends amount-as-string.", 3, nil), all...)
	p.addParam("TPP-Session-ID", header("TPP-Session-ID", "Binds the SCA and the later calls of a PSU's session.", 4, nil), all...)

	// 11.5 TPP-Redirect-URI and 11.6 PSU-ID on more operations.
	p.addParam("TPP-Redirect-URI", nil, concat(aisOps, []string{"getPaymentInitiationStatus", "getPaymentInformation", "getSigningBasket", "getSigningBasketStatus", "deleteSigningBasket"})...)
	p.addParam("PSU-ID", nil, concat(aisOps, []string{"getPaymentInitiationStatus", "getPaymentInformation", "cancelPayment", "getSigningBasket", "deleteSigningBasket"})...)
	mark(at(p.doc, "components", "parameters", "TPP-Redirect-URI"), 5)
	mark(at(p.doc, "components", "parameters", "PSU-ID"), 6)

	// 11.7 SCA streamlining and the PSU's context on payment initiation.
	p.addParam("X-PSU-IDENTITY", header("X-PSU-IDENTITY", "Preselects the PSU at SCA (a national identity number).", 7, nil), "initiatePayment")
	p.addParam("X-PSU-AuthMethod-Preferred", header("X-PSU-AuthMethod-Preferred",
		"The SCA method the bank jumps to. The interface writes the brand-named methods <EID_MOBILE_METHOD> and <BANK_ID_METHOD>; BANKID_MOBIL and BANKID are the SDK's values for them.", 7,
		jsonMap{"type": "string", "enum": []any{"ENGANGSKODEAPP_BIOMETRI", "HA2", "BANKID_MOBIL", "BANKID"}}), "initiatePayment")
	p.addParam("PSU-Context", header("PSU-Context", "Whether the PSU acts as a private person or for a company; optional.", 7,
		jsonMap{"type": "string", "enum": []any{"PRIVATE", "CORPORATE"}}), "initiatePayment")

	// 11.8 and 11.9 query parameters.
	query := func(name, desc string, typ string, i int) jsonMap {
		return mark(jsonMap{"name": name, "in": "query", "required": false, "description": desc, "schema": jsonMap{"type": typ}}, i)
	}
	p.addParam("allowLogicalDuplicate", query("allowLogicalDuplicate", "Allows a logical duplicate of a live payment.", "boolean", 8), "initiatePayment")
	p.addParam("limit", query("limit", "The platform's paging: transactions per page (its next links carry it).", "integer", 9), "getTransactionList")
	p.addParam("offset", query("offset", "The platform's paging: the first transaction of the page.", "integer", 9), "getTransactionList")

	// 11.10 and 11.11 the bank-offered consent.
	consents := src["paths"].(jsonMap)["/v1/consents"].(jsonMap)["post"].(jsonMap)
	bo := deepCopy(consents).(jsonMap)
	delete(bo, "requestBody")
	bo["operationId"] = "createBankOfferedConsent"
	bo["summary"] = "Start a bank-offered consent (no body)"
	bo["description"] = "The platform's consent is bank-offered: no body, and the 201 answer carries only _links.scaRedirect."
	bo["parameters"] = slices.DeleteFunc(bo["parameters"].([]any), func(v any) bool {
		return strings.HasPrefix(fmt.Sprint(v.(jsonMap)["$ref"]), "#/components/parameters/consentId_HEADER")
	})
	mark(bo, 10)
	created := deepCopy(at(p.doc, "components", "responses", "CREATED_201_Consents")).(jsonMap)
	at(created, "content", "application/json")["schema"] = refTo("schemas", "bankOfferedConsentsResponse-201")
	delete(at(created, "content", "application/json"), "example")
	delete(at(created, "content", "application/json"), "examples")
	at(bo, "responses")["201"] = mark(created, 11)
	boSchema := deepCopy(p.schema("consentsResponse-201")).(jsonMap)
	boSchema["required"] = without(boSchema["required"], "consentId", "consentStatus")
	at(p.doc, "components", "schemas")["bankOfferedConsentsResponse-201"] = mark(boSchema, 11)
	at(p.doc, "paths", "/v1/bank-offered-consents")["post"] = bo
	p.ops["createBankOfferedConsent"] = bo
	p.addParam("x-accept-fix", nil, "createBankOfferedConsent")
	p.addParam("TPP-Session-ID", nil, "createBankOfferedConsent")

	// The deprecated POST /v1/consents, which the platform (and the
	// emulator) still serve (docs/interface.md sections 4.5, 9.3): the
	// bank-offered consent's operation, whatever body it is sent ignored.
	dep := deepCopy(bo).(jsonMap)
	dep["operationId"] = "createConsent"
	dep["deprecated"] = true
	dep["summary"] = "Start a consent (deprecated: use POST /v1/bank-offered-consents)"
	dep["description"] = "Deprecated in favour of POST /v1/bank-offered-consents. A body is ignored, whatever it is; " +
		"the answer is the bank-offered consent's, 201 with only _links.scaRedirect."
	dep["requestBody"] = jsonMap{"required": false, "description": "Ignored.", "content": jsonMap{"application/json": jsonMap{"schema": jsonMap{}}}}
	at(p.doc, "paths", "/v1/consents")["post"] = dep
	p.ops["createConsent"] = dep

	// 11.12 the TPP dialogue: see platformOperations.

	// 11.13 verbs on every link.
	p.addProperty("hrefType", "verbs", jsonMap{"type": "array", "items": jsonMap{"type": "string"},
		"description": "The HTTP methods allowed on the link now."}, 13)

	// 11.14 and 11.15 the platform's address members.
	for _, m := range []string{"street", "postalCode", "city"} {
		p.addProperty("address", m, str("The platform's address member ("+m+")."), 14)
	}
	mark(p.schema("address"), 15)

	// 11.16 a card account as the debtor of an NDCT.
	p.addProperty("accountReference", "other", jsonMap{"type": "object",
		"description": "A card account as the debtor of an NDCT: identification is the card account's relatedAccount.",
		"required":    []any{"identification", "schemeNameProprietary"},
		"properties": jsonMap{
			"identification":        jsonMap{"type": "string"},
			"schemeNameProprietary": jsonMap{"type": "string", "enum": []any{"creditCardAccount"}},
		}}, 16)

	// 11.17 structured references are objects.
	arr := p.schema("remittanceInformationStructuredArray")
	arr["items"] = refTo("schemas", "remittanceInformationStructured")
	mark(arr, 17)

	// 11.18 paymentId in status and details answers.
	for _, s := range []string{"paymentInitiationStatusResponse-200_json", "paymentInitiationWithStatusResponse",
		"periodicPaymentInitiationWithStatusResponse", "bulkPaymentInitiationWithStatusResponse"} {
		p.addProperty(s, "paymentId", refTo("schemas", "paymentId"), 18)
	}

	// 11.19 _links in balances answers and payment details.
	for _, s := range []string{"readAccountBalanceResponse-200", "readCardAccountBalanceResponse-200", "paymentInitiationWithStatusResponse",
		"periodicPaymentInitiationWithStatusResponse", "bulkPaymentInitiationWithStatusResponse"} {
		p.addProperty(s, "_links", refTo("schemas", "_linksAll"), 19)
	}

	// 11.20 no account link in the transactions' links.
	p.optional("_linksAccountReport", 20, "account")

	// 11.21 relatedAccount on card accounts.
	p.addProperty("cardAccountDetails", "relatedAccount", str("The reference that makes the card account the debtor of an NDCT (debtorAccount.other.identification)."), 21)

	// 11.22 no authorisationId when an authorisation starts.
	p.optional("startScaprocessResponse", 22, "authorisationId")

	// 11.26 PSU-IP-Address on the consents only while the PSU is present:
	// Berlin Group's own conditional header of account information in
	// place of its mandatory one.
	for _, id := range []string{"createBankOfferedConsent", "createConsent"} {
		op := p.op(id)
		for i, v := range op["parameters"].([]any) {
			if v.(jsonMap)["$ref"] == "#/components/parameters/PSU-IP-Address_mandatory" {
				op["parameters"].([]any)[i] = refTo("parameters", "PSU-IP-Address_conditionalForAis")
			}
		}
		mark(op, 26)
	}
	return nil
}

// platformOperations adds the platform's operations the SDK calls that
// Berlin Group does not define (docs/interface.md section 10 "Paths").
func (p *platformDoc) platformOperations() {
	common := []any{
		refTo("parameters", "X-Request-ID"), refTo("parameters", "Digest"), refTo("parameters", "Signature"),
		refTo("parameters", "TPP-Signature-Certificate"), refTo("parameters", "x-accept-fix"),
		refTo("parameters", "TPP-Session-ID"), refTo("parameters", "TPP-Redirect-URI"),
	}
	errors := func(ok jsonMap) jsonMap {
		r := jsonMap{}
		for code, name := range map[string]string{"400": "BAD_REQUEST_400_PIS", "401": "UNAUTHORIZED_401_PIS", "403": "FORBIDDEN_403_PIS",
			"404": "NOT_FOUND_404_PIS", "405": "METHOD_NOT_ALLOWED_405_PIS", "429": "TOO_MANY_REQUESTS_429_PIS",
			"500": "INTERNAL_SERVER_ERROR_500_PIS", "503": "SERVICE_UNAVAILABLE_503_PIS"} {
			r[code] = refTo("responses", name)
		}
		r["200"] = ok
		return r
	}
	at(p.doc, "components", "schemas")["tppContactInformation"] = mark(jsonMap{
		"type": "object", "required": []any{"email"},
		"properties": jsonMap{"email": jsonMap{"type": "string", "description": "The TPP's official contact e-mail address."}},
	}, 12)
	contact := jsonMap{"content": jsonMap{"application/json": jsonMap{"schema": refTo("schemas", "tppContactInformation")}},
		"description": "The TPP's contact information.",
		"headers":     jsonMap{"X-Request-ID": refTo("headers", "X-Request-ID")}}
	tppID := jsonMap{"name": "tppId", "in": "path", "required": true, "schema": jsonMap{"type": "string"},
		"description": "The TPP's organizationIdentifier, as in its certificate (e.g. PSDNO-FSA-987654321)."}
	item := at(p.doc, "paths", "/v1/tpps/{tppId}/contact-information")
	item["parameters"] = []any{tppID}
	item["get"] = mark(jsonMap{"operationId": "getTppContactInformation", "summary": "Read the TPP's contact information",
		"tags": []any{"TPP dialogue"}, "parameters": common, "responses": errors(contact)}, 12)
	item["put"] = mark(jsonMap{"operationId": "putTppContactInformation", "summary": "Register the TPP's contact information",
		"tags": []any{"TPP dialogue"}, "parameters": common, "responses": errors(contact),
		"requestBody": jsonMap{"required": true, "content": jsonMap{"application/json": jsonMap{"schema": refTo("schemas", "tppContactInformation")}}}}, 12)

	p.corporateOperations(common)
	p.sandboxOperations(common)
}

// answer is a JSON answer of schema, with its X-Request-ID.
func answer(description string, schema jsonMap) jsonMap {
	return jsonMap{"description": description, "content": jsonMap{"application/json": jsonMap{"schema": schema}},
		"headers": jsonMap{"X-Request-ID": refTo("headers", "X-Request-ID")}}
}

// errorAnswers are the Berlin Group error answers of a service (AIS or
// PIS) by status, with ok (status: answer) besides.
func errorAnswers(service string, ok jsonMap) jsonMap {
	r := jsonMap{}
	for code, name := range map[string]string{"400": "BAD_REQUEST_400_", "401": "UNAUTHORIZED_401_", "403": "FORBIDDEN_403_",
		"404": "NOT_FOUND_404_", "405": "METHOD_NOT_ALLOWED_405_", "409": "CONFLICT_409_", "429": "TOO_MANY_REQUESTS_429_",
		"500": "INTERNAL_SERVER_ERROR_500_", "503": "SERVICE_UNAVAILABLE_503_"} {
		r[code] = refTo("responses", name+service)
	}
	for code, a := range ok {
		r[code] = a
	}
	return r
}

// withParams returns common followed by the parameter components names.
func withParams(common []any, names ...string) []any {
	out := slices.Clone(common)
	for _, n := range names {
		out = append(out, refTo("parameters", n))
	}
	return out
}

// addSchemas adds component schemas, each marked with deviation i.
func (p *platformDoc) addSchemas(i int, schemas jsonMap) {
	comps := at(p.doc, "components", "schemas")
	for name, s := range schemas {
		comps[name] = mark(s.(jsonMap), i)
	}
}

// object is a JSON object schema of properties, the members of required
// required.
func object(description string, properties jsonMap, required ...string) jsonMap {
	o := jsonMap{"type": "object", "properties": properties}
	if description != "" {
		o["description"] = description
	}
	if len(required) > 0 {
		var r []any
		for _, m := range required {
			r = append(r, m)
		}
		o["required"] = r
	}
	return o
}

// array is a JSON array schema of items.
func array(items jsonMap) jsonMap { return jsonMap{"type": "array", "items": items} }

// text is a string schema.
func text(description string) jsonMap { return jsonMap{"type": "string", "description": description} }

// psuParams are the PSU's headers of the platform's AIS-like operations:
// the session's PSU-ID, the PSU's address, the corporate agreement and
// the context.
var psuParams = []string{"PSU-ID", "PSU-IP-Address_optional", "PSU-Corporate-ID", "PSU-Context"}

// corporateOperations adds GET /v1/agreements (11.23) and GET /v1/user
// (11.24), the corporate context's and the PISP's own operations
// (docs/interface.md sections 4.5, 5.10, 10).
func (p *platformDoc) corporateOperations(common []any) {
	p.addSchemas(23, jsonMap{
		"corporateAgreement": object("A corporate agreement of the PSU: its id is what PSU-Corporate-ID carries.", jsonMap{
			"id":   text("The agreement's id (a UUID), sent as PSU-Corporate-ID."),
			"name": text("The agreement's name."),
		}, "id"),
		"corporateAgreementList": object("The PSU's corporate agreements (the shape is assumed: the platform shows only the request).",
			jsonMap{"agreements": array(refTo("schemas", "corporateAgreement"))}, "agreements"),
	})
	at(p.doc, "paths", "/v1/agreements")["get"] = mark(jsonMap{"operationId": "getCorporateAgreements",
		"summary": "List the PSU's corporate agreements", "tags": []any{"Corporate context"},
		"description": "Lists the corporate agreements of the PSU of the session; one is chosen and its id sent as PSU-Corporate-ID.",
		"parameters":  withParams(common, psuParams...),
		"responses":   errorAnswers("AIS", jsonMap{"200": answer("The PSU's agreements.", refTo("schemas", "corporateAgreementList"))})}, 23)

	p.addSchemas(24, jsonMap{
		"userResponse-200": object("The PSU of a session with a fresh SCA (the shape is assumed). An answer with _links.scaRedirect asks for SCA, as a 401 does.", jsonMap{
			"psuId":          text("The PSU-ID of the session."),
			"psuCorporateId": text("The corporate agreement of the session, for a corporate user."),
			"context":        jsonMap{"type": "string", "enum": []any{"PRIVATE", "CORPORATE"}},
			"_links":         refTo("schemas", "_linksAll"),
		}),
	})
	at(p.doc, "paths", "/v1/user")["get"] = mark(jsonMap{"operationId": "getUser",
		"summary": "Identify the PSU (the SCA of a PISP)", "tags": []any{"Corporate context"},
		"description": "Starts the SCA of a PISP: without a fresh SCA in the session the answer is 401 with _links.scaRedirect, whose callback brings the psu-id (and a corporate user's psu-corporate-id).",
		"parameters":  withParams(common, psuParams...),
		"responses":   errorAnswers("AIS", jsonMap{"200": answer("The session's PSU.", refTo("schemas", "userResponse-200"))})}, 24)
}

// sandboxOperations adds the sandbox's mock-data operations under
// /v1/sandbox (11.25; docs/interface.md sections 1.4, 1.5, 2.8, 4.4, 4.5,
// 10). The bodies of accounts, card accounts and transactions are not
// shown by the platform: they are the shapes package sandbox sends and
// the emulator takes.
func (p *platformDoc) sandboxOperations(common []any) {
	amount := jsonMap{"oneOf": []any{jsonMap{"type": "number"}, jsonMap{"type": "string"}}, "description": "An amount: mock data carries JSON numbers."}
	ref := object("An account by IBAN or BBAN.", jsonMap{"iban": refTo("schemas", "iban"), "bban": refTo("schemas", "bban")})
	link := refTo("schemas", "hrefType")
	p.addSchemas(25, jsonMap{
		"sandboxAmount":           object("An amount of mock data with its currency.", jsonMap{"amount": amount, "currency": refTo("schemas", "currencyCode")}, "amount"),
		"sandboxAccountReference": ref,
		"sandboxAgreement": object("A mock agreement: engagements are the ids of the engaged accounts.", jsonMap{
			"id": text("The agreement's id."), "name": text("The agreement's name."),
			"engagements": array(jsonMap{"type": "string"}),
			"_links":      object("", jsonMap{"self": link, "engagements": link}, "self", "engagements"),
		}, "id", "name", "engagements", "_links"),
		"sandboxCustomer": object("A sandbox customer (docs/interface.md section 2.8).", jsonMap{
			"customerId":     text("The customer's id."),
			"customerNumber": text("What the PSU types at the sandbox SCA page."),
			"customerType":   jsonMap{"type": "string", "enum": []any{"PRIVATE", "CORPORATE"}},
			"customerName":   text("The customer's name."),
			"agreements":     array(refTo("schemas", "sandboxAgreement")),
			"accounts":       array(jsonMap{"type": "string"}),
			"cardAccounts":   array(jsonMap{"type": "string"}),
			"_links":         object("", jsonMap{"self": link}, "self"),
		}, "customerId", "customerNumber", "customerType", "customerName", "agreements", "accounts", "cardAccounts", "_links"),
		"sandboxCustomerList": array(refTo("schemas", "sandboxCustomer")),
		"sandboxNewCustomer": object("A new sandbox customer (the shape is assumed: the writable fields of a customer).", jsonMap{
			"customerNumber": text("11 digits for a private customer, a 9-digit organisation number for a corporate one."),
			"customerType":   jsonMap{"type": "string", "enum": []any{"PRIVATE", "CORPORATE"}},
			"customerName":   jsonMap{"type": "string", "maxLength": 70},
		}, "customerNumber", "customerName"),
		"sandboxNewAccount": object("A new mock account of the customer given by customerId or customerNumber (the shape is assumed).", jsonMap{
			"customerId": text(""), "customerNumber": text(""), "bban": refTo("schemas", "bban"), "currency": refTo("schemas", "currencyCode"),
			"name": jsonMap{"type": "string", "maxLength": 70}, "product": text(""), "cashAccountType": text(""),
			"balance": amount, "creditLine": amount,
		}, "currency"),
		"sandboxNewCardAccount": object("A new mock card account of the customer given by customerId or customerNumber (the shape is assumed).", jsonMap{
			"customerId": text(""), "customerNumber": text(""), "maskedPan": jsonMap{"type": "string", "maxLength": 35},
			"currency": refTo("schemas", "currencyCode"), "name": jsonMap{"type": "string", "maxLength": 70}, "product": text(""),
			"creditLimit": amount, "balance": amount,
		}, "currency"),
		"sandboxTransaction": object("A mock transaction: the account information fields plus bookingStatus (the shape is assumed). A debtorAccount that is another account of the sandbox is refused.", jsonMap{
			"bookingStatus": jsonMap{"type": "string", "enum": []any{"booked", "pending"}},
			"bookingDate":   jsonMap{"type": "string", "format": "date"}, "valueDate": jsonMap{"type": "string", "format": "date"},
			"transactionAmount": refTo("schemas", "sandboxAmount"),
			"creditorName":      jsonMap{"type": "string", "maxLength": 70}, "creditorAccount": refTo("schemas", "sandboxAccountReference"),
			"debtorName": jsonMap{"type": "string", "maxLength": 70}, "debtorAccount": refTo("schemas", "sandboxAccountReference"),
			"remittanceInformationUnstructured": jsonMap{"type": "string", "maxLength": 140},
			"proprietaryBankTransactionCode":    text(""),
		}, "transactionAmount"),
		"sandboxCardTransaction": object("A mock card transaction (the shape is assumed).", jsonMap{
			"bookingStatus":   jsonMap{"type": "string", "enum": []any{"booked", "pending"}},
			"transactionDate": jsonMap{"type": "string", "format": "date"}, "bookingDate": jsonMap{"type": "string", "format": "date"},
			"transactionAmount": refTo("schemas", "sandboxAmount"), "originalAmount": refTo("schemas", "sandboxAmount"),
			"invoiced": jsonMap{"type": "boolean"}, "transactionDetails": jsonMap{"type": "string", "maxLength": 140},
		}, "transactionAmount"),
		"sandboxNewAgreement": object("A mock corporate agreement owned by the corporate customer owner (a customerId or customerNumber).", jsonMap{
			"owner": text(""), "name": jsonMap{"type": "string", "maxLength": 70},
			"engagements": array(refTo("schemas", "sandboxEngagement")),
		}, "owner", "name", "engagements"),
		"sandboxEngagement": object("Gives customer (a customerId or customerNumber) roles on account.", jsonMap{
			"customer": text(""), "account": refTo("schemas", "sandboxAccountReference"),
			"roles": array(jsonMap{"type": "string"}),
		}, "account", "roles"),
		"sandboxEngagementList": object("The ids of the accounts an agreement engages (the shape is assumed).",
			jsonMap{"engagements": array(jsonMap{"type": "string"})}, "engagements"),
	})
	body := func(schema jsonMap) jsonMap {
		return jsonMap{"required": true, "content": jsonMap{"application/json": jsonMap{"schema": schema}}}
	}
	created := func(d string, schema jsonMap) jsonMap { return jsonMap{"201": answer(d, schema)} }
	noContent := jsonMap{"204": jsonMap{"description": "Deleted.", "headers": jsonMap{"X-Request-ID": refTo("headers", "X-Request-ID")}}}
	idParam := func(name, desc string) []any {
		return []any{jsonMap{"name": name, "in": "path", "required": true, "schema": jsonMap{"type": "string"}, "description": desc}}
	}
	flag := func(name, desc string) jsonMap {
		return jsonMap{"name": name, "in": "query", "required": false, "schema": jsonMap{"type": "boolean"}, "description": desc}
	}
	ops := []struct {
		method, path, id, summary string
		pathParams                []any
		params                    []any
		body                      jsonMap
		ok                        jsonMap
	}{
		{"post", "/v1/sandbox/initialize", "initializeSandbox", "Reset the sandbox to its default data (path assumed)", nil, nil, nil,
			jsonMap{"200": answer("The customers, as listed with withAccounts and withAgreements.", refTo("schemas", "sandboxCustomerList"))}},
		{"get", "/v1/sandbox/customers", "listSandboxCustomers", "List the sandbox customers", nil,
			[]any{flag("withAccounts", "List each customer's accounts and card accounts (false is faster)."),
				flag("withAgreements", "List each customer's agreements (false is faster).")}, nil,
			jsonMap{"200": answer("The customers.", refTo("schemas", "sandboxCustomerList"))}},
		{"post", "/v1/sandbox/customers", "createSandboxCustomer", "Create a sandbox customer", nil, nil, refTo("schemas", "sandboxNewCustomer"),
			created("The customer.", refTo("schemas", "sandboxCustomer"))},
		{"get", "/v1/sandbox/customers/{customerId}", "getSandboxCustomer", "Read a sandbox customer with its accounts and agreements",
			idParam("customerId", "The customer's id."), nil, nil, jsonMap{"200": answer("The customer.", refTo("schemas", "sandboxCustomer"))}},
		{"delete", "/v1/sandbox/customers/{customerId}", "deleteSandboxCustomer", "Delete a sandbox customer with its accounts and agreements",
			idParam("customerId", "The customer's id."), nil, nil, noContent},
		{"post", "/v1/sandbox/accounts", "createSandboxAccount", "Create a mock account", nil, nil, refTo("schemas", "sandboxNewAccount"),
			created("The account as the account information service shows it.", refTo("schemas", "accountDetails"))},
		{"post", "/v1/sandbox/card-accounts", "createSandboxCardAccount", "Create a mock card account", nil, nil, refTo("schemas", "sandboxNewCardAccount"),
			created("The card account as the account information service shows it.", refTo("schemas", "cardAccountDetails"))},
		{"post", "/v1/sandbox/accounts/{accountId}/transactions", "createSandboxTransactions", "Add mock transactions to a mock account",
			idParam("accountId", "The mock account's id."), nil, array(refTo("schemas", "sandboxTransaction")),
			created("The transactions as the account information service shows them.", array(refTo("schemas", "transactions")))},
		{"post", "/v1/sandbox/card-accounts/{cardAccountId}/transactions", "createSandboxCardTransactions", "Add mock transactions to a mock card account",
			idParam("cardAccountId", "The mock card account's id."), nil, array(refTo("schemas", "sandboxCardTransaction")),
			created("The card transactions as the account information service shows them.", array(refTo("schemas", "cardTransaction")))},
		{"post", "/v1/sandbox/agreements", "createSandboxAgreement", "Create a mock corporate agreement", nil, nil, refTo("schemas", "sandboxNewAgreement"),
			created("The agreement.", refTo("schemas", "sandboxAgreement"))},
		// The links of a mock agreement (self, engagements); the shapes
		// are assumed.
		{"get", "/v1/sandbox/agreements/{agreementId}", "getSandboxAgreement", "Read a mock corporate agreement (its self link)",
			idParam("agreementId", "The agreement's id."), nil, nil, jsonMap{"200": answer("The agreement, as in the customer listing.", refTo("schemas", "sandboxAgreement"))}},
		{"delete", "/v1/sandbox/agreements/{agreementId}", "deleteSandboxAgreement", "Delete a mock corporate agreement",
			idParam("agreementId", "The agreement's id."), nil, nil, noContent},
		{"get", "/v1/sandbox/agreements/{agreementId}/engagements", "listSandboxAgreementEngagements", "List the accounts a mock agreement engages (its engagements link)",
			idParam("agreementId", "The agreement's id."), nil, nil, jsonMap{"200": answer("The engaged accounts.", refTo("schemas", "sandboxEngagementList"))}},
		{"post", "/v1/sandbox/agreements/{agreementId}/engagements", "addSandboxAgreementEngagements", "Add engagements to a mock agreement",
			idParam("agreementId", "The agreement's id."), nil,
			jsonMap{"oneOf": []any{refTo("schemas", "sandboxEngagement"), array(refTo("schemas", "sandboxEngagement"))}, "description": "One engagement, or a non-empty list of them."},
			created("The agreement.", refTo("schemas", "sandboxAgreement"))},
	}
	for _, o := range ops {
		item := at(p.doc, "paths", o.path)
		if o.pathParams != nil {
			item["parameters"] = o.pathParams
		}
		op := jsonMap{"operationId": o.id, "summary": o.summary, "tags": []any{"Sandbox mock data"},
			"description": "Sandbox only (absent from production); shared headers only, no PSU.",
			"parameters":  append(slices.Clone(common), o.params...), "responses": errorAnswers("PIS", o.ok)}
		if o.body != nil {
			op["requestBody"] = body(o.body)
		}
		item[o.method] = mark(op, 25)
	}
}

// prune drops the components no path reaches.
func (p *platformDoc) prune() {
	comps := p.doc["components"].(jsonMap)
	keep := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case jsonMap:
			if r, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(r, "#/components/"); ok && !keep[name] {
					keep[name] = true
					kind, n, _ := strings.Cut(name, "/")
					walk(comps[kind].(jsonMap)[n])
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(p.doc["paths"])
	for kind, v := range comps {
		if kind == "securitySchemes" {
			continue
		}
		m := v.(jsonMap)
		for n := range m {
			if !keep[kind+"/"+n] {
				delete(m, n)
			}
		}
		if len(m) == 0 {
			delete(comps, kind)
		}
	}
}

// to31 rewrites what OpenAPI 3.1 spells otherwise than the Berlin Group
// file's 3.0: a boolean exclusiveMinimum or exclusiveMaximum (3.1 has a
// number there; the file only has false, which says nothing).
func to31(v any) {
	switch x := v.(type) {
	case jsonMap:
		for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
			if b, ok := x[k].(bool); ok && !b {
				delete(x, k)
			}
		}
		for _, e := range x {
			to31(e)
		}
	case []any:
		for _, e := range x {
			to31(e)
		}
	}
}

// operationIDs lists the operationIds of a document, sorted.
func operationIDs(doc *openapi3.T) []string {
	var out []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			out = append(out, op.OperationID)
		}
	}
	sort.Strings(out)
	return out
}

// writeOrCompare writes data to path with -update, and otherwise reports
// whether the file holds it.
func writeOrCompare(path string, data []byte) (bool, error) {
	if *update {
		return true, os.WriteFile(path, data, 0o644)
	}
	have, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	return bytes.Equal(have, data), nil
}

// TestOpenAPIDocument checks that docs/openapi.json and the emulator's
// copy are what buildPlatformDoc makes (rewrite them with -update), that
// the result is a valid OpenAPI 3.1 document a generator can take, that
// it describes the operations of described and the platform's own, and
// that every deviation is marked in it.
func TestOpenAPIDocument(t *testing.T) {
	data, err := buildPlatformDoc()
	require.NoError(t, err)
	for _, path := range []string{platformDocPath, emulatorDocPath} {
		same, err := writeOrCompare(path, data)
		require.NoError(t, err)
		assert.True(t, same, "%s is stale: run `go test -run TestOpenAPIDocument -update` in conformance/", path)
	}

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	require.NoError(t, err)
	assert.True(t, doc.IsOpenAPI31OrLater(), "version %s", doc.OpenAPI)
	require.NoError(t, doc.Validate(t.Context(), openapi3.DisableExamplesValidation()))

	want := []string{"createBankOfferedConsent", "getTppContactInformation", "putTppContactInformation",
		"getCorporateAgreements", "getUser"}
	want = append(want, sandboxOperationIDs...)
	want = append(want, concat(aisOps, paymentOps, basketOps)...)
	want = append(want, servedOnlyOperationIDs...)
	sort.Strings(want)
	assert.Equal(t, want, operationIDs(doc))
	assert.Len(t, want, len(described)+5+len(sandboxOps)+len(servedOnlyOperationIDs), "the operations the SDK calls and those only the emulator serves")

	var tree jsonMap
	require.NoError(t, json.Unmarshal(data, &tree))
	marked := map[string]int{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case jsonMap:
			switch d := x["x-deviation"].(type) {
			case string:
				marked[d]++
			case []any:
				for _, id := range d {
					marked[id.(string)]++
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(tree)
	for i := range deviations {
		id := deviationID(i + 1)
		assert.Positive(t, marked[id], "deviation %s is marked nowhere", id)
	}
	assert.Len(t, marked, len(deviations), "marks of deviations the table does not have: %v", marked)
	assert.NotContains(t, string(data), "exclusiveMinimum\": false", "a 3.0 boolean bound is left")
}

// TestPlatformDocFinds checks that docs/openapi.json takes what the
// platform does where Berlin Group would not (the deviations), and still
// reports what neither allows: each case changes one thing of a valid
// payment initiation and its recorded answer.
func TestPlatformDocFinds(t *testing.T) {
	t.Parallel()
	spec, err := loadPlatformSpec()
	require.NoError(t, err)
	build := func(mutate func(h http.Header, body, answer map[string]any), path string) exchange {
		h, body := sepaRequest()
		h.Set("x-accept-fix", "amount-as-string")
		h.Set("TPP-Session-ID", "s-1")
		h.Set("PSU-ID", "a2b1c3d4-0000-4000-8000-000000000001") // required on payment creation (section 4.1)
		ans := answerDoc(t, "payment-sepa-create-201.json")
		mutate(h, body, ans)
		req, err := json.Marshal(body)
		require.NoError(t, err)
		data, err := json.Marshal(ans)
		require.NoError(t, err)
		rh := http.Header{}
		rh.Set("Content-Type", "application/json")
		rh.Set("X-Request-ID", h.Get("X-Request-ID"))
		return exchange{method: http.MethodPost, path: path, reqHeader: h, reqBody: req, status: 201, respHeader: rh, respBody: data}
	}
	none := func(http.Header, map[string]any, map[string]any) {}
	tests := []struct {
		name string
		x    exchange
		loc  string // "" for no finding
		msg  string
	}{
		{"recorded answer with verbs (11.13)", build(none, sepaPath), "", ""},
		{"NDCT product (11.1)", build(none, ndctPath), "", ""},
		{"platform address members (11.14)", build(func(_ http.Header, b, _ map[string]any) {
			b["creditorAddress"] = map[string]any{"street": "Storgata 1", "postalCode": "0155", "city": "Oslo", "country": "NO"}
		}, sepaPath), "", ""},
		{"structured reference object (11.17)", build(func(_ http.Header, b, _ map[string]any) {
			b["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "2345676", "referenceType": "KID"}}
		}, ndctPath), "", ""},
		{"listed auth method (11.7)", build(func(h http.Header, _, _ map[string]any) { h.Set("X-PSU-AuthMethod-Preferred", "HA2") }, sepaPath), "", ""},
		{"unlisted auth method", build(func(h http.Header, _, _ map[string]any) { h.Set("X-PSU-AuthMethod-Preferred", "FACE_ID") }, sepaPath),
			"request header x-psu-authmethod-preferred", "must be one of"},
		{"PSU-Context neither", build(func(h http.Header, _, _ map[string]any) { h.Set("PSU-Context", "BUSINESS") }, sepaPath),
			"request header psu-context", "must be one of"},
		{"product neither offers", build(none, "/v1/payments/instant-sepa-credit-transfers"),
			"request path payment-product", "must be one of"},
		{"address member misspelt", build(func(_ http.Header, b, _ map[string]any) {
			b["creditorAddress"] = map[string]any{"streetname": "Storgata 1", "country": "NO"}
		}, sepaPath), "request body /creditorAddress/streetname", "member not defined"},
		{"verbs not a list", build(func(_ http.Header, _, a map[string]any) {
			a["_links"].(map[string]any)["self"].(map[string]any)["verbs"] = "GET"
		}, sepaPath), "response body /_links/self/verbs", "must be an array"},
		{"answer without paymentId", build(func(_ http.Header, _, a map[string]any) { delete(a, "paymentId") }, sepaPath),
			"response body /paymentId", "required member missing"},
		{"header the platform does not define", build(func(h http.Header, _, _ map[string]any) { h.Set("X-Trace", "1") }, sepaPath),
			"request header x-trace", "not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			findings, err := spec.check(t.Context(), tt.x)
			require.NoError(t, err)
			if tt.loc == "" {
				assert.Empty(t, findings)
				return
			}
			require.Len(t, findings, 1, "findings: %v", findings)
			assert.Equal(t, tt.loc, findings[0].loc)
			assert.Contains(t, findings[0].msg, tt.msg)
		})
	}
}

// TestPlatformDocFindsPlatformOperations checks that the description of
// the platform's own operations (11.23 to 11.25) takes their recorded
// answers and a mock-data request as the SDK sends them, and reports a
// broken one: each case changes one thing of a valid exchange.
func TestPlatformDocFindsPlatformOperations(t *testing.T) {
	t.Parallel()
	spec, err := loadPlatformSpec()
	require.NoError(t, err)
	recorded := func(file string) any {
		data, err := os.ReadFile("testdata/platform/" + file)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(data, &v))
		return v
	}
	customers := func(mutate func(first map[string]any)) exchange {
		list := recorded("sandbox-customers.json")
		mutate(list.([]any)[0].(map[string]any))
		return getExchange(t, "/v1/sandbox/customers", "withAccounts=true&withAgreements=true", list)
	}
	agreements := func(mutate func(doc map[string]any) any) exchange {
		x := getExchange(t, "/v1/agreements", "", mutate(recorded("agreements.json").(map[string]any)))
		x.reqHeader.Set("TPP-Redirect-URI", "https://tpp.example/callback")       // every call outside the sandbox
		x.reqHeader.Set("TPP-Session-ID", "3f2b6f0e-6d1c-4a0e-9a57-3d2f1c0b9e11") // a read of the PSU's session
		return x
	}
	newCustomer := func(mutate func(b map[string]any)) exchange {
		b := map[string]any{"customerNumber": "15867512345", "customerType": "PRIVATE", "customerName": "Kari Testperson"}
		mutate(b)
		x := getExchange(t, "/v1/sandbox/customers", "", recorded("sandbox-customers.json").([]any)[0])
		x.method, x.status = http.MethodPost, 201
		x.reqBody, err = json.Marshal(b)
		require.NoError(t, err)
		x.reqHeader.Set("Content-Type", "application/json")
		x.reqHeader.Set("Digest", "SHA-256=abc=")
		return x
	}
	same := func(doc map[string]any) any { return doc }
	tests := []struct {
		name string
		x    exchange
		loc  string // "" for no finding
		msg  string
	}{
		{"recorded sandbox customers (11.25)", customers(func(map[string]any) {}), "", ""},
		{"recorded agreements (11.23)", agreements(same), "", ""},
		{"a customer without customerNumber", customers(func(c map[string]any) { delete(c, "customerNumber") }),
			"response body /0/customerNumber", "required member missing"},
		{"a customer type neither", customers(func(c map[string]any) { c["customerType"] = "BUSINESS" }),
			"response body /0/customerType", "allowed values"},
		{"an agreement without its engagements link", customers(func(c map[string]any) {
			delete(c["agreements"].([]any)[0].(map[string]any)["_links"].(map[string]any), "engagements")
		}), "response body /0/agreements/0/_links/engagements", "required member missing"},
		{"agreements as a bare array", agreements(func(d map[string]any) any { return d["agreements"] }),
			"response body /", "must be an object"},
		{"an agreement without id", agreements(func(d map[string]any) any {
			delete(d["agreements"].([]any)[0].(map[string]any), "id")
			return d
		}), "response body /agreements/0/id", "required member missing"},
		{"new customer as the SDK sends it", newCustomer(func(map[string]any) {}), "", ""},
		// kin-openapi validates these request bodies of a 3.1 document
		// with its JSON Schema validator, whose errors name the member in
		// the message, not in a pointer: the finding is at the body's root.
		{"new customer with a misspelt member", newCustomer(func(b map[string]any) { b["customerNo"] = b["customerNumber"] }),
			"request body /", "'customerNo' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			findings, err := spec.check(t.Context(), tt.x)
			require.NoError(t, err)
			if tt.loc == "" {
				assert.Empty(t, findings)
				return
			}
			require.Len(t, findings, 1, "findings: %v", findings)
			assert.Equal(t, tt.loc, findings[0].loc)
			assert.Contains(t, findings[0].msg, tt.msg)
		})
	}
}

// getExchange is a signed GET of path and query (no PSU) answered 200 with
// answer.
func getExchange(t *testing.T, path, query string, answer any) exchange {
	t.Helper()
	h := http.Header{}
	h.Set("X-Request-ID", "2f6e0c39-3d1c-4a63-8e1b-5f8a2f7f2d10")
	h.Set("Date", "Tue, 03 Mar 2026 09:00:00 GMT")
	h.Set("Signature", `keyId="SN=1,CA=CN=Test",algorithm="rsa-sha256",headers="date x-request-id",signature="c2ln"`)
	h.Set("TPP-Signature-Certificate", "TUlJQw==")
	h.Set("x-accept-fix", "amount-as-string")
	data, err := json.Marshal(answer)
	require.NoError(t, err)
	rh := http.Header{}
	rh.Set("Content-Type", "application/json")
	rh.Set("X-Request-ID", h.Get("X-Request-ID"))
	return exchange{method: http.MethodGet, path: path, rawQuery: query, reqHeader: h, status: 200, respHeader: rh, respBody: data}
}
