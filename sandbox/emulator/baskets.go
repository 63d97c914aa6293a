package emulator

import "net/http"

// basketState is the signing baskets' part of the Server state (guarded by
// s.mu). Stub; the baskets helper replaces this file.
type basketState struct{}

func (s *Server) registerBasketRoutes(mux *http.ServeMux) {}
