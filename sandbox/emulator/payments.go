package emulator

import (
	"net/http"

	"github.com/tppkit/psd2/money"
)

// Payment is a snapshot of a payment created in the emulator (stub; the
// payments helper replaces this file).
type Payment struct {
	ID        string
	Product   string
	Status    string
	RequestID string
	Amount    money.Amount
}

// paymentState is the payments' part of the Server state (guarded by s.mu).
type paymentState struct{}

func (s *Server) registerPaymentRoutes(mux *http.ServeMux) {}

// Payments returns a snapshot of the payments created so far, oldest first.
func (s *Server) Payments() []Payment { return nil }
