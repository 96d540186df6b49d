package fakemodel_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// TestRecordUpstreamKeepsNoSecret records through an Upstream whose URL
// carries credentials (a company proxy's user and password, a key in its
// query), and with a secret of Secrets shorter than a key: the file holds
// none of them.
func TestRecordUpstreamKeepsNoSecret(t *testing.T) {
	const (
		password = "proxy-password-0123456789"
		short    = "hunter2"
	)
	live := fakemodel.New(t, fakemodel.Text("Hello."))
	// The upstream is named as a proxy on the network; the client reaches
	// the scripted model whatever host it dials.
	old := http.DefaultClient.Transport
	t.Cleanup(func() { http.DefaultClient.Transport = old })
	http.DefaultClient.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, strings.TrimPrefix(live.URL(), "http://"))
	}}
	file := filepath.Join(t.TempDir(), "upstream.json")
	t.Run("record", func(t *testing.T) {
		s := fakemodel.Replay(t, file, fakemodel.Record(), fakemodel.Secrets(short),
			fakemodel.Upstream(fakemodel.OpenAI, "http://proxyuser:"+password+"@models.proxy.example"))
		resp, err := (&http.Client{Transport: http.DefaultTransport}).Post(s.URL()+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"the door code is `+short+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{password, short} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the recording holds %q:\n%s", secret, data)
		}
	}
}
