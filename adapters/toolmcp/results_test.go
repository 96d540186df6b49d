package toolmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

type listing struct {
	Rows []string `json:"rows"`
}

// TestServeCutResult: a result over the registry's limit reaches a go-sdk
// client cut, as the client's model reads it, and still a success; a tool
// with an output schema sends its whole structuredContent, valid under the
// schema, as the specification requires of every result that is not an
// error.
func TestServeCutResult(t *testing.T) {
	rows := make([]string, 5000)
	for i := range rows {
		rows[i] = fmt.Sprintf("row %d", i)
	}
	reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(2000))
	reg.MustAdd(
		toolreg.MustNew("list", "Lists rows.", func(context.Context, struct{}) (listing, error) { return listing{rows}, nil }),
		toolreg.MustNew("log", "Reads the log.", func(context.Context, struct{}) (string, error) { return strings.Repeat("a line\n", 10_000), nil }),
		toolreg.MustNew("fail", "Fails at length.", func(context.Context, struct{}) (string, error) {
			return "", fmt.Errorf("%s", strings.Repeat("no ", 10_000))
		}),
	)
	srv, _ := newServer(t, reg)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs, _ := connect(t, srv, v, nil)
			listed, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				tool       string
				isError    bool
				structured bool
			}{
				{tool: "list", structured: true},
				{tool: "log"},
				{tool: "fail", isError: true},
			} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
				if err != nil {
					t.Fatalf("%s: %v", tc.tool, err)
				}
				if res.IsError != tc.isError || len(res.Content) != 1 {
					t.Fatalf("%s: isError %v, %d blocks", tc.tool, res.IsError, len(res.Content))
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if len(text) > 2500 || !strings.Contains(text, "of this result left out here") {
					t.Errorf("%s: the text is not cut: %d bytes", tc.tool, len(text))
				}
				if !tc.structured {
					if res.StructuredContent != nil {
						t.Errorf("%s: structuredContent %v", tc.tool, res.StructuredContent)
					}
					continue
				}
				whole, _ := json.Marshal(res.StructuredContent)
				var got listing
				if err := json.Unmarshal(whole, &got); err != nil || len(got.Rows) != len(rows) {
					t.Errorf("%s: structuredContent is not the whole result: %d rows, %v", tc.tool, len(got.Rows), err)
				}
				conforms(t, listed.Tools, tc.tool, string(whole))
			}
		})
	}
}

// TestImportCutResult: a multi-megabyte result of an imported tool is cut
// to the registry's limit, not refused, and a spill of the host's gets it
// whole; MaxResultText holds the importer's tools in place of the
// registry's limit, and ToolOptions may set another for a tool.
func TestImportCutResult(t *testing.T) {
	huge := "START\n" + strings.Repeat("a line of a long result\n", 200_000) + "END" // 4.8 MB
	u := newUpstream()
	for _, name := range []string{"huge", "huge_too"} {
		u.add(&mcp.Tool{Name: name}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
			return text(huge), nil
		})
	}
	u.add(&mcp.Tool{Name: "refuses"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: huge}}}, nil
	})

	var spilled []string
	spill := func(_ context.Context, call toolreg.ToolCall, whole toolreg.Output) (string, error) {
		spilled = append(spilled, whole.Text)
		return "spill/" + call.Name, nil
	}
	check := func(t *testing.T, reg *toolreg.Registry, tool string, limit int, isError bool) {
		t.Helper()
		out := reg.Call(context.Background(), tool, nil)
		if out.IsError != isError || out.Cut == nil || out.Cut.Limit != limit || out.Cut.TextBytes != len(huge) {
			t.Fatalf("%s: isError %v, cut %+v", tool, out.IsError, out.Cut)
		}
		if !strings.HasPrefix(out.Text, "START\n") || !strings.HasSuffix(out.Text, "\nEND") || len(out.Text) > limit+500 {
			t.Errorf("%s: %d bytes: %.100q", tool, len(out.Text), out.Text)
		}
	}

	reg := toolreg.NewRegistry(toolreg.WithResultSpill(spill))
	u.importInto(t, reg)
	check(t, reg, "huge", toolreg.DefaultMaxResultBytes, false)
	check(t, reg, "refuses", toolreg.DefaultMaxResultBytes, true)
	if len(spilled) != 2 || spilled[0] != huge {
		t.Errorf("spilled %d results", len(spilled))
	}
	if out := reg.Call(context.Background(), "huge", nil); !strings.Contains(out.Text, `The whole result is stored as "spill/huge".`) {
		t.Errorf("the notice gives no reference: %.300q", out.Text[toolreg.DefaultMaxResultBytes*3/4-200:])
	}

	reg = toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(20_000))
	u.importInto(t, reg)
	check(t, reg, "huge", 20_000, false)

	reg = toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(20_000))
	u.importInto(t, reg, MaxResultText(5000), ToolOptions(func(tool *mcp.Tool) []toolreg.Option {
		if tool.Name == "huge_too" {
			return []toolreg.Option{toolreg.WithMaxResultBytes(8000)}
		}
		return nil
	}))
	check(t, reg, "huge", 5000, false)
	check(t, reg, "huge_too", 8000, false)
}

// TestImportCutStructured: what else of an imported result than its text
// content is held to the limit too: a 5 MB structuredContent is dropped
// from what the model reads (beside a short text, or made the text when
// the server sends none, then cut), and text resources and resource links
// are cut with the text; a spill still gets the whole.
func TestImportCutStructured(t *testing.T) {
	const limit = 20_000
	rows := make([]string, 250_000)
	for i := range rows {
		rows[i] = fmt.Sprintf("row %d", i)
	}
	big := map[string]any{"rows": rows}
	whole, _ := json.Marshal(big)
	long := strings.Repeat("a line of a long resource\n", 200_000)
	u := newUpstream()
	for name, res := range map[string]*mcp.CallToolResult{
		"beside_text": {Content: []mcp.Content{&mcp.TextContent{Text: "250000 rows"}}, StructuredContent: big},
		"alone":       {StructuredContent: big},
		"resource":    {Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///big.txt", MIMEType: "text/plain", Text: long}}}},
		"link":        {Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///big.txt", Name: "big", Description: long}}},
	} {
		u.add(&mcp.Tool{Name: name}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return res, nil })
	}
	var spilled []toolreg.Output
	reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(limit), toolreg.WithResultSpill(func(_ context.Context, _ toolreg.ToolCall, whole toolreg.Output) (string, error) {
		spilled = append(spilled, whole)
		return "ref", nil
	}))
	u.importInto(t, reg)
	for _, tc := range []struct {
		tool      string
		text      string // "" when the text is cut
		structure bool   // the whole structuredContent is in Cut and the spill
	}{
		{"beside_text", "250000 rows", true},
		{"alone", "", true},
		{"resource", "", false},
		{"link", "", false},
	} {
		spilled = nil
		out := reg.Call(context.Background(), tc.tool, nil)
		if out.IsError || out.Cut == nil || out.Structured != nil || len(spilled) != 1 {
			t.Fatalf("%s: isError %v, cut %v, %d bytes structured, %d spilled", tc.tool, out.IsError, out.Cut != nil, len(out.Structured), len(spilled))
		}
		if tc.text != "" && out.Text != tc.text {
			t.Errorf("%s: text %.200q, want %q", tc.tool, out.Text, tc.text)
		}
		if tc.text == "" && (len(out.Text) > limit+500 || !strings.Contains(out.Text, "left out here")) {
			t.Errorf("%s: the text is not cut: %d bytes", tc.tool, len(out.Text))
		}
		if tc.structure {
			var got, sent map[string]any
			json.Unmarshal(out.Cut.Structured, &got)
			json.Unmarshal(spilled[0].Structured, &sent)
			if len(got["rows"].([]any)) != len(rows) || len(sent["rows"].([]any)) != len(rows) {
				t.Errorf("%s: the whole structuredContent is not kept for the host (%d bytes sent)", tc.tool, len(whole))
			}
		} else if len(spilled[0].Text) < len(long) {
			t.Errorf("%s: the spill got %d bytes, want the whole", tc.tool, len(spilled[0].Text))
		}
	}
}
