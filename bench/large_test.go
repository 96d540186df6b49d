package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// LargeArgs are the arguments of the throughput benchmarks: one long
// string, a list of strings and a list of structs, as a model sends a
// document, its tags and the rows of a table.
type LargeArgs struct {
	Text  string      `json:"text,omitempty" jsonschema:"maxLength=2000000"`
	Tags  []string    `json:"tags,omitempty" jsonschema:"maxItems=100000"`
	Items []LargeItem `json:"items,omitempty"`
}

// LargeItem is one row of LargeArgs.Items.
type LargeItem struct {
	Name string `json:"name" jsonschema:"minLength=1"`
	Qty  int    `json:"qty" jsonschema:"minimum=0"`
	Note string `json:"note,omitempty"`
}

// largeText is prose as a model writes it: words, punctuation, a few
// characters beyond ASCII and a line break (an escape) now and then; n
// bytes of JSON string text.
func largeText(n int) string {
	const line = `The forecast for Zürich says “light rain” until 14:00, then clearing; wind from the north-west at 12 km/h.\n`
	whole := strings.Repeat(line, n/len(line))
	return whole + strings.Repeat(".", n-len(whole))
}

// largeShape makes arguments of about size bytes of one kind: a long
// string, many strings, or many structs.
func largeShape(kind string, size int) shape[LargeArgs] {
	var b strings.Builder
	switch kind {
	case "long_string":
		b.WriteString(`{"text":"` + largeText(size-12) + `"}`)
	case "strings":
		b.WriteString(`{"tags":[`)
		for i := 0; b.Len() < size-40; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"tag-%d weather report"`, i)
		}
		b.WriteString(`]}`)
	case "structs":
		b.WriteString(`{"items":[`)
		for i := 0; b.Len() < size-80; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"station %d","qty":%d,"note":"checked at dawn"}`, i, i%500)
		}
		b.WriteString(`]}`)
	}
	return shape[LargeArgs]{
		name: kind,
		args: json.RawMessage(b.String()),
		fn:   func(_ context.Context, a LargeArgs) (string, error) { return "ok", nil },
		want: "ok",
	}
}

// largeLimits let the largest calls through: 1 MB of strings holds more
// than the default 10,000 values.
var largeLimits = []toolreg.Option{toolreg.WithMaxArgumentBytes(2 << 20), toolreg.WithMaxValues(1 << 20)}

// BenchmarkLarge measures throughput (MB/s) on large valid arguments,
// against encoding/json and against jsontext reading the tokens alone.
func BenchmarkLarge(b *testing.B) {
	rows := []path[LargeArgs]{
		{"baseline", baseline[LargeArgs]},
		{"toolreg_Tool.Invoke", func(tb testing.TB, sh shape[LargeArgs]) call {
			t := toolreg.MustNew(toolName, toolDesc, sh.fn, largeLimits...)
			return func(ctx context.Context) (string, error) { return outputText(t.Invoke(ctx, sh.args)) }
		}},
		{"floor_jsontext_tokens", jsontextTokens[LargeArgs]},
	}
	for _, kind := range []string{"long_string", "strings", "structs"} {
		for _, size := range []struct {
			name  string
			bytes int
		}{{"1KB", 1 << 10}, {"64KB", 64 << 10}, {"1MB", 1 << 20}} {
			sh := largeShape(kind, size.bytes)
			b.Run(kind+"_"+size.name, func(b *testing.B) {
				for _, p := range rows {
					b.Run(p.name, func(b *testing.B) {
						c := p.prepare(b, sh)
						ctx := context.Background()
						if got, err := c(ctx); err != nil || got != sh.want {
							b.Fatalf("%s: got %q, %v", p.name, got, err)
						}
						b.SetBytes(int64(len(sh.args)))
						b.ReportAllocs()
						for b.Loop() {
							if _, err := c(ctx); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			})
		}
	}
}

// TestLargeShapes checks the large arguments: every path decodes them
// alike, and they are the size they are named for.
func TestLargeShapes(t *testing.T) {
	tool := toolreg.MustNew(toolName, toolDesc, func(_ context.Context, a LargeArgs) (LargeArgs, error) { return a, nil }, largeLimits...)
	for _, kind := range []string{"long_string", "strings", "structs"} {
		for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
			sh := largeShape(kind, size)
			if n := len(sh.args); n > size || n < size*9/10 {
				t.Errorf("%s of %d bytes is %d bytes", kind, size, n)
			}
			var want, hand LargeArgs
			if err := json.Unmarshal(sh.args, &want); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if err := handwritten(sh.args, &hand); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			out := tool.Invoke(context.Background(), sh.args)
			if out.IsError {
				t.Fatalf("%s %d: %.300s", kind, size, out.Text)
			}
			var got LargeArgs
			if err := json.Unmarshal([]byte(out.Text), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %d: Invoke decodes otherwise than encoding/json (-json +Invoke):\n%.2000s", kind, size, diff)
			}
			if kind != "long_string" { // the floor does not unescape
				if diff := cmp.Diff(want, hand); diff != "" {
					t.Errorf("%s %d: the hand-written decoder decodes otherwise (-json +hand):\n%.2000s", kind, size, diff)
				}
			}
		}
	}
}
