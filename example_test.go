package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolreg/toolreg"
)

// WeatherArgs are the arguments of GetWeather. The json tags are the names
// the model writes; the jsonschema tags describe and bound them.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days *int   `json:"days,omitempty" jsonschema:"description=Forecast length in days,minimum=1,maximum=7"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
}

// Forecast is GetWeather's result: the model reads it as JSON.
type Forecast struct {
	City  string    `json:"city"`
	Unit  string    `json:"unit"`
	Highs []float64 `json:"highs"`
}

// GetWeather is declared once, as a package-level typed function.
var GetWeather = toolreg.MustNew("get_weather",
	"Weather forecast for a city. Use it for weather questions only.",
	func(ctx context.Context, a WeatherArgs) (Forecast, error) {
		days := 1
		if a.Days != nil {
			days = *a.Days
		}
		highs := make([]float64, days)
		for i := range highs {
			highs[i] = 20 + float64(i)
		}
		return Forecast{City: a.City, Unit: a.Unit, Highs: highs}, nil
	})

// Declare a tool and read the schema the model will see.
func ExampleNew() {
	fmt.Println(GetWeather.Name())
	fmt.Println(string(GetWeather.InputSchema()))
	// Output:
	// get_weather
	// {"properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1,"description":"Forecast length in days"},"unit":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"}},"additionalProperties":false,"type":"object","required":["city"]}
}

// New reports a declaration the schema could not describe truthfully, with
// the field, its type and the fix.
func ExampleNew_refused() {
	type args struct {
		Wait string `json:"wait" jsonschema:"how long to wait"`
	}
	_, err := toolreg.New("sleep", "Waits.", func(context.Context, args) (string, error) { return "", nil })
	fmt.Println(errors.Is(err, toolreg.ErrInvalidDeclaration))
	fmt.Println(err)
	// Output:
	// true
	// tool "sleep": arguments: field wait (string): jsonschema tag item "how long to wait" is not a keyword; plain text is not read as a description; fix: write jsonschema:"description=how long to wait"
}

// Unit-test a tool as the plain typed function it is.
func ExampleTool_Call() {
	days := 2
	f, err := GetWeather.Call(context.Background(), WeatherArgs{City: "Paris", Days: &days, Unit: "celsius"})
	fmt.Println(f, err)
	// Output:
	// {Paris celsius [20 21]} <nil>
}

// Invoke is the model's path: JSON in, validated, decoded with defaults,
// called, and encoded.
func ExampleTool_Invoke() {
	out := GetWeather.Invoke(context.Background(), json.RawMessage(`{"city":"Paris"}`))
	fmt.Println(out.Text)
	// Output:
	// {"city":"Paris","unit":"celsius","highs":[20]}
}

// Register tools of different types and hand their definitions to a model.
func ExampleRegistry() {
	echo := toolreg.MustNew("echo", "Repeats the text back. Use it to test the connection.",
		func(_ context.Context, a struct {
			Text string `json:"text"`
		}) (string, error) {
			return a.Text, nil
		})
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, echo)
	for _, t := range reg.Tools() {
		fmt.Printf("%s: %s\n", t.Name(), t.Description())
	}
	// Output:
	// get_weather: Weather forecast for a city. Use it for weather questions only.
	// echo: Repeats the text back. Use it to test the connection.
}

// Dispatch a model's calls by name. Errors are results the model can read.
func ExampleRegistry_CallAll() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	outs := reg.CallAll(context.Background(), []toolreg.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo","unit":"fahrenheit"}`)},
		{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome","days":9}`)},
		{ID: "call_3", Name: "get_wheather", Arguments: json.RawMessage(`{}`)},
	})
	for _, o := range outs {
		fmt.Printf("error=%v %s\n", o.IsError, o.Text)
	}
	fmt.Println(errors.Is(outs[1].Err, toolreg.ErrInvalidArguments), errors.Is(outs[2].Err, toolreg.ErrUnknownTool))
	// Output:
	// error=false {"city":"Oslo","unit":"fahrenheit","highs":[20]}
	// error=true invalid arguments for tool "get_weather":
	// - days: 9 is greater than the maximum 7
	// Fix the arguments and call the tool again.
	// error=true there is no tool named "get_wheather"; available tools: get_weather
	// true true
}

// Middleware sees every call and its Output, on every path (Call, CallAll,
// the adapters, MCP): here, a metrics hook counting calls and failures per
// tool. toolreg.Logging is a ready-made one for log/slog.
func ExampleRegistry_Use() {
	type counts struct{ calls, failures int }
	var mu sync.Mutex
	metrics := map[string]*counts{}
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	reg.Use(func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
			out := next.HandleCall(ctx, call)
			mu.Lock()
			defer mu.Unlock()
			c := metrics[call.Name]
			if c == nil {
				c = &counts{}
				metrics[call.Name] = c
			}
			c.calls++
			if out.IsError {
				c.failures++
			}
			return out
		})
	})
	reg.CallAll(context.Background(), []toolreg.ToolCall{
		{ID: "1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
		{ID: "2", Name: "get_weather", Arguments: json.RawMessage(`{}`)},
	})
	fmt.Printf("%+v\n", *metrics["get_weather"])
	// Output:
	// {calls:2 failures:1}
}

// A tool that may hang gets a timeout: the caller has a result on time even
// if the function ignores its context.
func ExampleWithTimeout() {
	slow := toolreg.MustNew("slow_search", "Searches the archive. Slow; use only when asked.",
		func(ctx context.Context, _ struct{}) (string, error) {
			time.Sleep(time.Second) // ignores ctx
			return "found", nil
		}, toolreg.WithTimeout(20*time.Millisecond))
	out := slow.Invoke(context.Background(), nil)
	fmt.Println(out.Text)
	fmt.Println(errors.Is(out.Err, toolreg.ErrTimeout))
	// Output:
	// tool "slow_search" did not finish within 20ms; try again later, perhaps with a smaller request, or go on without it
	// true
}

// Timeout tells a host that runs calls outside a Registry how long to give
// each.
func ExampleTool_Timeout() {
	slow := toolreg.MustNew("slow_search", "Searches the archive. Slow; use only when asked.",
		func(ctx context.Context, _ struct{}) (string, error) { return "found", nil },
		toolreg.WithTimeout(30*time.Second))
	fmt.Println(slow.Timeout())
	// Output:
	// 30s
}
