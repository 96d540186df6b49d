package args

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Size is the expanded size of a compiled schema: its subschemas, with
// each $ref, $dynamicRef and $recursiveRef counted as the size of its
// target, as the validator walks them. A document of a kilobyte whose
// definitions each refer twice to the next holds a tree of 2^n schemas,
// and the validator walks all of them for every call; Size counts them
// at declaration. A reference back into a schema being counted (a
// recursive type) counts 1: the validator follows it only as deep as the
// instance goes, which the call's limits bound.
//
// Counting stops as soon as the size passes max: Size then returns a
// number over max, not the whole size, so a hostile schema costs no more
// than max steps to refuse.
func Size(s *jsonschema.Schema, max int) int {
	z := sizer{max: max, done: map[*jsonschema.Schema]int{}, open: map[*jsonschema.Schema]bool{}}
	return z.size(s)
}

type sizer struct {
	max  int
	done map[*jsonschema.Schema]int  // the size of each schema counted
	open map[*jsonschema.Schema]bool // the schemas being counted
	seen int                         // steps taken, to stop at max
}

func (z *sizer) size(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if n, ok := z.done[s]; ok {
		return n
	}
	if z.open[s] {
		return 1 // a back edge: recursion, bounded by the instance
	}
	z.seen++
	if z.seen > z.max {
		return z.max + 1
	}
	z.open[s] = true
	n := 1
	add := func(c *jsonschema.Schema) bool {
		n += z.size(c)
		return n <= z.max
	}
	each := func(cs []*jsonschema.Schema) bool {
		for _, c := range cs {
			if !add(c) {
				return false
			}
		}
		return true
	}
	either := func(v any) bool {
		switch v := v.(type) {
		case *jsonschema.Schema:
			return add(v)
		case []*jsonschema.Schema:
			return each(v)
		}
		return true // nil, a bool or a list of names
	}
	ok := add(s.Ref) && add(s.RecursiveRef) && (s.DynamicRef == nil || add(s.DynamicRef.Ref)) &&
		add(s.Not) && each(s.AllOf) && each(s.AnyOf) && each(s.OneOf) &&
		add(s.If) && add(s.Then) && add(s.Else) &&
		add(s.PropertyNames) && either(s.AdditionalProperties) && add(s.UnevaluatedProperties) &&
		add(s.Contains) && either(s.Items) && either(s.AdditionalItems) && each(s.PrefixItems) &&
		add(s.Items2020) && add(s.UnevaluatedItems) && add(s.ContentSchema)
	for _, c := range s.Properties {
		ok = ok && add(c)
	}
	for _, c := range s.PatternProperties {
		ok = ok && add(c)
	}
	for _, c := range s.DependentSchemas {
		ok = ok && add(c)
	}
	for _, d := range s.Dependencies {
		ok = ok && either(d)
	}
	delete(z.open, s)
	if !ok {
		return z.max + 1
	}
	z.done[s] = n
	return n
}

// checkSize refuses a schema whose Size passes max; max 0 is no bound.
func checkSize(s *jsonschema.Schema, max int) error {
	if max <= 0 || Size(s, max) <= max {
		return nil
	}
	return fmt.Errorf("expands to more than %d subschemas when its references are followed, the bound, and the validator walks them on every call: simplify it (a definition used many times is cheap, a reference that doubles at each level is not), or raise the bound with toolreg.WithMaxSchemaNodes", max)
}
