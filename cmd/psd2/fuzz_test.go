package main

import (
	"bytes"
	"testing"
	"time"
)

// FuzzVerify feeds verify's parser and checks arbitrary captured
// requests: it must never panic, and a request it reads gets a report
// that is OK exactly when it has no finding.
func FuzzVerify(f *testing.F) {
	f.Add([]byte("GET /api/v1/accounts HTTP/1.1\nHost: x\nDate: Mon, 02 Jan 2006 15:04:05 GMT\nSignature: keyId=\"SN=1,CA=CN=x\",algorithm=\"rsa-sha256\",headers=\"date\",signature=\"AA==\"\n\n"))
	f.Add([]byte("POST /api/v1/payments HTTP/1.1\r\nDigest: SHA-256=x\r\nSignature: =?utf-8?B?a2V5SWQ9IiI=?=\r\n\r\n{\"a\":1}"))
	f.Add([]byte("garbage"))
	f.Add([]byte("POST /api/v1/signing-baskets HTTP/1.1\nContent-Length: 3\nSignature: keyId=\"=?utf-8?B?U049MQ==?=\",algorithm=\"rsa-sha256\",headers=\"Date X-Request-ID\",signature=\"AA==\"\n\n{}\n\n"))
	f.Add([]byte("GET https://psd2.bank.example/api/v1/accounts\nSignature: =?iso-8859-1?Q?keyId=3D=22SN=3D1,CA=3DCN=3D=F8=22?=\n"))
	now := time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, body, err := readCapture(bytes.NewReader(raw))
		if err != nil {
			return
		}
		rep := verifyRequest(req, body, nil, now, time.Minute)
		if rep.OK != (len(rep.Findings) == 0) {
			t.Fatalf("OK %v with %d findings", rep.OK, len(rep.Findings))
		}
	})
}
