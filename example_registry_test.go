package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolreg/toolreg"
)

// Declare a tool once, serve it to a model: hand the registry's
// definitions to the model, and its calls to the registry. What the model
// reads back, failures included, tells it what to do next.
func Example() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	for _, t := range reg.Tools() {
		fmt.Println(t.Name(), string(t.InputSchema()))
	}
	for _, out := range reg.CallAll(context.Background(), []toolreg.ToolCall{ // as a model asked
		{ID: "1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome","days":9}`)},
	}) {
		fmt.Println(out.IsError, out.Text)
	}
	// Output:
	// get_weather {"properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1,"description":"Forecast length in days"},"unit":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"}},"additionalProperties":false,"type":"object","required":["city"]}
	// false {"city":"Paris","unit":"celsius","highs":[20]}
	// true invalid arguments for tool "get_weather":
	// - days: 9 is greater than the maximum 7
	// Fix the arguments and call the tool again.
}

// A registry with options: every call bounded in time, and at most 4
// calls of one turn at once.
func ExampleNewRegistry() {
	reg := toolreg.NewRegistry(toolreg.WithDefaultTimeout(30*time.Second), toolreg.WithMaxConcurrency(4))
	reg.MustAdd(GetWeather)
	fmt.Println(reg.Len(), reg.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Lima"}`)).Text)
	// Output:
	// 1 {"city":"Lima","unit":"celsius","highs":[20]}
}

// Add refuses a name already taken, and then adds nothing of that call.
func ExampleRegistry_Add() {
	reg := toolreg.NewRegistry()
	fmt.Println(reg.Add(GetWeather))
	other := toolreg.MustNew("get_weather", "Another forecast.", GetWeather.Call)
	echo := toolreg.MustNew("echo", "Repeats the text.", func(_ context.Context, a struct {
		Text string `json:"text"`
	}) (string, error) {
		return a.Text, nil
	})
	err := reg.Add(echo, other)
	fmt.Println(errors.Is(err, toolreg.ErrDuplicateTool), err)
	fmt.Println(reg.Len())
	// Output:
	// <nil>
	// true duplicate tool: a tool named "get_weather" is already registered
	// 1
}

// MustAdd is Add for set-up code: it panics on a duplicate.
func ExampleRegistry_MustAdd() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	defer func() { fmt.Println("panic:", recover()) }()
	reg.MustAdd(GetWeather)
	// Output:
	// panic: toolreg: duplicate tool: a tool named "get_weather" is already registered
}

// Call dispatches one call by name, through the middleware; a name the
// registry does not hold is a result that lists the tools, closest first.
func ExampleRegistry_Call() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	fmt.Println(reg.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Oslo"}`)).Text)
	out := reg.Call(context.Background(), "weather", json.RawMessage(`{"city":"Oslo"}`))
	fmt.Println(out.IsError, out.Text)
	// Output:
	// {"city":"Oslo","unit":"celsius","highs":[20]}
	// true there is no tool named "weather"; available tools: get_weather
}

// Len counts the tools; a view counts those it shows.
func ExampleRegistry_Len() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, toolreg.MustNew("reset", "Resets the session.", func(context.Context, struct{}) (string, error) {
		return "done", nil
	}, toolreg.WithTags("admin")))
	fmt.Println(reg.Len(), reg.Select(toolreg.Tagged("admin")).Len())
	// Output:
	// 2 1
}

// Tools lists the tools in registration order, to emit definitions for a
// client no adapter speaks.
func ExampleRegistry_Tools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	for _, t := range reg.Tools() {
		def, _ := json.Marshal(map[string]any{"name": t.Name(), "description": t.Description(), "parameters": t.InputSchema()})
		fmt.Println(string(def))
	}
	// Output:
	// {"description":"Weather forecast for a city. Use it for weather questions only.","name":"get_weather","parameters":{"properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1,"description":"Forecast length in days"},"unit":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"}},"additionalProperties":false,"type":"object","required":["city"]}}
}

// NeedsApproval is what the runners ask before running a call.
func ExampleRegistry_NeedsApproval() {
	refund := toolreg.MustNew("refund", "Refunds an order.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithApproval())
	reg := toolreg.NewRegistry()
	reg.MustAdd(refund, GetWeather)
	fmt.Println(reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "refund"}), reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "get_weather"}))
	// Output:
	// true false
}

// A registry-wide rule: every call of a tool whose name says it deletes
// waits for the host.
func ExampleWithApprovalPolicy() {
	deleteFile := toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil })
	reg := toolreg.NewRegistry(toolreg.WithApprovalPolicy(func(c toolreg.ToolCall) bool {
		return strings.HasPrefix(c.Name, "delete_")
	}))
	reg.MustAdd(deleteFile, GetWeather)
	fmt.Println(reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "delete_file"}), reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "get_weather"}))
	// Output:
	// true false
}

// WithLogger says where the registry reports what has no caller to go to:
// here a listener that panics.
func ExampleWithLogger() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "stack" {
			return slog.Attr{}
		}
		return a
	}}))
	reg := toolreg.NewRegistry(toolreg.WithLogger(logger))
	reg.OnAdd(func([]toolreg.AnyTool) { panic("listener bug") })
	fmt.Println(reg.Add(GetWeather), reg.Len())
	// Output:
	// level=ERROR msg="toolreg: an OnAdd listener panicked" listener=0 panic="listener bug"
	// <nil> 1
}

// While as many calls as WithMaxAbandoned allows run on past their
// deadline, new calls are refused at once; Abandoned counts them.
func ExampleWithMaxAbandoned() {
	release := make(chan struct{})
	defer close(release)
	hang := toolreg.MustNew("hang", "Never answers.", func(context.Context, struct{}) (string, error) {
		<-release // ignores its context
		return "", nil
	}, toolreg.WithTimeout(5*time.Millisecond))
	reg := toolreg.NewRegistry(toolreg.WithMaxAbandoned(2))
	reg.MustAdd(hang, GetWeather)
	for range 3 {
		out := reg.Call(context.Background(), "hang", nil)
		fmt.Println(errors.Is(out.Err, toolreg.ErrTimeout), errors.Is(out.Err, toolreg.ErrOverloaded))
	}
	out := reg.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Oslo"}`))
	fmt.Println(errors.Is(out.Err, toolreg.ErrOverloaded))
	// Output:
	// true false
	// true false
	// false true
	// true
}

// Abandoned is the number of calls still running after their deadline,
// for a metric.
func ExampleRegistry_Abandoned() {
	release := make(chan struct{})
	hang := toolreg.MustNew("hang", "Never answers.", func(context.Context, struct{}) (string, error) {
		<-release // ignores its context
		return "", nil
	}, toolreg.WithTimeout(5*time.Millisecond))
	reg := toolreg.NewRegistry()
	reg.MustAdd(hang)
	reg.Call(context.Background(), "hang", nil)
	fmt.Println(reg.Abandoned())
	close(release)
	for reg.Abandoned() > 0 {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(reg.Abandoned())
	// Output:
	// 1
	// 0
}

// WithMaxConcurrency bounds how many calls of one CallAll run at once:
// here one, for tools that share a connection that takes one request at a
// time.
func ExampleWithMaxConcurrency() {
	var running, most atomic.Int64
	query := toolreg.MustNew("query", "Queries the database.", func(context.Context, struct{}) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		time.Sleep(2 * time.Millisecond)
		return "3 rows", nil
	})
	reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(1))
	reg.MustAdd(query)
	calls := make([]toolreg.ToolCall, 4)
	for i := range calls {
		calls[i] = toolreg.ToolCall{ID: fmt.Sprint(i), Name: "query"}
	}
	outs := reg.CallAll(context.Background(), calls)
	fmt.Println(len(outs), "calls, at most", most.Load(), "at once")
	// Output:
	// 4 calls, at most 1 at once
}

// A Handler is what middleware wraps; HandlerFunc makes one of a
// function, here a stand-in for the registry in a middleware's test.
func ExampleHandlerFunc_HandleCall() {
	redact := func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
			out := next.HandleCall(ctx, call)
			if out.IsError {
				out.Text = "the tool failed"
			}
			return out
		})
	}
	fake := toolreg.HandlerFunc(func(_ context.Context, call toolreg.ToolCall) toolreg.Output {
		return toolreg.Output{Text: "secret details of " + call.Name, IsError: true}
	})
	fmt.Println(redact(fake).HandleCall(context.Background(), toolreg.ToolCall{Name: "orders"}).Text)
	// Output:
	// the tool failed
}

// Check tells whether a call's arguments would be accepted, without
// running anything: a runner asks it before a person approves a call.
func ExampleRegistry_Check() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	_, ok := reg.Check(toolreg.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)})
	fmt.Println(ok)
	out, ok := reg.Check(toolreg.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"town":"Paris"}`)})
	fmt.Println(ok, errors.Is(out.Err, toolreg.ErrInvalidArguments))
	// Output:
	// true
	// false true
}

// Refuse records a call a loop refused in the registry's middleware, with
// the result the model reads, without running the tool.
func ExampleRegistry_Refuse() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	reg.Use(func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
			out := next.HandleCall(ctx, call)
			fmt.Println("logged:", call.Name, out.IsError)
			return out
		})
	})
	out := reg.Refuse(context.Background(), toolreg.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		toolreg.Output{Text: "not now", IsError: true, Err: errors.New("refused by the host")})
	fmt.Println(out.Text)
	// Output:
	// logged: get_weather true
	// not now
}

// A registry of tools that may ignore their context (a library call that
// blocks without one): with WithIsolatedCalls the caller gets its answer
// when its context ends, and the function, abandoned, is counted until it
// returns.
func ExampleWithIsolatedCalls() {
	release := make(chan struct{})
	reg := toolreg.NewRegistry(toolreg.WithIsolatedCalls())
	reg.MustAdd(toolreg.MustNew("legacy_lookup", "Looks a record up in the old system.",
		func(context.Context, struct{}) (string, error) {
			<-release // ignores its context
			return "found", nil
		}))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	out := reg.Call(ctx, "legacy_lookup", nil)
	fmt.Println(out.Text)
	fmt.Println(errors.Is(out.Err, toolreg.ErrTimeout), reg.Abandoned())

	close(release)
	for reg.Abandoned() > 0 {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(reg.Abandoned())
	// Output:
	// tool "legacy_lookup" did not finish before its deadline; try again later, perhaps with a smaller request, or go on without it
	// true 1
	// 0
}
