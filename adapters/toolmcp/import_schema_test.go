//go:build unix

package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// TestImportRefusesHostileSchemas: a server's schema is data from outside.
// One that refers to a file (even a FIFO, which a loader would block on)
// or expands past the bound is refused at import, with a reason naming
// the tool, while the server's other tools are imported; the import
// returns, and the file's content is nowhere in what it reports.
func TestImportRefusesHostileSchemas(t *testing.T) {
	const secret = "c0ffee-not-for-the-model"
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(file, []byte(`{"type":"object","required":["`+secret+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	var defs []string
	for i := range 18 { // 1.2 KB: each level refers twice to the next
		defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	doubling := `{"type":"object","$ref":"#/$defs/l0","$defs":{` + strings.Join(append(defs, `"l18":{"type":"object"}`), ",") + `}}`

	u := newUpstream()
	u.add(&mcp.Tool{Name: "fine"}, messageSchema, echo)
	// The SDK's server checks the schemas it is given; a hostile server
	// sends what it likes.
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				list.Tools = append(list.Tools,
					&mcp.Tool{Name: "file_ref", Description: "Reads.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"file://` + file + `"}}}`)},
					&mcp.Tool{Name: "fifo_ref", Description: "Blocks.", InputSchema: json.RawMessage(`{"type":"object","$ref":"file://` + fifo + `"}`)},
					&mcp.Tool{Name: "file_output", Description: "Reads.", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","$ref":"file://` + file + `"}`)},
					&mcp.Tool{Name: "doubling", Description: "Doubles.", InputSchema: json.RawMessage(doubling)})
			}
			return res, err
		}
	})

	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := u.link(t, im, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- im.Import(ctx, cs) }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second): // a guard against a hang, not a measure of speed
		t.Fatal("Import has not returned after 10s")
	}

	if !errors.Is(err, toolreg.ErrInvalidDeclaration) {
		t.Errorf("err = %v, want toolreg.ErrInvalidDeclaration", err)
	}
	if strings.Contains(errText(err), secret) {
		t.Errorf("the error holds the file's content: %v", err)
	}
	wantErrs := []string{
		fmt.Sprintf(`mcp: tool "doubling" of the MCP server "upstream" not imported: invalid tool declaration: tool "doubling": the schema expands to more than %d subschemas`, toolreg.DefaultMaxSchemaNodes),
		`mcp: tool "fifo_ref" of the MCP server "upstream" not imported: invalid tool declaration: tool "fifo_ref": the schema does not compile as draft 2020-12: the schema refers to a document outside itself ("file://` + fifo + `")`,
		`mcp: tool "file_output" of the MCP server "upstream" not imported: invalid tool declaration: tool "file_output": the output schema does not compile as draft 2020-12: the schema refers to a document outside itself ("file://` + file + `")`,
		`mcp: tool "file_ref" of the MCP server "upstream" not imported: invalid tool declaration: tool "file_ref": the schema does not compile as draft 2020-12: the schema refers to a document outside itself ("file://` + file + `")`,
	}
	var got []string
	for _, line := range strings.Split(errText(err), "\n") {
		if strings.HasPrefix(line, "mcp: ") {
			got = append(got, line)
		}
	}
	slices.Sort(got)
	if len(got) != len(wantErrs) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(wantErrs), strings.Join(got, "\n"))
	}
	for i, want := range wantErrs {
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("error %d:\n got %s\nwant %s…", i, got[i], want)
		}
	}
	var names []string
	for _, tool := range reg.Tools() {
		names = append(names, tool.Name())
	}
	if diff := cmp.Diff([]string{"fine"}, names); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
}
