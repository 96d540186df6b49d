// Package toolregtest tests a toolreg registry as a model meets it.
//
// Snapshot keeps every definition a registry emits, in every provider
// dialect, in a golden file under testdata/: a changed Args type, tag or
// description shows up in review as a schema diff, and go test -update
// rewrites the file. Invoke, AssertOK and AssertRejected run a tool on the
// JSON a model would send and check the Output it would read. Lint (and
// LintT in a test) reports definitions that would mislead a model or that
// a provider would refuse: short or duplicated descriptions, fields
// without descriptions, names that are not snake_case, struct tags toolreg
// does not read, and definitions over a provider's limits.
//
//	func TestTools(t *testing.T) {
//		reg := toolreg.NewRegistry()
//		reg.MustAdd(GetWeather, GetTime)
//		toolregtest.Snapshot(t, reg, "testdata/tools.golden")
//		toolregtest.LintT(t, reg)
//		toolregtest.AssertRejected(t, GetWeather, `{"city":"Paris","days":9}`, "days")
//	}
//
// The package is for tests: it registers the -update flag (see Update)
// and imports the adapters, and with them the provider SDKs.
package toolregtest
