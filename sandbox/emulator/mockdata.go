package emulator

import "net/http"

func (s *Server) registerSandboxRoutes(mux *http.ServeMux) {}
