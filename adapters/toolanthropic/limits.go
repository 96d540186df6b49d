package toolanthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg"
)

// The per-request limits of strict tool use (from Anthropic's
// structured-outputs docs). The API refuses a request over any of them;
// Tools refuses it first, naming the tools.
const (
	// MaxStrictTools is the number of strict tools a request may carry.
	MaxStrictTools = 20
	// MaxStrictOptional is the number of optional properties, at any
	// depth, across the schemas of a request's strict tools.
	MaxStrictOptional = 24
	// MaxStrictUnions is the number of schemas using anyOf or a type array
	// (["string","null"]), at any depth, across a request's strict tools.
	MaxStrictUnions = 16
)

// ErrStrictLimit marks a request whose strict tools exceed one of the
// per-request limits; the error names the limit and the tools.
var ErrStrictLimit = errors.New("strict tools exceed a per-request limit")

// strictCounts is what one strict schema counts against the limits.
type strictCounts struct {
	optional, unions int
}

// countStrict counts as internal/dialect does when it checks one schema
// alone: every property missing from its object's required list, and every
// schema with anyOf or a type array, through properties, items and
// branches (a strict schema has its $refs inlined).
func countStrict(schema json.RawMessage) (strictCounts, error) {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return strictCounts{}, err
	}
	var c strictCounts
	var walk func(v any)
	walk = func(v any) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := s["properties"].(map[string]any); ok {
			required := map[string]bool{}
			if r, ok := s["required"].([]any); ok {
				for _, n := range r {
					if n, ok := n.(string); ok {
						required[n] = true
					}
				}
			}
			for name, p := range props {
				if !required[name] {
					c.optional++
				}
				walk(p)
			}
		}
		if _, ok := s["anyOf"]; ok {
			c.unions++
		} else if _, ok := s["type"].([]any); ok {
			c.unions++
		}
		walk(s["items"])
		walk(s["additionalProperties"])
		for _, k := range []string{"anyOf", "oneOf", "prefixItems"} {
			if branches, ok := s[k].([]any); ok {
				for _, b := range branches {
					walk(b)
				}
			}
		}
	}
	walk(root)
	return c, nil
}

// checkStrictLimits sums the strict tools of one request against the
// limits.
func checkStrictLimits(tools []toolreg.AnyTool, es []*entry) error {
	var strict []string
	var optional, unions []string
	var nOptional, nUnions int
	for i, e := range es {
		if !e.strict.On() {
			continue
		}
		name := tools[i].Name()
		strict = append(strict, name)
		if n := e.counts.optional; n > 0 {
			nOptional += n
			optional = append(optional, fmt.Sprintf("%s %d", name, n))
		}
		if n := e.counts.unions; n > 0 {
			nUnions += n
			unions = append(unions, fmt.Sprintf("%s %d", name, n))
		}
	}
	var errs []error
	if len(strict) > MaxStrictTools {
		errs = append(errs, fmt.Errorf("%w: at most %d strict tools, and %d are strict (%s); send the others without strict (WithStrictTools)",
			ErrStrictLimit, MaxStrictTools, len(strict), strings.Join(strict, ", ")))
	}
	if nOptional > MaxStrictOptional {
		errs = append(errs, fmt.Errorf("%w: at most %d optional parameters across the strict tools, and they have %d (%s); make some required, or send some tools without strict (WithStrictTools)",
			ErrStrictLimit, MaxStrictOptional, nOptional, strings.Join(optional, ", ")))
	}
	if nUnions > MaxStrictUnions {
		errs = append(errs, fmt.Errorf("%w: at most %d parameters using anyOf or type arrays across the strict tools, and they have %d (%s); send some tools without strict (WithStrictTools)",
			ErrStrictLimit, MaxStrictUnions, nUnions, strings.Join(unions, ", ")))
	}
	return errors.Join(errs...)
}
