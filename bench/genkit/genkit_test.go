package genkit

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

// call is one prepared tool call; only the per-call work is left.
type call func(context.Context) (string, error)

// path is one way of getting from the model's JSON to the Go function.
type path[A any] struct {
	name    string
	prepare func(testing.TB, shape[A]) call
}

// paths lists every path, in the order of the table. "baseline" is the
// bar the others are divided by, measured in this module's run.
func paths[A any]() []path[A] {
	return []path[A]{
		{"baseline", baseline[A]},
		{"genkit_DefineTool_RunRaw_json", genkitRunRaw[A](false)},
		{"genkit_DefineTool_RunRaw_map", genkitRunRaw[A](true)},
	}
}

func BenchmarkSmall(b *testing.B) { benchPaths(b, small) }

func BenchmarkRich(b *testing.B) { benchPaths(b, rich) }

var sink string

func benchPaths[A any](b *testing.B, sh shape[A]) {
	for _, p := range paths[A]() {
		b.Run(p.name, func(b *testing.B) {
			ctx := context.Background()
			c := p.prepare(b, sh)
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

// TestPaths runs every path once and checks the result.
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

// TestRunRawRejects checks that genkit validates the rich schema: an enum
// value outside the enum must fail.
func TestRunRawRejects(t *testing.T) {
	bad := rich
	bad.args = json.RawMessage(`{"city":"Paris","units":"kelvin","days":[0,1,2,3,4,5,6],"filter":{"min":-5,"max":30}}`)
	if _, err := genkitRunRaw[RichArgs](false)(t, bad)(context.Background()); err == nil {
		t.Error("genkit accepted units=kelvin")
	}
}

// baseline is encoding/json into the struct and a direct call.
func baseline[A any](_ testing.TB, sh shape[A]) call {
	return func(ctx context.Context) (string, error) {
		var a A
		if err := json.Unmarshal(sh.args, &a); err != nil {
			return "", err
		}
		return sh.fn(ctx, a)
	}
}

// genkitRunRaw is genkit.DefineTool and ToolDef.RunRaw: input validated
// against the inferred schema, the call, the output validated. With asMap
// the input is the map[string]any that the Generate loop passes (parsed
// once, outside the loop); otherwise the model's raw JSON.
func genkitRunRaw[A any](asMap bool) func(testing.TB, shape[A]) call {
	return func(tb testing.TB, sh shape[A]) call {
		g := genkit.Init(context.Background())
		t := genkit.DefineTool(g, toolName, toolDesc, func(tc *ai.ToolContext, a A) (string, error) {
			return sh.fn(tc, a)
		})
		var input any = sh.args
		if asMap {
			var m map[string]any
			if err := json.Unmarshal(sh.args, &m); err != nil {
				tb.Fatal(err)
			}
			input = m
		}
		return func(ctx context.Context) (string, error) {
			out, err := t.RunRaw(ctx, input)
			if err != nil {
				return "", err
			}
			s, ok := out.(string)
			if !ok {
				return "", fmt.Errorf("genkit: output is %T", out)
			}
			return s, nil
		}
	}
}
