package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolreg/toolreg"
)

// MustNew declares a tool as a package-level variable; a bad declaration
// panics at start-up, where a test of the package reports it at once.
func ExampleMustNew() {
	fmt.Println(GetWeather.Name(), GetWeather.Description())
	// Output:
	// get_weather Weather forecast for a city. Use it for weather questions only.
}

// A tool that cannot go on tells the runner to stop after this turn; the
// model still reads the text.
func ExampleStopRun() {
	errBudget := errors.New("the search budget of this run is spent")
	search := toolreg.MustNew("search", "Searches the web.", func(context.Context, struct{}) (string, error) {
		return "", toolreg.StopRun(errBudget)
	})
	out := search.Invoke(context.Background(), nil)
	fmt.Println(out.Text)
	fmt.Println(errors.Is(out.Err, toolreg.ErrStopRun), errors.Is(out.Err, errBudget))
	// Output:
	// the search budget of this run is spent
	// true true
}

// Retry asks the model to fix a call the schema could not judge; the
// runners count retries and stop a model that keeps getting it wrong.
func ExampleRetry() {
	lookup := toolreg.MustNew("lookup_city", "Finds a city by name.", func(_ context.Context, a struct {
		Name string `json:"name"`
	}) (string, error) {
		if a.Name != "Paris" {
			return "", toolreg.Retry(fmt.Errorf("no city called %q; give its name in English", a.Name))
		}
		return "Paris, France", nil
	})
	out := lookup.Invoke(context.Background(), json.RawMessage(`{"name":"Parigi"}`))
	fmt.Println(out.Text)
	// Output:
	// no city called "Parigi"; give its name in English
	// Fix this and call the tool again.
}

// Interrupt pauses a run to ask the host; on resume the tool runs again
// and reads the answer in Info(ctx).Answer. See package agent.
func ExampleInterrupt() {
	pay := toolreg.MustNew("pay", "Pays an invoice.", func(ctx context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		if answer := toolreg.Info(ctx).Answer; answer != nil {
			return "paid, as the host answered " + string(answer), nil
		}
		return "", toolreg.Interrupt(map[string]any{"confirm": fmt.Sprintf("pay %d EUR?", a.Amount)})
	})
	out := pay.Invoke(context.Background(), json.RawMessage(`{"amount":120}`))
	var ie *toolreg.InterruptError
	fmt.Println(errors.As(out.Err, &ie), string(ie.Question))
	// Output:
	// true {"confirm":"pay 120 EUR?"}
}

// Logging writes one line per call: the tool, the id, the size of the
// arguments and, on failure, the kind of failure; never what the model
// sent.
func ExampleLogging() {
	// A handler without the time and the duration, so that the output
	// stays the same from run to run.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "duration" {
			return slog.Attr{}
		}
		return a
	}}))
	reg := toolreg.NewRegistry()
	reg.Use(toolreg.Logging(logger))
	reg.MustAdd(GetWeather)
	reg.CallAll(context.Background(), []toolreg.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
	})
	reg.CallAll(context.Background(), []toolreg.ToolCall{
		{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":99,"token":"s3cret"}`)},
	})
	// Output:
	// level=INFO msg="tool call" tool=get_weather call_id=call_1 args_bytes=16
	// level=WARN msg="tool call failed" tool=get_weather call_id=call_2 args_bytes=43 error="invalid arguments" fields="[days token]"
}

// ErrorText keeps a tool's internal error with the host and tells the
// model something safe instead.
func ExampleErrorText() {
	reg := toolreg.NewRegistry()
	reg.Use(toolreg.ErrorText(func(error) string { return "the database is unavailable; try again later" }))
	reg.MustAdd(toolreg.MustNew("orders", "Lists orders.", func(context.Context, struct{}) (string, error) {
		return "", errors.New("dial tcp 10.0.0.7:5432: connection refused")
	}))
	out := reg.Call(context.Background(), "orders", nil)
	fmt.Println(out.Text)
	fmt.Println(out.Err)
	// Output:
	// the database is unavailable; try again later
	// tool failed: tool "orders": dial tcp 10.0.0.7:5432: connection refused
}

// OnAdd keeps a view of the registry in step as tools are added later.
func ExampleRegistry_OnAdd() {
	reg := toolreg.NewRegistry()
	reg.OnAdd(func(added []toolreg.AnyTool) {
		for _, t := range added {
			fmt.Println("now serving", t.Name())
		}
	})
	reg.MustAdd(GetWeather)
	// Output:
	// now serving get_weather
}

// Lookup finds a tool by the name a model calls it by.
func ExampleRegistry_Lookup() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)
	t, ok := reg.Lookup("get_weather")
	fmt.Println(ok, t.Description())
	_, ok = reg.Lookup("get_wether")
	fmt.Println(ok)
	// Output:
	// true Weather forecast for a city. Use it for weather questions only.
	// false
}

// Limits bound what one call may cost, before anything is parsed.
func ExampleWithMaxValues() {
	sum := toolreg.MustNew("sum", "Adds numbers.", func(_ context.Context, a struct {
		Numbers []float64 `json:"numbers"`
	}) (string, error) {
		return "", nil
	}, toolreg.WithMaxValues(3), toolreg.WithMaxArgumentBytes(64), toolreg.WithMaxDepth(2))
	fmt.Println(sum.Invoke(context.Background(), json.RawMessage(`{"numbers":[1,2,3]}`)).Text)
	// Output:
	// invalid arguments for tool "sum":
	// - the arguments hold more than 3 values (array items and object members); send fewer
	// Fix the arguments and call the tool again.
}

// A title is for people (MCP clients show it); the description is for the
// model.
func ExampleWithTitle() {
	t := toolreg.MustNew("get_weather", "Weather forecast for a city.", GetWeather.Call, toolreg.WithTitle("Weather"))
	fmt.Println(t.Title())
	// Output:
	// Weather
}

// A view of a registry serves a subset of its tools, chosen by tag.
func ExampleRegistry_Select() {
	read := toolreg.MustNew("list_files", "Lists files.", func(context.Context, struct{}) (string, error) { return "a.txt", nil }, toolreg.WithTags("read"))
	write := toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("write"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(read, write)
	readOnly := reg.Select(toolreg.Tagged("read"))
	for _, t := range readOnly.Tools() {
		fmt.Println(t.Name())
	}
	fmt.Println(readOnly.Call(context.Background(), "delete_file", nil).Text)
	// Output:
	// list_files
	// there is no tool named "delete_file"; available tools: list_files
}

// Calls of a tool declared WithApproval, or that the registry's policy
// names, wait for the host before they run; a runner pauses for them (see
// package agent).
func ExampleWithApproval() {
	refund := toolreg.MustNew("refund", "Refunds an order.", func(context.Context, struct {
		Order  string `json:"order"`
		Amount int    `json:"amount"`
	}) (string, error) {
		return "refunded", nil
	}, toolreg.WithApproval())
	reg := toolreg.NewRegistry(toolreg.WithApprovalPolicy(func(c toolreg.ToolCall) bool {
		return c.Name == "get_weather" && string(c.Arguments) == `{"city":"Pyongyang"}`
	}))
	reg.MustAdd(refund, GetWeather)
	fmt.Println(reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "refund", Arguments: json.RawMessage(`{"order":"A1","amount":5}`)}))
	fmt.Println(reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}))
	fmt.Println(reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Pyongyang"}`)}))
	// Output:
	// true
	// false
	// true
}

// Examples show the model good calls; each is checked against the tool's
// schema when the tool is declared.
func ExampleWithExamples() {
	days := 3
	t, err := toolreg.New("get_weather", "Weather forecast for a city.", GetWeather.Call,
		toolreg.WithExamples(WeatherArgs{City: "Paris"}, WeatherArgs{City: "Rome", Days: &days, Unit: "fahrenheit"}))
	fmt.Println(err)
	for _, ex := range t.Examples() {
		fmt.Println(string(ex))
	}
	days = 30
	_, err = toolreg.New("get_weather", "Weather forecast for a city.", GetWeather.Call, toolreg.WithExamples(WeatherArgs{City: "Oslo", Days: &days}))
	fmt.Println(err)
	// Output:
	// <nil>
	// {"city":"Paris"}
	// {"city":"Rome","days":3,"unit":"fahrenheit"}
	// invalid tool declaration: tool "get_weather": example 1 is refused by the tool's own schema: invalid arguments for tool "get_weather":
	// - days: 30 is greater than the maximum 7
}

// A tool from a schema known only at run time: a config file's, a
// plugin's, another server's.
func ExampleNewDynamic() {
	schema := json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"}},"required":["sku"],"additionalProperties":false}`)
	stock := toolreg.MustNewDynamic("stock", "Units in stock for a product.", schema, func(_ context.Context, args json.RawMessage) (string, error) {
		return "12 units of " + string(args), nil
	})
	fmt.Println(stock.Invoke(context.Background(), json.RawMessage(`{"sku":"LMP-0042"}`)).Text)
	fmt.Println(stock.Invoke(context.Background(), json.RawMessage(`{"sku":"lamp"}`)).Text)
	// Output:
	// 12 units of {"sku":"LMP-0042"}
	// invalid arguments for tool "stock":
	// - sku: "lamp" does not match the pattern ^[A-Z]{3}-[0-9]{4}$
	// Fix the arguments and call the tool again.
}

// hostUser is where the host keeps the signed-in user in the context.
type hostUser struct{}

// Info tells a tool about the call it runs in; values the model must not
// set, such as the user, come through the context from the host.
func ExampleInfo() {
	whoami := toolreg.MustNew("whoami", "Says who is asking.", func(ctx context.Context, _ struct{}) (string, error) {
		info := toolreg.Info(ctx)
		return fmt.Sprintf("call %s of %s for user %v", info.ID, info.Tool, ctx.Value(hostUser{})), nil
	})
	reg := toolreg.NewRegistry()
	reg.MustAdd(whoami)
	ctx := context.WithValue(context.Background(), hostUser{}, "ada")
	out := reg.CallAll(ctx, []toolreg.ToolCall{{ID: "call_7", Name: "whoami"}})
	fmt.Println(out[0].Text)
	// Output:
	// call call_7 of whoami for user ada
}

// A hand-written loop tells its tools the step and the attempt, as the
// runners do.
func ExampleWithCallInfo() {
	step := toolreg.MustNew("step", "Says the step.", func(ctx context.Context, _ struct{}) (string, error) {
		info := toolreg.Info(ctx)
		return fmt.Sprintf("step %d, attempt %d, %s", info.Step, info.Attempt, info.Provider), nil
	})
	reg := toolreg.NewRegistry()
	reg.MustAdd(step)
	ctx := toolreg.WithCallInfo(context.Background(), func(toolreg.ToolCall) toolreg.CallInfo {
		return toolreg.CallInfo{Step: 2, Attempt: 1, Provider: "my-loop"}
	})
	fmt.Println(reg.CallAll(ctx, []toolreg.ToolCall{{ID: "c", Name: "step"}})[0].Text)
	// Output:
	// step 2, attempt 1, my-loop
}

// A registry's timeout bounds every call; a tool that ignores its context
// still answers on time, its middleware sees the timeout then, and the
// calls left running are counted.
func ExampleWithDefaultTimeout() {
	release := make(chan struct{})
	defer close(release)
	stuck := toolreg.MustNew("stuck", "Never answers.", func(context.Context, struct{}) (string, error) {
		<-release // ignores its context
		return "", nil
	})
	reg := toolreg.NewRegistry(toolreg.WithDefaultTimeout(10*time.Millisecond), toolreg.WithMaxAbandoned(1))
	reg.MustAdd(stuck)
	fmt.Println(reg.Call(context.Background(), "stuck", nil).Text)
	fmt.Println(reg.Abandoned())
	out := reg.Call(context.Background(), "stuck", nil)
	fmt.Println(errors.Is(out.Err, toolreg.ErrOverloaded))
	// Output:
	// tool "stuck" did not finish within 10ms; try again later, perhaps with a smaller request, or go on without it
	// 1
	// true
}

// A tool returns media beside its text by returning an Output.
func ExampleMedia() {
	chart := toolreg.MustNew("chart", "Draws a chart of sales.", func(context.Context, struct{}) (toolreg.Output, error) {
		png := []byte("\x89PNG...") // a real tool draws one
		return toolreg.Output{Text: "Sales rose 12% in March.", Media: []toolreg.Media{{MIMEType: "image/png", Data: png}}}, nil
	})
	out := chart.Invoke(context.Background(), nil)
	fmt.Println(out.Text, out.Media[0].Kind(), out.Media[0].MIMEType)
	// Output:
	// Sales rose 12% in March. image image/png
}

// WithApprovalIf asks the host only for the calls whose own arguments call
// for it, here refunds above 100; arguments the tool refuses need no
// approval, as they never run.
func ExampleWithApprovalIf() {
	type RefundArgs struct {
		Order  string `json:"order"`
		Amount int    `json:"amount" jsonschema:"minimum=1"`
	}
	refund := toolreg.MustNew("refund", "Refunds an order.", func(_ context.Context, a RefundArgs) (string, error) {
		return "refunded", nil
	}, toolreg.WithApprovalIf(func(_ context.Context, a RefundArgs) bool { return a.Amount > 100 }))
	reg := toolreg.NewRegistry()
	reg.MustAdd(refund)
	for _, args := range []string{`{"order":"A1","amount":5}`, `{"order":"A1","amount":500}`, `{"order":"A1","amount":-5}`} {
		fmt.Println(args, reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: "refund", Arguments: json.RawMessage(args)}))
	}
	// A rule over other arguments than the tool's is refused at declaration.
	_, err := toolreg.New("refund", "Refunds an order.", func(_ context.Context, a RefundArgs) (string, error) {
		return "refunded", nil
	}, toolreg.WithApprovalIf(func(_ context.Context, city string) bool { return true }))
	fmt.Println(errors.Is(err, toolreg.ErrInvalidDeclaration))
	// Output:
	// {"order":"A1","amount":5} false
	// {"order":"A1","amount":500} true
	// {"order":"A1","amount":-5} false
	// true
}
