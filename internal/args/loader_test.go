package args

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestNothingOutsideTheSchemaIsLoaded: a reference to anything outside
// the document, by any keyword and any scheme, is refused with
// ErrExternalReference, naming the reference and nothing of the machine:
// no file is read, no server is asked.
func TestNothingOutsideTheSchemaIsLoaded(t *testing.T) {
	const secret = "c0ffee-not-for-the-model"
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(file, []byte(`{"type":"object","description":"`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object","description":"` + secret + `"}`))
	}))
	defer srv.Close()
	fileURL := "file://" + filepath.ToSlash(file)
	for _, tc := range []struct {
		name, schema, ref string
	}{
		{"$ref to a file URL", `{"type":"object","$ref":"` + fileURL + `"}`, fileURL},
		{"$ref to a path", `{"type":"object","$ref":"` + filepath.ToSlash(file) + `"}`, filepath.ToSlash(file)},
		{"$ref to a missing file", `{"type":"object","$ref":"file:///no/such/dir/x.json"}`, "file:///no/such/dir/x.json"},
		{"$ref to /etc/passwd", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "file:///etc/passwd"},
		{"$id moves the base, then a relative $ref", `{"$id":"file://` + filepath.ToSlash(dir) + `/","type":"object","$ref":"secret.json"}`, fileURL},
		{"$dynamicRef", `{"type":"object","$dynamicRef":"` + fileURL + `#x"}`, fileURL},
		{"$schema a file", `{"$schema":"` + fileURL + `","type":"object"}`, fileURL},
		{"$schema an unknown URL", `{"$schema":"https://example.com/my-draft","type":"object"}`, "https://example.com/my-draft"},
		{"$ref over http", `{"type":"object","$ref":"` + srv.URL + `/s.json"}`, srv.URL + "/s.json"},
		{"$ref over https", `{"type":"object","$ref":"https://example.com/s.json"}`, "https://example.com/s.json"},
		{"$schema over http", `{"$schema":"` + srv.URL + `/meta","type":"object"}`, srv.URL + "/meta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileSchema([]byte(tc.schema), 0)
			if !errors.Is(err, ErrExternalReference) {
				t.Fatalf("CompileSchema = %v, want ErrExternalReference", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.ref) {
				t.Errorf("the error does not name the reference %q: %s", tc.ref, msg)
			}
			for _, leak := range []string{secret, "root:", "no such file", "permission denied", "is a directory"} {
				if strings.Contains(msg, leak) {
					t.Errorf("the error holds %q: %s", leak, msg)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times", n)
	}
}
