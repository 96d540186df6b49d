// Package toolreg declares LLM tools once, as typed Go functions, and
// serves them to any model.
//
// A tool is a function func(context.Context, Args) (Result, error) with a
// name and a description written for the model:
//
//	var GetWeather = toolreg.MustNew("get_weather",
//		"Weather forecast for a city. Use it for weather questions only.",
//		func(ctx context.Context, a WeatherArgs) (Forecast, error) { ... })
//
// New reflects the JSON Schema of Args once and prepares its checker;
// nothing on the call path reflects over types or compiles a schema. The
// schema never lies: a field type or tag whose schema would not match what
// the decoder accepts is refused by New with an error naming the field, its
// Go type and the fix.
//
// A Registry holds tools of any types by name, lists them for the model and
// dispatches the model's calls (Call, CallAll). Every failure of a call
// (unknown tool, invalid arguments, a tool error, a panic, a timeout, a
// cancelled context) is an Output with IsError set, a Text the model reads
// and Err for the host; nothing panics. The Text of every result is held
// to a limit (DefaultMaxResultBytes; WithDefaultMaxResultBytes,
// WithMaxResultBytes): a longer one keeps its start and its end, with a
// notice for the model of what it does not see (see ResultCut).
//
// What reaches the model on failure: the library's own texts, which hold
// nothing internal (a panic's value and stack stay in Err), and a tool's
// own error, verbatim. A function's error is its message to the model:
// Output.Text is err.Error(), the text of every error it wraps included,
// so that the model can act on it ("no station near Lyon; try a larger
// city"). An error passed up from a database, an HTTP client or the file
// system may hold what the model must not read (a DSN, a host, a path, a
// token): add ErrorText to the registry, and the model reads your text
// instead while Err keeps the error (one line:
// reg.Use(toolreg.ErrorText(func(error) string { return "the service is unavailable" }))).
//
// Test a tool as the plain function it is with Tool.Call, and the model's
// path with Tool.Invoke.
package toolreg
