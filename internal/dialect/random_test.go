package dialect

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRandomSchemas lowers schemas composed at random from the pieces the
// core emits (and a few it does not) with every dialect: each result is an
// *Error or obeys the provider's rules. The seed is fixed, so a failure
// reproduces.
func TestRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	lowered := map[string]int{}
	for i := range n {
		g := &schemaGen{r: r}
		schema := g.root()
		for _, d := range dialects {
			out, err := d.lower(json.RawMessage(schema))
			if err != nil {
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("#%d %s: %v (%T) is not an *Error\n%s", i, d.name, err, err, schema)
				}
				continue
			}
			if v := d.rules(out); len(v) > 0 {
				t.Fatalf("#%d %s: breaks the rules: %v\nin:  %s\nout: %s", i, d.name, v, schema, out)
			}
			lowered[d.name]++
		}
		if _, err := NewNullStripper(json.RawMessage(schema)); err != nil {
			t.Fatalf("#%d NewNullStripper: %v", i, err)
		}
	}
	for _, d := range dialects { // the generator must not make only refusals
		if lowered[d.name] < n/20 {
			t.Errorf("%s lowered only %d of %d schemas", d.name, lowered[d.name], n)
		}
	}
	t.Logf("lowered without error, of %d: %v", n, lowered)
}

type schemaGen struct {
	r    *rand.Rand
	defs []string // names of the definitions, all written in $defs
}

func (g *schemaGen) root() string {
	if g.r.IntN(3) == 0 {
		g.defs = []string{"A", "B"}
	}
	props := g.object(0)
	var defs []string
	for _, name := range g.defs {
		defs = append(defs, strconv.Quote(name)+":"+g.object(1))
	}
	if len(defs) > 0 {
		return `{"$defs":{` + strings.Join(defs, ",") + `},` + props[1:]
	}
	return props
}

func (g *schemaGen) object(depth int) string {
	n := g.r.IntN(4)
	var props, req []string
	for i := range n {
		name := "p" + strconv.Itoa(i)
		if g.r.IntN(9) == 0 {
			name = "a-b" + strconv.Itoa(i) // refused by Gemini's Schema
		}
		props = append(props, strconv.Quote(name)+":"+g.schema(depth+1))
		if g.r.IntN(2) == 0 {
			req = append(req, strconv.Quote(name))
		}
	}
	s := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false`
	if len(req) > 0 {
		s += `,"required":[` + strings.Join(req, ",") + `]`
	}
	return s + "}"
}

func (g *schemaGen) schema(depth int) string {
	if depth > 4 {
		return `{"type":"string"}`
	}
	pieces := []func() string{
		func() string { return `{"type":"string"}` },
		func() string {
			return `{"type":"string","description":"d","minLength":1,"maxLength":9,"pattern":"^[a-z]+$"}`
		},
		func() string {
			return `{"type":"string","format":"` + []string{"date-time", "uri", "email", "slug"}[g.r.IntN(4)] + `"}`
		},
		func() string {
			return `{"type":"integer","maximum":9223372036854775807,"minimum":-9223372036854775808}`
		},
		func() string { return `{"type":"integer","minimum":1,"maximum":7,"default":3}` },
		func() string { return `{"type":"number","exclusiveMinimum":0,"multipleOf":0.5}` },
		func() string { return `{"type":"boolean"}` },
		func() string { return `{"type":"string","enum":["a","b"]}` },
		func() string { return `{"type":"integer","enum":[1,2]}` },
		func() string { return `{"const":"x"}` },
		func() string { return `{"type":["string","null"]}` },
		func() string { return `{"anyOf":[` + g.schema(depth+1) + `,{"type":"null"}]}` },
		func() string { return `{"oneOf":[` + g.object(depth+1) + `,` + g.object(depth+1) + `]}` },
		func() string { return `{"allOf":[` + g.schema(depth+1) + `],"description":"all"}` },
		func() string { return `{"type":"string","anyOf":[{"format":"ipv4"},{"format":"ipv6"}]}` },
		func() string {
			return `{"type":"array","items":` + g.schema(depth+1) + `,"minItems":` + strconv.Itoa(g.r.IntN(3)) + `}`
		},
		func() string { return g.object(depth) },
		func() string { return `{"type":"object","additionalProperties":` + g.schema(depth+1) + `}` },
		func() string { return `true` },
		func() string {
			if len(g.defs) == 0 {
				return `{"type":"string"}`
			}
			ref := `{"$ref":"#/$defs/` + g.defs[g.r.IntN(len(g.defs))] + `"`
			if g.r.IntN(2) == 0 {
				ref += `,"description":"r"`
			}
			return ref + "}"
		},
	}
	return pieces[g.r.IntN(len(pieces))]()
}
