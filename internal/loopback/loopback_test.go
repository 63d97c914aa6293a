package loopback

import "testing"

func TestHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "LocalHost": true, "localhost.": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"": false, "localhost.example": false, "example.com": false, "10.0.0.1": false,
		"[::1]": false, "127.0.0.1:80": false, "localhost..": false, "::ffff:10.0.0.1": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
