package genkit

import (
	"context"
	"encoding/json"
)

// The shapes are copies of ../shapes_test.go: this module cannot import
// the parent module without its dependency on invopop/jsonschema v0.14.0.
// Keep the two identical.

// SmallArgs are the arguments of the small tool.
type SmallArgs struct {
	City  string `json:"city"`
	Count int    `json:"count"`
}

// RichArgs are the arguments of the rich tool: an enum, a slice and a
// nested struct, with constraints in invopop's tag dialect, which genkit
// reads.
type RichArgs struct {
	City   string     `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Units  string     `json:"units" jsonschema:"enum=celsius,enum=fahrenheit"`
	Days   []int      `json:"days" jsonschema:"description=Days from today,minItems=1,maxItems=14,minimum=0,maximum=13"`
	Filter RichFilter `json:"filter"`
}

// RichFilter is the nested struct of RichArgs.
type RichFilter struct {
	Min int `json:"min" jsonschema:"description=Lowest temperature to report"`
	Max int `json:"max" jsonschema:"description=Highest temperature to report"`
}

// shape is one tool and one call of it, the same for every path.
type shape[A any] struct {
	name string
	args json.RawMessage // as the model sends them
	fn   func(context.Context, A) (string, error)
	want string // the result every path must return
}

var (
	small = shape[SmallArgs]{
		name: "small",
		args: json.RawMessage(`{"city":"Paris","count":3}`),
		fn:   func(_ context.Context, a SmallArgs) (string, error) { return a.City, nil },
		want: "Paris",
	}
	rich = shape[RichArgs]{
		name: "rich",
		args: json.RawMessage(`{"city":"Paris","units":"celsius","days":[0,1,2,3,4,5,6],"filter":{"min":-5,"max":30}}`),
		fn:   func(_ context.Context, a RichArgs) (string, error) { return a.City, nil },
		want: "Paris",
	}
)

const (
	toolName = "weather"
	toolDesc = "Get the weather forecast for a city."
)
