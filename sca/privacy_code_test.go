package sca_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/sca"
)

// A failed-SCA callback whose code parameter carries a
// national identity number: the CallbackError's message, String,
// LogValue and JSON must not repeat it.
func TestCallbackErrorHidesBankCode(t *testing.T) {
	const national = "24117912345"
	flow, err := sca.NewFlow("https://tpp.example/cb")
	if err != nil {
		t.Fatal(err)
	}
	for _, param := range []string{"code"} {
		p := &sca.Pending{Key: "k", State: "st", TPPSessionID: "sid-1", ExpiresAt: time.Now().Add(time.Hour)}
		v := url.Values{"state": {"st"}, param: {"PSU " + national}, "status": {"401"}}
		_, err = flow.ParseCallback(p, "https://tpp.example/cb?"+v.Encode())
		if err == nil {
			t.Fatal("no error")
		}
		var log bytes.Buffer
		slog.New(slog.NewJSONHandler(&log, nil)).Info("sca failed", "err", err)
		js, _ := json.Marshal(err)
		for name, out := range map[string]string{"Error": err.Error(), "%v": fmt.Sprintf("%v", err),
			"%#v": fmt.Sprintf("%#v", err), "slog": log.String(), "json": string(js)} {
			if strings.Contains(out, national) {
				t.Errorf("%s: %s leaks the national id: %s", param, name, out)
			}
		}
	}
}
