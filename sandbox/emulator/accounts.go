package emulator

import "net/http"

func (s *Server) registerAccountRoutes(mux *http.ServeMux) {}
