package args

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// PathWork bounds the validator's work along one path of an instance: the
// most subschemas it applies to the values of one chain of nested objects
// and arrays, depth levels deep, whatever the keys. Size counts a
// reference back into a recursive schema once, which is right when each
// level of the instance meets the recursion once (a tree: left and right
// are other values); but when two branches that apply to the same value
// (allOf, anyOf, oneOf, if/then/else, two references) each recurse into
// the same child, the work doubles with every level of the instance, so a
// schema of a few lines costs 2^depth subschemas per call.
// PathWork follows the recursion level by level, summing at each child
// what every branch applies to it (by key: a property's name, or any other
// key, or an item), so that such a schema is refused at declaration
// rather than at the first deep call.
//
// Counting stops once the work passes max: PathWork then returns a number
// over max.
func PathWork(s *jsonschema.Schema, depth, max int) int {
	w := worker{max: max, memo: map[workKey]int{}}
	return w.work(s, depth)
}

type workKey struct {
	s     *jsonschema.Schema
	depth int
}

type worker struct {
	max   int
	memo  map[workKey]int
	steps int
}

// work is the most subschemas applied to a chain of the given depth that
// starts at a value s applies to.
func (w *worker) work(s *jsonschema.Schema, depth int) int {
	if s == nil {
		return 0
	}
	k := workKey{s, depth}
	if n, ok := w.memo[k]; ok {
		return n
	}
	w.memo[k] = w.max + 1 // an in-place cycle: the validator refuses it
	// The schemas that apply to this value (with repeats), and what
	// applies to its children, by key.
	var here []*jsonschema.Schema
	open := map[*jsonschema.Schema]bool{}
	var gather func(*jsonschema.Schema) bool
	gather = func(x *jsonschema.Schema) bool {
		if x == nil {
			return true
		}
		if open[x] || len(here) > w.max {
			return false
		}
		w.steps++
		if w.steps > 64*w.max {
			return false
		}
		open[x] = true
		defer delete(open, x)
		here = append(here, x)
		ok := gather(x.Ref) && gather(x.RecursiveRef) && gather(x.Not) && gather(x.If) && gather(x.Then) && gather(x.Else) && gather(x.ContentSchema)
		if x.DynamicRef != nil {
			ok = ok && gather(x.DynamicRef.Ref)
		}
		for _, group := range [][]*jsonschema.Schema{x.AllOf, x.AnyOf, x.OneOf} {
			for _, c := range group {
				ok = ok && gather(c)
			}
		}
		for _, c := range x.DependentSchemas {
			ok = ok && gather(c)
		}
		for _, d := range x.Dependencies {
			if c, is := d.(*jsonschema.Schema); is {
				ok = ok && gather(c)
			}
		}
		return ok
	}
	if !gather(s) {
		return w.max + 1
	}
	n := len(here)
	if depth > 0 {
		n += w.children(here, depth-1)
	}
	if n > w.max {
		n = w.max + 1
	}
	w.memo[k] = n
	return n
}

// children is the most work on one child of a value that the schemas of
// here apply to: for each key a property of one of them names, for any
// other key, and for an item, the sum over here of what applies there.
func (w *worker) children(here []*jsonschema.Schema, depth int) int {
	sum := func(pick func(x *jsonschema.Schema) []*jsonschema.Schema) int {
		n := 0
		for _, x := range here {
			for _, c := range pick(x) {
				n += w.work(c, depth)
				if n > w.max {
					return n
				}
			}
		}
		return n
	}
	one := func(v any) []*jsonschema.Schema {
		switch v := v.(type) {
		case *jsonschema.Schema:
			return []*jsonschema.Schema{v}
		case []*jsonschema.Schema:
			return v
		}
		return nil
	}
	// What applies to any key: the patterns (a key may match them all),
	// the names' schema, the unevaluated ones.
	anyKey := func(x *jsonschema.Schema) []*jsonschema.Schema {
		out := []*jsonschema.Schema{x.PropertyNames, x.UnevaluatedProperties}
		for _, c := range x.PatternProperties {
			out = append(out, c)
		}
		return out
	}
	most := sum(func(x *jsonschema.Schema) []*jsonschema.Schema { // a key none names
		return append(anyKey(x), one(x.AdditionalProperties)...)
	})
	names := map[string]bool{}
	for _, x := range here {
		for name := range x.Properties {
			names[name] = true
		}
	}
	for name := range names {
		most = max(most, sum(func(x *jsonschema.Schema) []*jsonschema.Schema {
			out := anyKey(x)
			if c, ok := x.Properties[name]; ok {
				return append(out, c)
			}
			return append(out, one(x.AdditionalProperties)...)
		}))
	}
	// An item: any of the prefix items or the rest, and what applies to
	// every item.
	item := sum(func(x *jsonschema.Schema) []*jsonschema.Schema {
		out := []*jsonschema.Schema{x.Items2020, x.Contains, x.UnevaluatedItems}
		out = append(out, one(x.Items)...)
		out = append(out, one(x.AdditionalItems)...)
		return append(out, x.PrefixItems...)
	})
	return max(most, item)
}

// checkWork refuses a schema whose PathWork at depth passes max; max 0 is
// no bound.
func checkWork(s *jsonschema.Schema, depth, max int) error {
	if max <= 0 || PathWork(s, depth, max) <= max {
		return nil
	}
	return fmt.Errorf("makes the validator apply more than %d subschemas along one path of arguments %d levels deep, the bound: two branches that apply to the same value (allOf, anyOf, oneOf, two references) each recurse into the same child, so the work doubles with each level; simplify it, lower the depth arguments may have (toolreg.WithMaxDepth), or raise the bound with toolreg.WithMaxSchemaNodes", max, depth)
}
