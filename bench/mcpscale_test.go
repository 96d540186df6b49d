package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// mcpScaleSizes are the registry sizes of BenchmarkMCPScale.
var mcpScaleSizes = []int{1_000, 4_000, 10_000}

// BenchmarkMCPScale measures a registry served over MCP by
// toolmcp.AddTools as it grows one Add at a time, the way tools arrive from
// several imported servers or from a host that registers them in a loop:
// Adapter_one_Add_at_a_time makes a registry and a server, serves the one
// with the other, then adds the N tools of BenchmarkScale one Add each
// (ns/tool is ns/op ÷ N). SDK_AddTool is the go-sdk's own share: N calls of
// Server.AddTool of tools shaped as the adapter serves them, with no
// registry.
func BenchmarkMCPScale(b *testing.B) {
	impl := &mcp.Implementation{Name: "bench", Version: "v1"}
	for _, n := range mcpScaleSizes {
		tools := scaleTools(n)
		size := fmt.Sprintf("tools=%d", n)
		b.Run("Adapter_one_Add_at_a_time/"+size, func(b *testing.B) {
			addEach(b, tools, func() *toolreg.Registry {
				reg := toolreg.NewRegistry()
				if _, err := toolmcp.AddTools(mcp.NewServer(impl, nil), reg); err != nil {
					b.Fatal(err)
				}
				return reg
			})
		})
		b.Run("SDK_AddTool/"+size, func(b *testing.B) {
			b.ReportAllocs()
			handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			}
			for b.Loop() {
				srv := mcp.NewServer(impl, nil)
				for _, t := range tools {
					srv.AddTool(&mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: json.RawMessage(t.InputSchema())}, handler)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
	}
}

// TestMCPScaleServes checks what BenchmarkMCPScale measures: every tool
// added one Add at a time is listed to a client.
func TestMCPScaleServes(t *testing.T) {
	ctx := context.Background()
	reg := toolreg.NewRegistry()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	if _, err := toolmcp.AddTools(srv, reg); err != nil {
		t.Fatal(err)
	}
	tools := scaleTools(1_000)
	for _, tool := range tools {
		reg.MustAdd(tool)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[tool.Name] = true
	}
	for _, tool := range tools {
		if !listed[tool.Name()] {
			t.Errorf("tool %q not listed", tool.Name())
		}
	}
	if len(listed) != len(tools) {
		t.Errorf("%d tools listed, want %d", len(listed), len(tools))
	}
}
