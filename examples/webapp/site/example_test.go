package site_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tppkit/psd2/examples/webapp/site"
)

// StartSandbox serves the site over an in-process bank sandbox; a browser
// (here an http.Client) opens its home page.
func ExampleStartSandbox() {
	sb, err := site.StartSandbox(site.SandboxOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sb.Close()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(sb.URL + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(page), `<a class="button" href="/connect">Connect your bank</a>`))
	// Output:
	// 200 true
}
