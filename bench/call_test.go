package bench

import (
	"context"
	"encoding/json"
	"testing"
)

// call is one prepared tool call: the tool is declared and registered, the
// arguments are in the form the path takes them, and only the per-call
// work is left.
type call func(context.Context) (string, error)

// path is one way of getting from the model's JSON to the Go function.
type path[A any] struct {
	name    string
	prepare func(testing.TB, shape[A]) call
}

// paths lists every path, in the order of the table. "baseline" is the
// bar the others are divided by; the floor rows (floors_test.go) validate
// nothing.
func paths[A any]() []path[A] {
	ps := []path[A]{
		{"baseline", baseline[A]},
		{"toolreg_Tool.Invoke", toolregInvoke[A]},
		{"toolreg_Registry.Call", toolregRegistryCall[A]},
	}
	ps = append(ps, floors[A]()...)
	return append(ps, []path[A]{
		{"gosdk_AddTool_typed", gosdkTyped[A]},
		{"gosdk_Server.AddTool_raw", gosdkRaw[A]},
		{"gosdk_AddTool_typed_inmemory_roundtrip", gosdkRoundTrip[A]},
		{"mcpgo_typed_handler_direct", mcpgoHandler[A]},
		{"mcpgo_HandleMessage", mcpgoMessage[A](false)},
		{"mcpgo_HandleMessage_validated", mcpgoMessage[A](true)},
		{"eino_InferTool_InvokableRun", einoInvokableRun[A]},
	}...)
}

func BenchmarkSmall(b *testing.B) { benchPaths(b, small) }

func BenchmarkRich(b *testing.B) { benchPaths(b, rich) }

var sink string

func benchPaths[A any](b *testing.B, sh shape[A]) {
	for _, p := range paths[A]() {
		b.Run(p.name, func(b *testing.B) {
			ctx := context.Background()
			c := p.prepare(b, sh)
			// One checked call first: a path that returns the wrong
			// result would be fast for the wrong reason.
			if got, err := c(ctx); err != nil || got != sh.want {
				b.Fatalf("%s: got %q, %v; want %q", p.name, got, err, sh.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				s, err := c(ctx)
				if err != nil {
					b.Fatal(err)
				}
				sink = s
			}
		})
	}
}

// TestPaths runs every path once, so go test without -bench still checks
// that each returns the right result.
func TestPaths(t *testing.T) {
	check := func(t *testing.T, name, want string, c call) {
		got, err := c(context.Background())
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
		}
	}
	for _, p := range paths[SmallArgs]() {
		check(t, "small/"+p.name, small.want, p.prepare(t, small))
	}
	for _, p := range paths[RichArgs]() {
		check(t, "rich/"+p.name, rich.want, p.prepare(t, rich))
	}
}

// baseline is encoding/json into the struct and a direct call: no
// validation, no registry, nothing a model-facing library must add.
func baseline[A any](_ testing.TB, sh shape[A]) call {
	return func(ctx context.Context) (string, error) {
		var a A
		if err := json.Unmarshal(sh.args, &a); err != nil {
			return "", err
		}
		return sh.fn(ctx, a)
	}
}

// TestValidatingPathsReject checks that the paths counted as validating
// really check the rich schema: an enum value outside the enum must fail.
// The other paths (baseline, raw handlers, eino) accept it by design.
func TestValidatingPathsReject(t *testing.T) {
	bad := rich
	bad.args = json.RawMessage(`{"city":"Paris","units":"kelvin","days":[0,1,2,3,4,5,6],"filter":{"min":-5,"max":30}}`)
	validating := map[string]bool{
		"toolreg_Tool.Invoke":                    true,
		"toolreg_Registry.Call":                  true,
		"gosdk_AddTool_typed":                    true,
		"gosdk_AddTool_typed_inmemory_roundtrip": true,
		"mcpgo_HandleMessage_validated":          true,
	}
	for _, p := range paths[RichArgs]() {
		_, err := p.prepare(t, bad)(context.Background())
		if got, want := err != nil, validating[p.name]; got != want {
			t.Errorf("%s: rejected %v, want %v (err: %v)", p.name, got, want, err)
		}
	}
}
