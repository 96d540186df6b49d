// Package toolregtest tests a toolreg registry as a model meets it, with
// nothing but the registry: no provider SDK comes with it into a test
// binary.
//
// Invoke, AssertOK and AssertRejected run a tool on the JSON a model would
// send and check the Output it would read. Lint (and LintT in a test)
// reports definitions that would mislead a model: short or duplicated
// descriptions, fields without descriptions, names that are not
// snake_case, struct tags toolreg does not read, and descriptions and enums
// so long that every request pays for them at length.
//
//	func TestTools(t *testing.T) {
//		reg := toolreg.NewRegistry()
//		reg.MustAdd(GetWeather, GetTime)
//		toolregtest.LintT(t, reg)
//		toolregtest.AssertRejected(t, GetWeather, `{"city":"Paris","days":9}`, "days")
//	}
//
// What needs the providers lives in package toolregtest/providers, which
// imports the adapters: snapshots of every definition in every provider's
// dialect (providers.Snapshot), the providers' limits as lint rules
// (toolregtest.LintT(t, reg, providers.Limits())), and the size of every
// definition in tokens, held to a budget (providers.CheckBudget).
//
// A whole agent run is tested with package toolregtest/fakemodel: a
// scripted model behind an httptest server that speaks each provider's
// wire format, for the real SDK client and the real runner, and records
// what the model was sent.
package toolregtest
