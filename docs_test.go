package toolreg

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// methodDocs returns the doc comments of Tool's methods, as go doc shows
// them.
func methodDocs(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/toolreg/toolreg")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, typ := range pkg.Types {
		if typ.Name != "Tool" {
			continue
		}
		for _, m := range typ.Methods {
			docs[m.Name] = m.Doc
		}
	}
	return docs
}

// TestToolInvokeDoc: go doc Tool.Invoke shows Invoke's own comment.
func TestToolInvokeDoc(t *testing.T) {
	d := methodDocs(t)["Invoke"]
	for _, want := range []string{"Invoke runs one call from a model", "arguments", "Registry.Call"} {
		if !strings.Contains(d, want) {
			t.Errorf("Tool.Invoke's doc does not say %q: %q", want, d)
		}
	}
}

// TestToolCallDocSaysWhatItSkips: Call's doc names each thing the model's
// path does that Call does not.
func TestToolCallDocSaysWhatItSkips(t *testing.T) {
	d := methodDocs(t)["Call"]
	for _, want := range []string{"Invoke", "Registry.Call", "validation", "defaults", "middleware", "timeouts", "WithTimeout",
		"panic recovery", "result encoding", "ErrToolFailed", "Approval", "NeedsApproval", "done context", "ErrOverloaded", "Info(ctx)"} {
		if !strings.Contains(d, want) {
			t.Errorf("Tool.Call's doc does not mention %q:\n%s", want, d)
		}
	}
}

// TestNoCitationOfMissingProvidersDoc: the docs once cited a providers.md
// that the repository does not hold; a comment points at what exists (a
// provider's own docs, the rule checkers of internal/dialect, the package
// toolregtest/providers) instead.
func TestNoCitationOfMissingProvidersDoc(t *testing.T) {
	if _, err := os.Stat("providers.md"); err == nil {
		t.Skip("providers.md exists")
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "providers.md") && path != "docs_test.go" {
				t.Errorf("%s:%d cites providers.md, which the repository does not hold: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
