package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// Name is what the model calls the tool by.
func ExampleTool_Name() {
	fmt.Println(GetWeather.Name())
	// Output:
	// get_weather
}

// Description is what the model reads to decide when to call the tool.
func ExampleTool_Description() {
	fmt.Println(GetWeather.Description())
	// Output:
	// Weather forecast for a city. Use it for weather questions only.
}

// InputSchema is the JSON Schema of the arguments, the truth every call is
// checked against; adapters send it to each provider in its dialect.
func ExampleTool_InputSchema() {
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(GetWeather.InputSchema(), &schema)
	fmt.Println("required:", schema.Required)
	fmt.Println("days:", string(schema.Properties["days"]))
	// Output:
	// required: [city]
	// days: {"type":"integer","maximum":7,"minimum":1,"description":"Forecast length in days"}
}

// OutputSchema describes a structured result (MCP clients get it as
// outputSchema, Gemini as the response schema); nil for a text result.
func ExampleTool_OutputSchema() {
	fmt.Println(string(GetWeather.OutputSchema()))
	echo := toolreg.MustNew("echo", "Repeats the text back.", func(_ context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		return a.Text, nil
	})
	fmt.Println(echo.OutputSchema() == nil)
	// Output:
	// {"properties":{"city":{"type":"string"},"unit":{"type":"string"},"highs":{"items":{"type":"number","maximum":1.7976931348623157e308,"minimum":-1.7976931348623157e308},"type":["array","null"]}},"additionalProperties":false,"type":"object","required":["city","unit","highs"]}
	// true
}

// Title is for people; WithTitle sets it.
func ExampleTool_Title() {
	t := toolreg.MustNew("get_weather", "Weather forecast for a city.", GetWeather.Call, toolreg.WithTitle("Weather forecast"))
	fmt.Printf("%q %q\n", t.Title(), GetWeather.Title())
	// Output:
	// "Weather forecast" ""
}

// Tags label a tool, for choosing a step's tools or a view of a registry.
func ExampleTool_Tags() {
	t := toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil },
		toolreg.WithTags("write", "files"))
	fmt.Println(t.Tags())
	// Output:
	// [write files]
}

// WithTags labels tools; a registry's view (Select with Tagged) and a
// run's step (agent.Step.OnlyTagged) choose tools by label.
func ExampleWithTags() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("list_files", "Lists files.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("files", "read")),
		toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("files", "write")),
		GetWeather,
	)
	for _, t := range reg.Select(toolreg.Tagged("files")).Tools() {
		fmt.Println(t.Name())
	}
	// Output:
	// list_files
	// delete_file
}

// Tagged keeps the tools that carry any of the tags.
func ExampleTagged() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("list_files", "Lists files.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("read")),
		toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("write")),
		toolreg.MustNew("read_file", "Reads a file.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("read")),
	)
	fmt.Println(reg.Select(toolreg.Tagged("read")).Len(), reg.Select(toolreg.Tagged("read", "write")).Len())
	// Output:
	// 2 3
}

// Examples are the tool's example arguments, as JSON.
func ExampleTool_Examples() {
	t := toolreg.MustNew("get_weather", "Weather forecast for a city.", GetWeather.Call, toolreg.WithExamples(WeatherArgs{City: "Oslo"}))
	fmt.Println(string(t.Examples()[0]), len(GetWeather.Examples()))
	// Output:
	// {"city":"Oslo"} 0
}

// NeedsApproval reports a tool declared WithApproval.
func ExampleTool_NeedsApproval() {
	refund := toolreg.MustNew("refund", "Refunds an order.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithApproval())
	fmt.Println(refund.NeedsApproval(), GetWeather.NeedsApproval())
	// Output:
	// true false
}

// Dynamic tells a tool declared from a schema from one declared from a Go
// type.
func ExampleTool_Dynamic() {
	stock := toolreg.MustNewDynamic("stock", "Units in stock for a product.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, json.RawMessage) (string, error) { return "12", nil })
	fmt.Println(stock.Dynamic(), GetWeather.Dynamic())
	// Output:
	// true false
}

// MustNewDynamic declares a dynamic tool in set-up code, where a bad
// schema should stop the program; NewDynamic returns the error instead.
func ExampleMustNewDynamic() {
	defer func() { fmt.Println("panic:", recover()) }()
	toolreg.MustNewDynamic("stock", "Units in stock.", json.RawMessage(`{"type":"array"}`),
		func(context.Context, json.RawMessage) (string, error) { return "", nil })
	// Output:
	// panic: toolreg: invalid tool declaration: tool "stock": the schema must describe an object ("type": "object"): every provider passes arguments as one JSON object
}

// A dynamic tool whose result is an Output gives the schema of its
// structured results with WithOutputSchema.
func ExampleWithOutputSchema() {
	price := toolreg.MustNewDynamic("price", "The price of a product.", json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"}}}`),
		func(context.Context, json.RawMessage) (toolreg.Output, error) {
			return toolreg.Output{Text: "12.50 EUR", Structured: json.RawMessage(`{"amount":12.5,"currency":"EUR"}`)}, nil
		}, toolreg.WithOutputSchema(json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"currency":{"type":"string"}}}`)))
	fmt.Println(string(price.OutputSchema()))
	out := price.Invoke(context.Background(), json.RawMessage(`{"sku":"LMP-0042"}`))
	fmt.Println(out.Text, string(out.Structured))
	// Output:
	// {"type":"object","properties":{"amount":{"type":"number"},"currency":{"type":"string"}}}
	// 12.50 EUR {"amount":12.5,"currency":"EUR"}
}

// WithMaxArgumentBytes refuses large arguments before reading them.
func ExampleWithMaxArgumentBytes() {
	note := toolreg.MustNew("save_note", "Saves a note.", func(_ context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		return "saved", nil
	}, toolreg.WithMaxArgumentBytes(32))
	fmt.Println(note.Invoke(context.Background(), json.RawMessage(`{"text":"short"}`)).Text)
	fmt.Println(note.Invoke(context.Background(), json.RawMessage(`{"text":"a note far longer than the tool takes"}`)).Text)
	// Output:
	// saved
	// invalid arguments for tool "save_note":
	// - the arguments are 48 bytes long; the limit is 32: send less
	// Fix the arguments and call the tool again.
}

// WithMaxDepth refuses arguments nested deeper than the tool needs.
func ExampleWithMaxDepth() {
	store := toolreg.MustNew("store", "Stores a value.", func(_ context.Context, a struct {
		Value any `json:"value"`
	}) (string, error) {
		return "stored", nil
	}, toolreg.WithMaxDepth(3))
	fmt.Println(store.Invoke(context.Background(), json.RawMessage(`{"value":[1,2]}`)).Text)
	fmt.Println(store.Invoke(context.Background(), json.RawMessage(`{"value":[[[1]]]}`)).Text)
	// Output:
	// stored
	// invalid arguments for tool "store":
	// - the arguments nest objects and arrays deeper than 3 levels
	// Fix the arguments and call the tool again.
}

// ValidName checks a name built at run time against the rule every
// provider accepts.
func ExampleValidName() {
	fmt.Println(toolreg.ValidName("get_weather"))
	err := toolreg.ValidName("weather.get")
	fmt.Println(errors.Is(err, toolreg.ErrInvalidName), err)
	// Output:
	// <nil>
	// true invalid tool name "weather.get": a tool name must start with a letter or '_' and hold only letters, digits, '_' and '-', 64 characters at most (OpenAI, Anthropic and Bedrock reject other characters such as '.', ' ' or '/'; Gemini rejects a leading digit or dash)
}

// Kind tells images, sounds and files apart, by MIME type.
func ExampleMedia_Kind() {
	for _, m := range []toolreg.Media{{MIMEType: "image/webp"}, {MIMEType: "audio/wav"}, {MIMEType: "application/pdf"}} {
		fmt.Println(m.MIMEType, m.Kind())
	}
	// Output:
	// image/webp image
	// audio/wav audio
	// application/pdf file
}

// ArgumentError tells the host which fields the model got wrong, by path;
// log the paths, not the text, which quotes what the model sent.
func ExampleArgumentError() {
	out := GetWeather.Invoke(context.Background(), json.RawMessage(`{"city":"Rome","days":9,"unit":"kelvin"}`))
	var ae *toolreg.ArgumentError
	if errors.As(out.Err, &ae) {
		for _, p := range ae.Problems {
			fmt.Println(ae.Tool, p.Path)
		}
	}
	fmt.Println(errors.Is(out.Err, toolreg.ErrInvalidArguments))
	// Output:
	// get_weather days
	// get_weather unit
	// true
}

// A panic never reaches the model: it reads that the tool failed, and the
// host finds the value and the stack in a PanicError.
func ExamplePanicError() {
	crash := toolreg.MustNew("crash", "Fails badly.", func(context.Context, struct{}) (string, error) {
		var m map[string]int
		m["boom"]++ // a nil map: panics
		return "", nil
	})
	out := crash.Invoke(context.Background(), nil)
	fmt.Println(out.Text)
	var pe *toolreg.PanicError
	fmt.Println(errors.As(out.Err, &pe), pe.Tool, pe.Value, len(pe.Stack) > 0)
	// Output:
	// tool "crash" failed unexpectedly (an internal error, not caused by your arguments); do not retry the same call
	// true crash assignment to entry in nil map true
}

// DeclarationError names the field, its Go type and the fix of a type New
// refuses.
func ExampleDeclarationError() {
	_, err := toolreg.New("wait", "Waits a while.", func(context.Context, struct {
		For chan int `json:"for"`
	}) (string, error) {
		return "", nil
	})
	var de *toolreg.DeclarationError
	if errors.As(err, &de) {
		fmt.Printf("path=%s type=%s\nwhy: %s\nfix: %s\n", de.Path, de.Type, de.Why, de.Fix)
	}
	// Output:
	// path=for type=chan int
	// why: a chan cannot be represented in JSON
	// fix: remove the field from the arguments or hide it with json:"-"
}

// timeTool is a tool written by hand: any type with the AnyTool methods is
// a tool a Registry serves, for what neither New nor NewDynamic covers.
type timeTool struct{}

func (timeTool) Name() string        { return "get_time" }
func (timeTool) Description() string { return "The current time, for questions about time." }
func (timeTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false}`)
}
func (timeTool) OutputSchema() json.RawMessage { return nil }
func (timeTool) Invoke(_ context.Context, args json.RawMessage) toolreg.Output {
	if len(args) > 0 && string(args) != "{}" {
		return toolreg.Output{Text: "get_time takes no arguments", IsError: true, Err: toolreg.ErrInvalidArguments}
	}
	return toolreg.Output{Text: "10:00"}
}

// A hand-written tool goes in a registry like any other.
func ExampleAnyTool() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(timeTool{}, GetWeather)
	fmt.Println(reg.Call(context.Background(), "get_time", nil).Text)
	fmt.Println(reg.Call(context.Background(), "get_time", json.RawMessage(`{"zone":"UTC"}`)).Text)
	// Output:
	// 10:00
	// get_time takes no arguments
}
