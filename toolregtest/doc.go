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
// Arguments makes arguments a model could send to a tool, from the
// schema the model reads (required fields, enums, bounds, formats,
// patterns, recursive types) and accepted by the tool's own validator;
// ArgumentsSeed varies them by seed, ArgumentsFor serves a bare schema, and
// InvalidArguments gives arguments with one fault each, to show what the
// model reads when it gets a call wrong. A schema nothing satisfies is an
// error (ErrUnsatisfiable) that names the field and why.
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
// what the model was sent; fakemodel.EveryTool scripts a model that calls
// every tool of a registry with such arguments.
package toolregtest
