package toolregtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/args"
	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// ErrUnsatisfiable is in the error of Arguments, ArgumentsSeed and
// ArgumentsFor when they find no arguments the schema accepts: bounds that
// contradict each other (minimum above maximum), an enum with no value of
// the field's type, a required field that additionalProperties false
// forbids, a recursive type that requires itself at every level, or a
// pattern the generator cannot follow. The error names the field and why.
var ErrUnsatisfiable = errors.New("no arguments satisfy the schema")

// Arguments returns arguments a model could send to tool: the tool's first
// example (toolreg.WithExamples) when it has one, otherwise arguments made
// from the schema the model reads, as ArgumentsSeed(tool, 0) makes them.
// Either way the tool's own validator (the one Invoke runs) has accepted
// them, so the call reaches the function.
//
// Use it to call a tool without writing its arguments by hand: a smoke test
// over every tool of a registry (fakemodel.EveryTool does it through a whole
// agent run), a benchmark, a check that a schema can be satisfied at all.
func Arguments(tool toolreg.AnyTool) (json.RawMessage, error) {
	if ex, ok := tool.(interface{ Examples() []json.RawMessage }); ok {
		for _, e := range ex.Examples() {
			if checkArguments(tool, nil, e) == nil {
				return e, nil
			}
		}
	}
	return ArgumentsSeed(tool, 0)
}

// ArgumentsSeed makes arguments for tool from its input schema alone, as a
// model would write them: every required field, some optional ones, a
// value for each that its keywords allow (enum and const, the schema's
// own default and examples first, bounds, lengths, multipleOf, formats,
// patterns, array sizes and unique items, maps, anyOf, oneOf and allOf,
// $ref and recursive types to a bounded depth, nullable fields). The same
// seed makes the same arguments, so a failure reproduces; another seed
// makes others. The tool's own validator must accept them, or the error
// says why (errors.Is(err, ErrUnsatisfiable)).
//
// A pattern is followed with Go's regexp/syntax, the dialect the validator
// reads patterns in; a string made for it is checked against the pattern,
// the length bounds and the format together.
func ArgumentsSeed(tool toolreg.AnyTool, seed uint64) (json.RawMessage, error) {
	g, err := newGenerator(tool.InputSchema(), seed)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", tool.Name(), err)
	}
	out, err := g.arguments(func(b json.RawMessage) error { return checkArguments(tool, g.validator, b) })
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", tool.Name(), err)
	}
	return out, nil
}

// ArgumentsFor makes a value that schema accepts, as ArgumentsSeed does
// for a tool, checked with the reference validator alone: for a schema
// written by hand before a tool is declared with it (toolreg.NewDynamic).
func ArgumentsFor(schema json.RawMessage, seed uint64) (json.RawMessage, error) {
	g, err := newGenerator(schema, seed)
	if err != nil {
		return nil, err
	}
	return g.arguments(func(b json.RawMessage) error { return validateWith(g.validator, b) })
}

// checkArguments asks the tool's own validator about b: its Check method,
// which Invoke runs before the function, or, for a tool written by hand
// without one, the reference validator of its schema.
func checkArguments(tool toolreg.AnyTool, v *jsonschema.Schema, b json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the tool's validator panicked on %s: %v", b, r)
		}
	}()
	if c, ok := tool.(interface {
		Check(json.RawMessage) (toolreg.Output, bool)
	}); ok {
		if out, ok := c.Check(b); !ok {
			return fmt.Errorf("the tool's validator refuses %s: %s", b, out.Text)
		}
		return nil
	}
	if v == nil {
		g, err := newGenerator(tool.InputSchema(), 0)
		if err != nil {
			return err
		}
		v = g.validator
	}
	return validateWith(v, b)
}

func validateWith(v *jsonschema.Schema, b json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if err := v.Validate(doc); err != nil {
		return fmt.Errorf("the schema refuses %s: %v", b, err)
	}
	return nil
}

// schemaURL is where the schema is kept in the generator's compiler: a
// closed document, nothing outside it is loaded.
const schemaURL = "mem:///arguments.schema.json"

// Depths of generation: past softDepth only required fields, minItems and
// the branches that end a recursion are made; past hardDepth the schema
// has no finite value the generator can find.
const (
	softDepth = 6
	hardDepth = 40
	attempts  = 8
	// maxValues bounds the values of one document, and maxMade the items,
	// fields or characters one value is asked to hold: a minItems of a
	// million is a schema no model writes to.
	maxValues = 100_000
	maxMade   = 1000
	// maxBytes bounds the bytes of the strings of one document: a
	// thousand items of a thousand items of long strings would otherwise
	// be checked by the validator string by string for minutes.
	maxBytes = 1 << 20
)

// generator makes values of one schema.
type generator struct {
	root      *jsonvalue.Value
	compiler  *jsonschema.Compiler
	validator *jsonschema.Schema
	local     map[string]*jsonschema.Schema // compiled subschemas by JSON pointer; nil when they do not compile alone
	seed      uint64
	rng       *rand.Rand
	values    int // made in this attempt
	bytes     int // of the strings made in this attempt
}

func newGenerator(schema json.RawMessage, seed uint64) (*generator, error) {
	root, err := jsonvalue.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	if root.Kind != jsonvalue.Object && root.Kind != jsonvalue.Bool {
		return nil, fmt.Errorf("the schema is not a JSON object")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	c := args.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	v, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	return &generator{root: root, compiler: c, validator: v, local: map[string]*jsonschema.Schema{}, seed: seed}, nil
}

// arguments makes a value of the root schema that check accepts, trying
// a few times with the seed's next streams before it gives up.
func (g *generator) arguments(check func(json.RawMessage) error) (json.RawMessage, error) {
	var last error
	for i := range attempts {
		g.rng = rand.New(rand.NewPCG(g.seed, uint64(i)))
		g.values, g.bytes = 0, 0
		v, err := g.value(node{s: g.root}, 0)
		if err != nil {
			last = err
			if g.values > maxValues || g.bytes > maxBytes {
				// The schema asks for more than the bound: another
				// attempt would spend as much to find the same.
				break
			}
			continue
		}
		out := json.RawMessage(v.Encode())
		if err := check(out); err != nil {
			last = err
			continue
		}
		return out, nil
	}
	if errors.Is(last, ErrUnsatisfiable) {
		return nil, last
	}
	return nil, fmt.Errorf("%w: %v", ErrUnsatisfiable, last)
}

// node is a subschema to make a value of: where it sits in the root
// document (a JSON pointer, for the validator's opinion of a value made
// for it) unless it was made by merging (allOf, $ref with other keywords),
// and the field path for error messages.
type node struct {
	s      *jsonvalue.Value
	ptr    string
	merged bool
	path   string
	// fresh skips the schema's own default and examples: an item of
	// unique items made again.
	fresh bool
}

func (n node) child(ptr, path string, s *jsonvalue.Value) node {
	return node{s: s, ptr: n.ptr + ptr, merged: n.merged, path: path}
}

// fail is an ErrUnsatisfiable error about the node's field.
func (n node) fail(format string, a ...any) error {
	where := "the arguments"
	if n.path != "" {
		where = "field " + n.path
	}
	return fmt.Errorf("%w: %s: %s", ErrUnsatisfiable, where, fmt.Sprintf(format, a...))
}

// accepts says whether the validator accepts v at the node; true when it
// has no opinion (a merged node, a subschema that does not compile alone).
func (g *generator) accepts(n node, v *jsonvalue.Value) bool {
	if n.merged {
		return true
	}
	s, ok := g.local[n.ptr]
	if !ok {
		s, _ = g.compiler.Compile(schemaURL + "#" + pointerFragment(n.ptr))
		g.local[n.ptr] = s
	}
	if s == nil {
		return true
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(v.Encode()))
	return err == nil && s.Validate(doc) == nil
}

// pointerFragment writes a JSON pointer as a URL fragment.
func pointerFragment(ptr string) string {
	var b strings.Builder
	for _, r := range ptr {
		if r < 0x80 && (r == '/' || r == '~' || r == '$' || r == '-' || r == '_' || r == '.' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')) {
			b.WriteRune(r)
			continue
		}
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// escapeToken escapes a name for a JSON pointer.
func escapeToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// value makes a value of the node's schema.
func (g *generator) value(n node, depth int) (*jsonvalue.Value, error) {
	s := n.s
	if g.values++; g.values > maxValues {
		return nil, n.fail("the arguments would hold more than %d values", maxValues)
	}
	if g.bytes > maxBytes {
		return nil, n.fail("the arguments' strings would hold more than %d bytes", maxBytes)
	}
	if depth > hardDepth {
		return nil, n.fail("the schema nests more than %d levels deep: a recursive type that requires itself at every level has no finite value", hardDepth)
	}
	if s == nil || s.Kind == jsonvalue.Bool {
		if s != nil && !s.Bool {
			return nil, n.fail("the schema is false: no value is allowed")
		}
		return jsonvalue.NewString(g.word()), nil
	}
	if s.Kind != jsonvalue.Object {
		return nil, n.fail("the schema is not an object")
	}
	if c := s.Get("const"); c != nil {
		if g.accepts(n, c) {
			return c, nil
		}
		return nil, n.fail("const %s does not satisfy the schema's other keywords", c.Encode())
	}
	if enum := arrayAt(s, "enum"); s.Get("enum") != nil {
		for _, i := range g.rng.Perm(len(enum)) {
			if typeAllows(s, enum[i]) && g.accepts(n, enum[i]) {
				return enum[i], nil
			}
		}
		return nil, n.fail("no value of enum %s satisfies the schema's other keywords (type %s)", s.Get("enum").Encode(), typeText(s))
	}
	// The schema's own values first: a model shown them writes them.
	for _, c := range append([]*jsonvalue.Value{s.Get("default")}, arrayAt(s, "examples")...) {
		if c != nil && !n.fresh && !n.merged && g.accepts(n, c) {
			return c, nil
		}
	}
	if ref := stringAt(s, "$ref"); ref != "" {
		return g.ref(n, ref, depth)
	}
	if all := arrayAt(s, "allOf"); len(all) > 0 {
		merged := without(s, "allOf")
		for _, b := range all {
			var err error
			if merged, err = g.merge(n, merged, g.deref(b)); err != nil {
				return nil, err
			}
		}
		return g.value(node{s: merged, merged: true, path: n.path}, depth+1)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if branches := arrayAt(s, k); len(branches) > 0 {
			return g.branch(n, k, branches, depth)
		}
	}
	var first error
	for _, t := range g.types(s, depth) {
		v, err := g.typed(n, t, depth)
		if err == nil && !g.accepts(n, v) {
			err = n.fail("the validator refuses %s (%s)", v.Encode(), t)
		}
		if err == nil {
			return v, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// ref makes a value of the schema a $ref points to, with the keywords
// beside the $ref merged in.
func (g *generator) ref(n node, ref string, depth int) (*jsonvalue.Value, error) {
	target, ptr, ok := g.resolve(ref)
	if !ok {
		return nil, n.fail("$ref %q points nowhere in the schema", ref)
	}
	rest := without(n.s, "$ref")
	if !constrains(rest) {
		return g.value(node{s: target, ptr: ptr, path: n.path}, depth+1)
	}
	merged, err := g.merge(n, g.deref(target), rest)
	if err != nil {
		return nil, err
	}
	v, err := g.value(node{s: merged, merged: true, path: n.path}, depth+1)
	if err == nil && !g.accepts(n, v) {
		err = n.fail("the validator refuses %s", v.Encode())
	}
	return v, err
}

// branch makes a value of one of the branches of anyOf or oneOf (k), in
// an order the seed picks; past softDepth, branches that end a recursion
// come first.
func (g *generator) branch(n node, k string, branches []*jsonvalue.Value, depth int) (*jsonvalue.Value, error) {
	rest := without(n.s, k)
	order := g.rng.Perm(len(branches))
	if depth >= softDepth {
		order = endsFirst(branches, order)
	}
	var first error
	for _, i := range order {
		b := n.child("/"+k+"/"+strconv.Itoa(i), n.path, branches[i])
		if constrains(rest) {
			merged, err := g.merge(n, g.deref(branches[i]), rest)
			if err != nil {
				first = firstErr(first, err)
				continue
			}
			b = node{s: merged, merged: true, path: n.path}
		}
		v, err := g.value(b, depth+1)
		if err == nil && !g.accepts(n, v) {
			err = n.fail("the value %s of %s branch %d is refused by the schema around it", v.Encode(), k, i+1)
		}
		if err == nil {
			return v, nil
		}
		first = firstErr(first, err)
	}
	return nil, n.fail("none of the %d branches of %s can be satisfied; the first: %v", len(branches), k, first)
}

func firstErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

// endsFirst orders branches that make no reference (null, a scalar) before
// those that may recurse.
func endsFirst(branches []*jsonvalue.Value, order []int) []int {
	var ends, rest []int
	for _, i := range order {
		b := branches[i]
		if b.Kind == jsonvalue.Object && b.Get("$ref") == nil && b.Get("properties") == nil && b.Get("items") == nil {
			ends = append(ends, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(ends, rest...)
}

// resolve finds the schema a local $ref points to and its JSON pointer.
func (g *generator) resolve(ref string) (*jsonvalue.Value, string, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, "", false
	}
	cur := g.root
	if ptr == "" {
		return cur, "", true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, "", false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case cur == nil:
			return nil, "", false
		case cur.Kind == jsonvalue.Object:
			cur = cur.Get(tok)
		case cur.Kind == jsonvalue.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
				return nil, "", false
			}
			cur = cur.Items[i]
		default:
			return nil, "", false
		}
	}
	return cur, ptr, cur != nil
}

// deref follows a schema that is only a $ref (one level deep enough for
// merging; deeper references are followed when the merged schema is
// made).
func (g *generator) deref(s *jsonvalue.Value) *jsonvalue.Value {
	for range hardDepth {
		ref := stringAt(s, "$ref")
		if ref == "" {
			return s
		}
		t, _, ok := g.resolve(ref)
		if !ok {
			return s
		}
		if rest := without(s, "$ref"); constrains(rest) {
			m, err := g.merge(node{}, t, rest)
			if err != nil {
				return s
			}
			t = m
		}
		s = t
	}
	return s
}

// annotations are the keywords that do not constrain a value.
var annotations = map[string]bool{"description": true, "title": true, "$comment": true, "examples": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true, "$id": true, "$defs": true, "definitions": true}

// constrains says whether s has a keyword that constrains a value.
func constrains(s *jsonvalue.Value) bool {
	for _, m := range s.Members {
		if !annotations[m.Key] {
			return true
		}
	}
	return false
}

// without is a copy of s without the keys.
func without(s *jsonvalue.Value, keys ...string) *jsonvalue.Value {
	out := jsonvalue.NewObject()
	for _, m := range s.Members {
		drop := false
		for _, k := range keys {
			drop = drop || m.Key == k
		}
		if !drop {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// word is a plain word for a string without constraints.
func (g *generator) word() string {
	return plainWords[g.rng.IntN(len(plainWords))]
}

var plainWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"}
