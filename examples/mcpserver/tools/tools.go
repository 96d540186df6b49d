// Package tools declares the tools of the example MCP server
// (examples/mcpserver), each once as a typed Go function, and builds the
// server; examples/bridge serves it in memory.
package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// version is reported to clients as serverInfo.version.
const version = "v0.1.0"

// NewServer is an MCP server with the example's tools. It logs each call
// (see toolreg.Logging): what failed and where, never what the model sent,
// which may hold a secret.
func NewServer(logger *slog.Logger) (*mcp.Server, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "toolreg-example", Title: "toolreg example tools", Version: version}, nil)
	reg := registry()
	reg.Use(toolreg.Logging(logger))
	if _, err := toolmcp.AddTools(server, reg, options...); err != nil {
		return nil, err
	}
	return server, nil
}

// registry declares the example's tools, each once, as typed Go functions.
func registry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(calculate, convertUnits, listUnits, textStats)
	return reg
}

// options are the MCP side of the tools: annotations, and a dotted name
// that only MCP accepts.
var options = []toolmcp.Option{
	toolmcp.Annotate("calculate", toolmcp.ReadOnly(true), toolmcp.Idempotent(true), toolmcp.OpenWorld(false)),
	toolmcp.Annotate("convert_units", toolmcp.ReadOnly(true), toolmcp.Idempotent(true), toolmcp.OpenWorld(false)),
	toolmcp.Annotate("list_units", toolmcp.ReadOnly(true), toolmcp.Idempotent(true), toolmcp.OpenWorld(false)),
	toolmcp.Annotate("text_stats", toolmcp.ReadOnly(true), toolmcp.Idempotent(true), toolmcp.OpenWorld(false)),
	toolmcp.Rename("text_stats", "text.stats"),
}

// CalcArgs are the arguments of calculate.
type CalcArgs struct {
	Operation string  `json:"operation" jsonschema:"enum=add,enum=subtract,enum=multiply,enum=divide,enum=power,description=What to do with a and b: a+b\\, a-b\\, a*b\\, a/b or a to the power b"`
	A         float64 `json:"a" jsonschema:"description=The first operand"`
	B         float64 `json:"b" jsonschema:"description=The second operand"`
}

// CalcResult is calculate's structured result.
type CalcResult struct {
	Expression string  `json:"expression"`
	Value      float64 `json:"value"`
}

var calculate = toolreg.MustNew("calculate",
	"Exact arithmetic on two numbers (add, subtract, multiply, divide, power). Use it rather than computing in your head; "+
		"chain calls for longer expressions. It does not parse expressions or units.",
	func(_ context.Context, a CalcArgs) (CalcResult, error) {
		var v float64
		var op string
		switch a.Operation {
		case "add":
			v, op = a.A+a.B, "+"
		case "subtract":
			v, op = a.A-a.B, "-"
		case "multiply":
			v, op = a.A*a.B, "*"
		case "divide":
			if a.B == 0 {
				return CalcResult{}, errors.New("cannot divide by zero; check the operands")
			}
			v, op = a.A/a.B, "/"
		case "power":
			v, op = math.Pow(a.A, a.B), "^"
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return CalcResult{}, fmt.Errorf("%s %s %s has no finite result (too large, or a fractional power of a negative number)", num(a.A), op, num(a.B))
		}
		return CalcResult{Expression: fmt.Sprintf("%s %s %s", num(a.A), op, num(a.B)), Value: v}, nil
	}, toolreg.WithTitle("Calculator"))

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// unit is one unit convertUnits knows: value in the base unit of its kind
// is v*scale + offset.
type unit struct {
	Symbol string `json:"symbol"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	scale  float64
	offset float64
}

var units = []unit{
	{"m", "metre", "length", 1, 0},
	{"km", "kilometre", "length", 1000, 0},
	{"cm", "centimetre", "length", 0.01, 0},
	{"mi", "mile", "length", 1609.344, 0},
	{"ft", "foot", "length", 0.3048, 0},
	{"in", "inch", "length", 0.0254, 0},
	{"kg", "kilogram", "mass", 1, 0},
	{"g", "gram", "mass", 0.001, 0},
	{"lb", "pound", "mass", 0.45359237, 0},
	{"oz", "ounce", "mass", 0.028349523125, 0},
	{"K", "kelvin", "temperature", 1, 0},
	{"C", "degree Celsius", "temperature", 1, 273.15},
	{"F", "degree Fahrenheit", "temperature", 5.0 / 9, 273.15 - 32*5.0/9},
}

func lookupUnit(symbol string) unit {
	i := slices.IndexFunc(units, func(u unit) bool { return u.Symbol == symbol })
	return units[i] // the schema's enum admits known symbols only
}

// ConvertArgs are the arguments of convert_units.
type ConvertArgs struct {
	Value     float64 `json:"value" jsonschema:"minimum=-1e12,maximum=1e12,description=The quantity to convert"`
	From      string  `json:"from" jsonschema:"enum=m,enum=km,enum=cm,enum=mi,enum=ft,enum=in,enum=kg,enum=g,enum=lb,enum=oz,enum=K,enum=C,enum=F,description=Unit of value (list_units describes them)"`
	To        string  `json:"to" jsonschema:"enum=m,enum=km,enum=cm,enum=mi,enum=ft,enum=in,enum=kg,enum=g,enum=lb,enum=oz,enum=K,enum=C,enum=F,description=Unit to convert to; of the same kind as from"`
	Precision int     `json:"precision,omitempty" jsonschema:"minimum=0,maximum=10,default=4,description=Digits after the decimal point"`
}

var convertUnits = toolreg.MustNew("convert_units",
	"Converts a quantity between units of length, mass or temperature, e.g. 10 km to mi or 451 F to C. "+
		"Use it for any unit conversion; it does not do currencies.",
	func(_ context.Context, a ConvertArgs) (string, error) {
		from, to := lookupUnit(a.From), lookupUnit(a.To)
		if from.Kind != to.Kind {
			return "", fmt.Errorf("cannot convert %s (%s) to %s (%s); pick two units of the same kind: %s",
				from.Symbol, from.Kind, to.Symbol, to.Kind, symbolsByKind())
		}
		base := a.Value*from.scale + from.offset
		if from.Kind == "temperature" && base < 0 {
			return "", fmt.Errorf("%s %s is below absolute zero (-273.15 C); check the value and the unit", num(a.Value), from.Symbol)
		}
		v := (base - to.offset) / to.scale
		return fmt.Sprintf("%s %s = %s %s", num(a.Value), from.Symbol, strconv.FormatFloat(v, 'f', a.Precision, 64), to.Symbol), nil
	}, toolreg.WithTitle("Unit converter"))

func symbolsByKind() string {
	var parts []string
	for _, kind := range []string{"length", "mass", "temperature"} {
		var syms []string
		for _, u := range units {
			if u.Kind == kind {
				syms = append(syms, u.Symbol)
			}
		}
		parts = append(parts, kind+" "+strings.Join(syms, ", "))
	}
	return strings.Join(parts, "; ")
}

// ListUnitsArgs are the arguments of list_units.
type ListUnitsArgs struct {
	Kind string `json:"kind,omitempty" jsonschema:"enum=length,enum=mass,enum=temperature,description=Only units of this kind; all when left out"`
}

var listUnits = toolreg.MustNew("list_units",
	"Lists the units convert_units knows, with their symbols and kinds. Use it when unsure which symbol to pass.",
	func(_ context.Context, a ListUnitsArgs) ([]unit, error) {
		out := []unit{}
		for _, u := range units {
			if a.Kind == "" || u.Kind == a.Kind {
				out = append(out, u)
			}
		}
		return out, nil
	}, toolreg.WithTitle("Units"))

// TextArgs are the arguments of text_stats.
type TextArgs struct {
	Text string `json:"text" jsonschema:"minLength=1,maxLength=200000,description=The text to measure"`
	Top  int    `json:"top,omitempty" jsonschema:"minimum=1,maximum=50,default=5,description=How many of the most frequent words to list"`
}

// TextStats is text_stats's structured result.
type TextStats struct {
	Characters     int         `json:"characters"`
	Words          int         `json:"words"`
	Lines          int         `json:"lines"`
	Sentences      int         `json:"sentences"`
	ReadingSeconds int         `json:"reading_seconds"`
	TopWords       []WordCount `json:"top_words"`
}

// WordCount is how often a word occurs.
type WordCount struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

var textStats = toolreg.MustNew("text_stats",
	"Counts the characters, words, lines and sentences of a text, estimates its reading time and lists its most frequent words. "+
		"Use it for exact counts, which models get wrong; it says nothing about meaning.",
	func(_ context.Context, a TextArgs) (TextStats, error) {
		words := strings.FieldsFunc(strings.ToLower(a.Text), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		})
		counts := map[string]int{}
		for _, w := range words {
			counts[w]++
		}
		top := make([]WordCount, 0, len(counts))
		for w, c := range counts {
			top = append(top, WordCount{w, c})
		}
		slices.SortFunc(top, func(x, y WordCount) int {
			if x.Count != y.Count {
				return y.Count - x.Count
			}
			return strings.Compare(x.Word, y.Word)
		})
		sentences, open := 0, false // open: words since the last '.', '!' or '?'
		for _, r := range a.Text {
			switch {
			case r == '.' || r == '!' || r == '?':
				if open {
					sentences++
				}
				open = false
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				open = true
			}
		}
		if open {
			sentences++
		}
		return TextStats{
			Characters:     len([]rune(a.Text)),
			Words:          len(words),
			Lines:          strings.Count(strings.TrimRight(a.Text, "\n"), "\n") + 1,
			Sentences:      sentences,
			ReadingSeconds: int(math.Ceil(float64(len(words)) * 60 / 238)), // 238 words a minute, the adult average
			TopWords:       top[:min(a.Top, len(top))],
		}, nil
	}, toolreg.WithTitle("Text statistics"))
