// Package providers tests a toolreg registry against the providers it is
// sent to, through the adapters and so through every provider SDK: keep it
// to the tests that need them. Package toolregtest holds the helpers that
// need only the registry.
//
// Snapshot keeps every definition a registry emits, in every provider
// dialect, in a golden file under testdata/: a changed Args type, tag or
// description shows up in review as a schema diff, and
// TOOLREG_UPDATE=1 go test rewrites the file. Limits adds the providers'
// limits (tools per request, strict-mode sizes) to toolregtest.Lint, as
// the adapters check them. Sizes measures every definition in every
// dialect, in bytes and in tokens, with its largest parts, and CheckBudget
// fails a test when a tool or a request takes more tokens than a Budget
// allows.
//
//	func TestTools(t *testing.T) {
//		reg := toolreg.NewRegistry()
//		reg.MustAdd(GetWeather, GetTime)
//		providers.Snapshot(t, reg, "testdata/tools.golden")
//		toolregtest.LintT(t, reg, providers.Limits())
//		providers.CheckBudget(t, reg, providers.Budget{ToolTokens: 600, RequestTokens: 8000})
//	}
package providers
