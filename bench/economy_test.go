package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool/utils"
	gsjs "github.com/google/jsonschema-go/jsonschema"
	"github.com/invopop/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/adapters/toolopenai"
)

// The Args types of the size table: plain Go types (json tags only, no
// descriptions or constraints), as a program would write them, so that
// every library infers its own schema from the same type.
type (
	// WeatherQuery is a small tool's arguments.
	WeatherQuery struct {
		City  string `json:"city"`
		Days  int    `json:"days,omitempty"`
		Units string `json:"units,omitempty"`
	}

	// IssueSearch is a search with filters: a slice, an optional time, an
	// int64.
	IssueSearch struct {
		Repo      string     `json:"repo"`
		Query     string     `json:"query"`
		Labels    []string   `json:"labels,omitempty"`
		State     string     `json:"state,omitempty"`
		Author    string     `json:"author,omitempty"`
		Since     *time.Time `json:"since,omitempty"`
		Milestone int64      `json:"milestone,omitempty"`
		Limit     int        `json:"limit,omitempty"`
	}

	// Order nests structs: a list of items, a required and an optional
	// address.
	Order struct {
		Customer string      `json:"customer"`
		Items    []OrderItem `json:"items"`
		ShipTo   Address     `json:"ship_to"`
		BillTo   *Address    `json:"bill_to,omitempty"`
		Note     string      `json:"note,omitempty"`
	}
	OrderItem struct {
		SKU      string  `json:"sku"`
		Quantity int     `json:"quantity"`
		Price    float64 `json:"price"`
	}
	Address struct {
		Street     string `json:"street"`
		City       string `json:"city"`
		PostalCode string `json:"postal_code"`
		Country    string `json:"country"`
	}

	// NumericKinds has one field of each common number type.
	NumericKinds struct {
		Level    uint8   `json:"level"`
		ID       int64   `json:"id"`
		Ratio    float64 `json:"ratio"`
		Offset   int32   `json:"offset"`
		Checksum uint64  `json:"checksum"`
		Count    int     `json:"count"`
	}
)

// sizeSource is one way a schema for an Args type reaches a model: a
// toolreg dialect (the schema object inside the adapter's wire JSON) or
// another library's inference.
type sizeSource struct {
	name string
	// bounded: a toolreg dialect that must be no larger than go-sdk's
	// schema for the same type. Not the canonical schema, which keeps the
	// full truth for validation, and not OpenAI strict mode, which must
	// list every property in required and let each optional one take null
	// (see the README): no other library's schema is accepted there.
	bounded bool
	of      func(tool toolreg.AnyTool, schemas peerSchemas) (json.RawMessage, error)
}

// peerSchemas are the other libraries' schemas for one Args type.
type peerSchemas struct{ gosdk, eino, invopop json.RawMessage }

// sizeType is one row of the table.
type sizeType struct {
	name  string
	tool  func() (toolreg.AnyTool, error)
	peers func() (peerSchemas, error)
}

func sizeTypeOf[A any](name string) sizeType {
	return sizeType{
		name: name,
		tool: func() (toolreg.AnyTool, error) {
			return toolreg.New("t", toolDesc, func(context.Context, A) (string, error) { return "", nil })
		},
		peers: func() (peerSchemas, error) {
			var p peerSchemas
			s, err := gsjs.For[A](nil) // what go-sdk's mcp.AddTool infers
			if err != nil {
				return p, err
			}
			if p.gosdk, err = json.Marshal(s); err != nil {
				return p, err
			}
			params, err := utils.GoStruct2ParamsOneOf[A]() // what eino's InferTool infers
			if err != nil {
				return p, err
			}
			es, err := params.ToJSONSchema()
			if err != nil {
				return p, err
			}
			if p.eino, err = json.Marshal(es); err != nil {
				return p, err
			}
			var a A
			p.invopop, err = json.Marshal(jsonschema.Reflect(&a)) // invopop's plain Reflector
			return p, err
		},
	}
}

var sizeTypes = []sizeType{
	sizeTypeOf[WeatherQuery]("weather query (3 fields)"),
	sizeTypeOf[IssueSearch]("issue search (8 fields: []string, *time.Time, int64)"),
	sizeTypeOf[Order]("nested order/address"),
	sizeTypeOf[NumericKinds]("numeric kinds (uint8, int64, float64, int32, uint64, int)"),
}

// sizeSources are the columns, toolreg's dialects first. Each dialect's
// schema is read out of what the adapter sends, so what is measured is
// what the model receives.
var sizeSources = []sizeSource{
	{"canonical", false, func(t toolreg.AnyTool, _ peerSchemas) (json.RawMessage, error) { return t.InputSchema(), nil }},
	{"openai chat", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) { return toolopenai.NewChat(r).ToolsJSON() }, "0", "function", "parameters")},
	{"openai chat strict", false, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolopenai.NewChat(r, toolopenai.WithStrict()).ToolsJSON()
	}, "0", "function", "parameters")},
	{"openai responses", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) { return toolopenai.NewResponses(r).ToolsJSON() }, "0", "parameters")},
	{"anthropic", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) { return toolanthropic.New(r).ToolsJSON() }, "0", "input_schema")},
	{"anthropic strict", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolanthropic.New(r, toolanthropic.WithStrict()).ToolsJSON()
	}, "0", "input_schema")},
	{"gemini", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) { return toolgemini.New(r).ToolsJSON() },
		"0", "functionDeclarations", "0", "parametersJsonSchema")},
	{"gemini legacy", true, adapterSchema(func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolgemini.New(r, toolgemini.WithLegacySchema()).ToolsJSON()
	}, "0", "functionDeclarations", "0", "parameters")},
	{"mcp", true, adapterSchema(mcpToolsList, "tools", "0", "inputSchema")},
	{"go-sdk", false, func(_ toolreg.AnyTool, p peerSchemas) (json.RawMessage, error) { return p.gosdk, nil }},
	{"eino", false, func(_ toolreg.AnyTool, p peerSchemas) (json.RawMessage, error) { return p.eino, nil }},
	{"invopop", false, func(_ toolreg.AnyTool, p peerSchemas) (json.RawMessage, error) { return p.invopop, nil }},
}

// adapterSchema emits a one-tool registry with emit and returns the raw
// JSON at path (object member names and array indexes).
func adapterSchema(emit func(*toolreg.Registry) (json.RawMessage, error), path ...string) func(toolreg.AnyTool, peerSchemas) (json.RawMessage, error) {
	return func(t toolreg.AnyTool, _ peerSchemas) (json.RawMessage, error) {
		reg := toolreg.NewRegistry()
		if err := reg.Add(t); err != nil {
			return nil, err
		}
		raw, err := emit(reg)
		if err != nil {
			return nil, err
		}
		for _, step := range path {
			var next json.RawMessage
			if strings.HasPrefix(string(raw), "[") {
				var arr []json.RawMessage
				if err := json.Unmarshal(raw, &arr); err != nil || len(arr) == 0 {
					return nil, fmt.Errorf("no element %s in %s", step, raw)
				}
				next = arr[0]
			} else {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(raw, &obj); err != nil || obj[step] == nil {
					return nil, fmt.Errorf("no member %s in %s", step, raw)
				}
				next = obj[step]
			}
			raw = next
		}
		return raw, nil
	}
}

// mcpToolsList serves reg with adapters/toolmcp and returns the tools/list
// result as the server writes it to the client.
func mcpToolsList(reg *toolreg.Registry) (json.RawMessage, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	var listed json.RawMessage
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" && err == nil {
				listed, err = json.Marshal(res)
			}
			return res, err
		}
	})
	if _, err := toolmcp.AddTools(srv, reg); err != nil {
		return nil, err
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return nil, err
	}
	return listed, nil
}

// o200k counts tokens with the o200k_base encoding (GPT-4o and later),
// loaded from the BPE file embedded in tiktoken-go-loader: no download.
// Other providers' tokenizers differ, but all are BPE over similar
// vocabularies, and the ratios between schemas are what the table is for.
var o200k = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	return tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
})

var sizesOut = flag.String("sizes", "", "write the schema size table (markdown) to this file")

// size is one cell: the compact schema's bytes and o200k tokens.
type size struct{ bytes, tokens int }

// TestSchemaSizes measures, per Args type, the schema object each toolreg
// dialect sends and each other library infers, in bytes and o200k tokens,
// and checks that the bounded dialects are no larger than go-sdk's schema
// for the same type. With -sizes FILE it writes the table there (bench/run
// prints it).
func TestSchemaSizes(t *testing.T) {
	enc, err := o200k()
	if err != nil {
		t.Fatal(err)
	}
	// Each schema is measured compact, as the adapters send it.
	measure := func(schema json.RawMessage) (size, error) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, schema); err != nil {
			return size{}, err
		}
		return size{buf.Len(), len(enc.Encode(buf.String(), nil, nil))}, nil
	}
	table := make([][]size, len(sizeTypes))
	for i, st := range sizeTypes {
		tool, err := st.tool()
		if err != nil {
			t.Fatal(err)
		}
		peers, err := st.peers()
		if err != nil {
			t.Fatal(err)
		}
		table[i] = make([]size, len(sizeSources))
		for j, src := range sizeSources {
			schema, err := src.of(tool, peers)
			if err != nil {
				t.Fatalf("%s, %s: %v", st.name, src.name, err)
			}
			if table[i][j], err = measure(schema); err != nil {
				t.Fatalf("%s, %s: %v", st.name, src.name, err)
			}
		}
	}
	writeSizes(t, table)
	gosdk := slices.IndexFunc(sizeSources, func(s sizeSource) bool { return s.name == "go-sdk" })
	for i, st := range sizeTypes {
		for j, src := range sizeSources {
			if src.bounded && table[i][j].tokens > table[i][gosdk].tokens {
				t.Errorf("%s: %s is %d tokens, go-sdk's schema %d", st.name, src.name, table[i][j].tokens, table[i][gosdk].tokens)
			}
		}
	}
}

func writeSizes(t *testing.T, table [][]size) {
	var b strings.Builder
	b.WriteString("| type |")
	for _, src := range sizeSources {
		fmt.Fprintf(&b, " %s |", src.name)
	}
	b.WriteString("\n|---|")
	for range sizeSources {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i, st := range sizeTypes {
		fmt.Fprintf(&b, "| %s |", st.name)
		for j := range sizeSources {
			fmt.Fprintf(&b, " %d (%d B) |", table[i][j].tokens, table[i][j].bytes)
		}
		b.WriteString("\n")
	}
	t.Logf("o200k tokens (bytes) of the compact schema object:\n%s", b.String())
	if *sizesOut != "" {
		if err := os.WriteFile(*sizesOut, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
