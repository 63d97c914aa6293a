package emulatorcmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"
)

// ControlInfo is what control.json in the -out directory holds: where the
// control API listens and its token. `psd2 emulator ctl` reads it.
type ControlInfo struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// ControlFile is the name of the control API's file in the -out
// directory (mode 0600: it holds the token).
const ControlFile = "control.json"

// startControl serves h(token) on the -control address (loopback, checked
// again after the listen) with a new random token, and writes
// control.json. It returns the info and a function that stops it. A
// server that stops by itself (its listener failed) is reported to
// fails.
func startControl(cfg *Config, h func(token string) http.Handler, fails *failures) (ControlInfo, func(), error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return ControlInfo{}, nil, err
	}
	token := hex.EncodeToString(b)
	l, err := net.Listen("tcp", cfg.Control)
	if err != nil {
		return ControlInfo{}, nil, err
	}
	if ta, ok := l.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		_ = l.Close()
		return ControlInfo{}, nil, UsageError{fmt.Errorf("-control %q resolved to %s, which is not a loopback address", cfg.Control, l.Addr())}
	}
	srv := &http.Server{
		Handler:           h(token),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	go func() {
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			fails.report(fmt.Errorf("%w: the control API on %s: %w", ErrStopped, l.Addr(), err))
		}
	}()
	info := ControlInfo{URL: "http://" + l.Addr().String(), Token: token}
	data, err := json.MarshalIndent(info, "", "  ")
	if err == nil {
		err = writeFile(filepath.Join(cfg.Out, ControlFile), append(data, '\n'), 0o600)
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	if err != nil {
		stop()
		return ControlInfo{}, nil, err
	}
	return info, stop, nil
}
