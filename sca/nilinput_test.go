package sca_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// nilContext is a nil context.Context, the bad argument under test.
func nilContext() context.Context { return nil }

// A nil or zero Manager, Flow or Prepared, a nil context and a nil store
// are bad arguments: each entry point answers a *client.ValidationError
// naming what is missing, never a panic.
func TestNilAndZeroInputsRefusedNotPanicked(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemoryStore()
	f, err := sca.NewFlow("https://tpp.example/cb")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sca.NewManager(f, st)
	if err != nil {
		t.Fatal(err)
	}
	var nm *sca.Manager
	var nf *sca.Flow
	redirectAnswer := json.RawMessage(`{"_links":{"scaRedirect":{"href":"https://bank.example/tap/1234/?state=x"}}}`)
	calls := []struct {
		name, field string
		call        func() error
	}{
		{"nil Manager Session", "manager", func() error { _, err := nm.Session(ctx, "k"); return err }},
		{"zero Manager Session", "manager", func() error { _, err := (&sca.Manager{}).Session(ctx, "k"); return err }},
		{"nil Manager Prepare", "manager", func() error { _, err := nm.Prepare(ctx, "k", nil); return err }},
		{"zero Manager Begin", "manager", func() error { _, err := (&sca.Manager{}).Begin(ctx, "k", nil); return err }},
		{"nil Manager SCAValid", "manager", func() error { _, err := nm.SCAValid(ctx, "k", time.Now()); return err }},
		{"nil Manager UseAgreement", "manager", func() error { _, err := nm.UseAgreement(ctx, "k", "a"); return err }},
		{"nil Manager Sessions", "manager", func() error {
			for _, err := range nm.Sessions(ctx) {
				return err
			}
			return nil
		}},
		{"nil Flow Start", "flow", func() error { _, _, err := nf.Start("k"); return err }},
		{"zero Flow Start", "flow", func() error { _, _, err := (&sca.Flow{}).Start("k"); return err }},
		{"nil Flow ParseCallback", "flow", func() error { _, err := nf.ParseCallback(nil, "https://tpp.example/cb"); return err }},
		{"zero Prepared Redirect", "prepared", func() error { _, _, err := (&sca.Prepared{}).Redirect(ctx, redirectAnswer); return err }},
		{"Manager Session nil ctx", "ctx", func() error { _, err := m.Session(nilContext(), "k"); return err }},
		{"Manager Prepare nil ctx", "ctx", func() error { _, err := m.Prepare(nilContext(), "k", nil); return err }},
		{"Manager UseAgreement nil ctx", "ctx", func() error { _, err := m.UseAgreement(nilContext(), "k", "a"); return err }},
		{"Prepared Redirect nil ctx", "ctx", func() error {
			p, err := m.Prepare(ctx, "k", nil)
			if err != nil {
				return err
			}
			_, _, err = p.Redirect(nilContext(), redirectAnswer)
			return err
		}},
		{"ListSessions nil ctx", "ctx", func() error {
			for _, err := range sca.ListSessions(nilContext(), st) {
				return err
			}
			return nil
		}},
		{"LoadSession nil store", "store", func() error { _, err := sca.LoadSession(ctx, nil, "k"); return err }},
		{"SaveSession nil store", "store", func() error {
			s := &sca.Session{PSUID: "0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11", TPPSessionID: "s1", Context: client.Private, SCAAt: time.Now()}
			return sca.SaveSession(ctx, nil, "k", s)
		}},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				err = tc.call()
			}()
			var ve *client.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("err = %v, want a *client.ValidationError naming %s", err, tc.field)
			}
		})
	}
	t.Run("accessors of nil values", func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panicked: %v", r)
			}
		}()
		if nm.Flow() != nil || nm.Store() != nil || nf.RedirectURI() != "" || (&sca.Flow{}).RedirectURI() != "" ||
			!(*sca.Session)(nil).SCAExpiresAt().IsZero() {
			t.Fatal("a nil value's accessor returned something")
		}
	})
	t.Run("callback handler of a nil Manager", func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panicked: %v", r)
			}
		}()
		var got error
		h := nm.HandlerFor(func(*http.Request) (string, error) { return "k", nil },
			func(w http.ResponseWriter, _ *http.Request, _ *sca.Session, err error) { got = err })
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "https://tpp.example/cb?state=abc", nil))
		var ve *client.ValidationError
		if !errors.As(got, &ve) || ve.Field != "manager" {
			t.Fatalf("done got %v, want a refusal naming manager", got)
		}
	})
}
