package providers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// updateEnv names the environment variable that makes Snapshot rewrite
// golden files instead of comparing them.
const updateEnv = "TOOLREG_UPDATE"

// updating reports whether TOOLREG_UPDATE asks for golden files to be
// rewritten. It is read on every call, never at init: go test then
// records it, so a cached pass is not replayed once it is set, and a
// test may set it with t.Setenv.
func updating(t testing.TB) bool {
	v := os.Getenv(updateEnv)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		t.Fatalf("toolregtest: %s=%q: set it to 1 to rewrite golden files, or leave it unset", updateEnv, v)
	}
	return on
}

// Snapshot compares every definition reg emits, in every dialect, with the
// golden file at path, and fails t with a diff (-golden +current) when
// they differ. Keep the file under testdata/ and commit it: a changed Args
// type, tag or description then shows up in review as a schema diff, once
// per provider, before a model ever sees it.
//
// With the environment variable TOOLREG_UPDATE=1, Snapshot writes the file
// instead of comparing:
//
//	TOOLREG_UPDATE=1 go test ./...
//
// Nothing is registered on the command line. To tie the rewrite to a
// -update flag of your own, call t.Setenv("TOOLREG_UPDATE", "1") when it
// is set, before Snapshot.
//
// The dialects are the canonical definition (toolreg's own schemas),
// OpenAI Chat Completions (plain and strict), OpenAI Responses, Anthropic
// (plain and strict) and Gemini (parametersJsonSchema and the legacy
// Schema form), each as the adapter's *JSON function sends it. A dialect
// that cannot express a tool does not fail the test: the snapshot records
// "refused: " and the adapter's reason in that tool's section. When the
// adapter refuses a request of all the tools a dialect takes alone (the
// per-request limits of Anthropic strict mode), the reason is recorded in
// a final "=== request" section.
func Snapshot(t testing.TB, reg *toolreg.Registry, path string) {
	t.Helper()
	got := render(reg)
	if updating(t) {
		old, err := os.ReadFile(path)
		if err == nil && normalize(string(old)) == got {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("toolregtest: %v", err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("toolregtest: %v", err)
		}
		t.Logf("toolregtest: wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("toolregtest: golden file %s does not exist; create it with %s=1 go test -run '^%s$', and commit it", path, updateEnv, t.Name())
		return
	}
	if err != nil {
		t.Fatalf("toolregtest: %v", err)
	}
	if diff := cmp.Diff(normalize(string(want)), got); diff != "" {
		t.Errorf("toolregtest: the tool definitions differ from %s (-golden +current):\n%s\n"+
			"If the change is intended, rewrite the file with %s=1 go test -run '^%s$' (git diff then shows all of it) and commit it.", path, diff, updateEnv, t.Name())
	}
}

// normalize undoes a checkout that turned line ends into CRLF.
func normalize(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// render is the text of a snapshot: one section per tool, in registration
// order, holding the tool in every dialect.
func render(reg *toolreg.Registry) string {
	var b strings.Builder
	tools := reg.Tools()
	names := make([]string, len(dialects))
	for i, d := range dialects {
		names[i] = d.name
	}
	fmt.Fprintf(&b, "# Tool definitions as each provider receives them: %d tools; dialects: %s.\n", len(tools), strings.Join(names, ", "))
	b.WriteString("# Written by toolregtest/providers.Snapshot; do not edit: rewrite with TOOLREG_UPDATE=1 go test.\n")
	accepted := make([][]toolreg.AnyTool, len(dialects)) // by dialect, the tools it takes alone
	for _, t := range tools {
		fmt.Fprintf(&b, "\n=== %s\n", t.Name())
		for i, d := range dialects {
			fmt.Fprintf(&b, "\n--- %s\n", d.name)
			def := define(d, t)
			if def.err != nil {
				fmt.Fprintf(&b, "refused: %v\n", def.err)
				continue
			}
			accepted[i] = append(accepted[i], t)
			text, err := indent(def.json)
			if err != nil {
				fmt.Fprintf(&b, "invalid JSON: %v\n%s\n", err, def.json)
				continue
			}
			b.WriteString(text)
			b.WriteByte('\n')
		}
	}
	// A request of every tool a dialect takes alone may still be refused
	// as a whole (Anthropic's per-request strict limits).
	var request strings.Builder
	for i, d := range dialects {
		if len(accepted[i]) == 0 {
			continue
		}
		reg := toolreg.NewRegistry()
		if err := reg.Add(accepted[i]...); err != nil {
			continue
		}
		if _, err := d.emit(reg); err != nil {
			fmt.Fprintf(&request, "\n--- %s\nrefused: %v\n", d.name, err)
		}
	}
	if request.Len() > 0 {
		b.WriteString("\n=== request\n")
		b.WriteString(request.String())
	}
	return b.String()
}
