package adapt

import (
	"context"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// BenchmarkRun: a run of two steps against a scripted model, a turn of
// four calls then the answer: what the loop itself costs, gate included.
func BenchmarkRun(b *testing.B) {
	for _, streaming := range []bool{false, true} {
		name := "whole"
		if streaming {
			name = "streamed"
		}
		b.Run(name, func(b *testing.B) {
			var infos []toolreg.CallInfo
			reg := testRegistry(&infos)
			turn := []toolreg.ToolCall{call("1", "weather", `{"city":"Oslo"}`), call("2", "weather", `{"city":"Rome"}`),
				call("3", "weather", `{"city":"Lima"}`), call("4", "weather", `{"city":"Pune"}`)}
			b.ReportAllocs()
			for b.Loop() {
				infos = infos[:0]
				p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{turn, {}}}
				if err := newRun(reg, p, agent.Options{}).Do(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
