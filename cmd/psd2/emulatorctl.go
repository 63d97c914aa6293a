package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

// maxCtlAnswer bounds the control API's answer ctl reads.
const maxCtlAnswer = 64 << 20

// runEmulatorCtl calls one control of a running emulator's control API
// (psd2 emulator -control) and prints its JSON answer:
//
//	psd2 emulator ctl [-out DIR | -control URL -token T] [-bank ID] <control> [name=value ... | JSON]
//
// The control is its name in the API (advance, inject-fault) or the Go
// method's (Advance). Arguments are name=value pairs, a value being JSON
// when it parses as JSON (89, true, ["AISP"], {"amount":"1.00"}) and a
// string otherwise, or one JSON object. The URL and token come from
// -control and -token, else from $PSD2_EMULATOR_CONTROL and
// $PSD2_EMULATOR_TOKEN, else from control.json in the -out directory.
func runEmulatorCtl(ctx context.Context, e *env, args []string) error {
	fs := e.localFlags("emulator ctl", "[-out DIR | -control URL -token T] [-bank ID] <control> [name=value ... | JSON]")
	out := fs.String("out", "psd2-emulator", "the emulator's -out directory, whose control.json names the control API and its token")
	base := fs.String("control", os.Getenv("PSD2_EMULATOR_CONTROL"), "the control API's URL (default $PSD2_EMULATOR_CONTROL, else control.json)")
	token := fs.String("token", os.Getenv("PSD2_EMULATOR_TOKEN"), "the control API's token (default $PSD2_EMULATOR_TOKEN, else control.json)")
	bank := fs.String("bank", "", "the bank, with several (-banks): its id")
	if err := parseLocal(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("name a control (psd2 emulator ctl controls lists them)")
	}
	if *base == "" || *token == "" {
		file := filepath.Join(*out, emulatorcmd.ControlFile)
		data, err := readBounded(file, maxConfig)
		switch {
		case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// Nothing names a control API: a command-line mistake.
			return usagef("no control API given (-control and -token) and %v; start the emulator with -control 127.0.0.1:0", err)
		case err != nil:
			// There is a control.json, but psd2 could not read it: not
			// the operator's mistake, and not a missing file.
			return fmt.Errorf("no control API given (-control and -token), and %s could not be read: %w", file, err)
		}
		var info emulatorcmd.ControlInfo
		if err := json.Unmarshal(data, &info); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if (*base == "" && info.URL == "") || (*token == "" && info.Token == "") {
			return fmt.Errorf("%s names no control API URL or no token: it is not what psd2 emulator -control writes", file)
		}
		if *base == "" {
			*base = info.URL
		}
		if *token == "" {
			*token = info.Token
		}
	}
	name := fs.Arg(0)
	method, path := http.MethodPost, "/controls/"+ctlName(name)
	if name == "controls" || name == "banks" {
		method, path = http.MethodGet, "/"+name
	}
	body, err := ctlArgs(fs.Args()[1:])
	if err != nil {
		return usageError{err}
	}
	u, err := url.Parse(strings.TrimSuffix(*base, "/") + path)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return usagef("-control %q is not an http URL", *base)
	}
	if *bank != "" {
		u.RawQuery = url.Values{"bank": {*bank}}.Encode()
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+*token)
	req.Header.Set("Content-Type", "application/json")
	hc := &http.Client{Transport: &http.Transport{Proxy: nil},
		// The control API never redirects: a redirect is another
		// server's, followed with the token and, on a 303, as a GET of
		// another URL whose 200 would pass for the control's.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// The status line's reason and a Location are the answering server's
	// text, which may not be the control API's: printed clipped, their
	// control characters replaced (clipText), never whole.
	status := clipText(resp.Status)
	if resp.StatusCode/100 == 3 {
		return fmt.Errorf("%s: %s, a redirect to %q, not followed: the control API never redirects; is %s the emulator's control API?", name, status, clipText(resp.Header.Get("Location")), *base)
	}
	answer, tooLarge, err := readAtMost(resp.Body, maxCtlAnswer)
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", name, err)
	}
	if tooLarge {
		return fmt.Errorf("%s: %s, but the answer is larger than %d bytes: not printed", name, status, maxCtlAnswer)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, answer, "", "  ") != nil {
		if resp.StatusCode/100 == 2 {
			// Not the control API (another server on that port, a
			// proxy's page): its 200 is no success of the control.
			return fmt.Errorf("%s: %s, but the answer is not JSON: is %s the emulator's control API?", name, status, *base)
		}
		// Another server's error page is not copied to the terminal
		// (its escape sequences would drive it): its first line, clipped.
		return fmt.Errorf("%s: %s, an answer that is not JSON (%q): is %s the emulator's control API?", name, status, clipText(string(answer)), *base)
	}
	if resp.StatusCode/100 != 2 {
		fmt.Fprint(e.stderr, pretty.String())
		return fmt.Errorf("%s: %s", name, status)
	}
	_, err = fmt.Fprint(e.stdout, pretty.String())
	return err
}

// ctlName is the control API's name of a control given as its API name
// or its Go method's name (Advance, InjectFault).
func ctlName(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && ((rs[i-1] >= 'a' && rs[i-1] <= 'z') || (i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z' && rs[i-1] >= 'A' && rs[i-1] <= 'Z')) {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ctlArgs makes the JSON arguments of name=value pairs, or takes one JSON
// object as it is. A name given twice is refused.
func ctlArgs(args []string) ([]byte, error) {
	if len(args) == 1 && strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		if !json.Valid([]byte(args[0])) {
			return nil, errors.New("the arguments are not valid JSON")
		}
		return []byte(args[0]), nil
	}
	obj := map[string]json.RawMessage{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q: want name=value", a)
		}
		if _, twice := obj[k]; twice {
			// Not the last taken and the other dropped without a word.
			return nil, fmt.Errorf("argument %q: %s is given twice", a, k)
		}
		if json.Valid([]byte(v)) {
			obj[k] = json.RawMessage(v)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}
