package toolregtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sdks are the module paths of the provider SDKs the adapters import.
var sdks = []string{
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
	"google.golang.org/genai",
	"github.com/modelcontextprotocol/go-sdk",
}

// tokenizer is the module that counts tokens for providers.Sizes. Its
// vocabularies are compiled in (megabytes of Go source), so it too comes
// only with toolregtest/providers, which measures definitions in the
// providers' dialects.
const tokenizer = "github.com/tiktoken-go/tokenizer"

// TestDependencies: a test binary that imports toolregtest gets no
// provider SDK and no tokenizer (go list -deps, every build constraint as
// go test applies it); those come only with toolregtest/providers, which
// imports the adapters. The providers row shows the check sees an SDK
// where there is one.
func TestDependencies(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	for _, tc := range []struct {
		pkg  string
		want []string // the SDKs and the tokenizer among its dependencies
	}{
		{".", nil},
		// The fake models import the options that point each SDK at them.
		{"./fakemodel", []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go", "google.golang.org/genai"}},
		{"./providers", []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go", "google.golang.org/genai", "github.com/modelcontextprotocol/go-sdk", tokenizer}},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", tc.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			var got []string
			for _, dep := range strings.Fields(string(out)) {
				for _, sdk := range append(sdks, tokenizer) {
					if (dep == sdk || strings.HasPrefix(dep, sdk+"/")) && !slices.Contains(got, sdk) {
						got = append(got, sdk)
					}
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("provider SDKs among the dependencies of %s (-want +got):\n%s", tc.pkg, diff)
			}
		})
	}
}
