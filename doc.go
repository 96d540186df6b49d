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
// (unknown tool, invalid arguments, a tool error, a panic, a cancelled
// context) is an Output with IsError set and a message the model can act
// on, plus Err for the host; nothing panics and nothing internal reaches
// the model.
//
// Test a tool as the plain function it is with Tool.Call, and the model's
// path with Tool.Invoke.
package toolreg
