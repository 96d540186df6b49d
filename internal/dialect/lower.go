package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// action is what a dialect does with a keyword it meets in a schema.
type action uint8

const (
	drop     action = iota // an annotation the dialect does not take; no effect on validation
	keep                   // sent as is (after lowering its subschemas)
	describe               // moved into the description, where the model still reads it
	refuse                 // cannot be expressed: an *Error
)

// rules is one provider's schema dialect, as the walker applies it.
type rules struct {
	name     string            // for error reasons: "OpenAI strict mode"
	keywords map[string]action // keywords not listed are dropped
	formats  map[string]bool   // string formats kept, the others described; nil keeps all
	pattern  func(string) bool // reports whether a pattern is kept, else described; nil keeps all
	minItems int64             // largest minItems kept, larger ones described; < 0 keeps all
	enum     func(*value) bool // reports whether a value may appear in enum or const
	enumWhat string            // what enum values may be, for the error
	inline   bool              // inline every $ref and refuse recursion, instead of keeping $defs
	closed   bool              // every object closed with additionalProperties:false; open ones refused
	required bool              // every property required, optional ones made nullable (OpenAI)
	anyOK    bool              // a schema accepting any value is kept, as {}
	toAnyOf  bool              // oneOf becomes anyOf
	typeDown bool              // a type beside anyOf moves into the branches
	refKeys  bool              // $-keys may stand beside $ref (Gemini) without forcing an inline
	constTo  bool              // const becomes a one-value enum
}

func (r *rules) action(key string) action {
	if a, ok := r.keywords[key]; ok {
		return a
	}
	return drop // unknown keywords are annotations in 2020-12: dropping them changes no validation
}

// keywords builds a keyword table.
func keywords(kept, described, refused []string) map[string]action {
	m := map[string]action{}
	for _, k := range kept {
		m[k] = keep
	}
	for _, k := range described {
		m[k] = describe
	}
	for _, k := range refused {
		m[k] = refuse
	}
	return m
}

// Keyword groups shared by the dialects.
var (
	// structural keywords every lowering dialect keeps (and interprets).
	structural = []string{"type", "properties", "required", "additionalProperties", "items",
		"anyOf", "oneOf", "allOf", "enum", "const", "description", "title", "$ref"}
	// applicators no dialect here can express or describe: refused, since
	// dropping them would hide a constraint from the model entirely.
	applicators = []string{"not", "if", "then", "else", "dependentSchemas", "patternProperties",
		"propertyNames", "contains", "minContains", "maxContains", "unevaluatedItems",
		"unevaluatedProperties", "additionalItems", "$dynamicRef", "$recursiveRef"}
	// describeOrder is the order moved keywords are listed in a description:
	// fixed, so output is deterministic and reads "minimum: 1, maximum: 7"
	// whatever order the canonical schema wrote them in.
	describeOrder = []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
		"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "dependentRequired", "default"}
	// annotations may be overridden by the schema that refers to a
	// definition, and move to the wrapper when a schema is made nullable.
	annotations = []string{"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
)

func concat(lists ...[]string) []string { return slices.Concat(lists...) }

// maxNodes bounds the subschemas a lowering may write: inlining a chain of
// definitions that each use the next twice grows exponentially.
const maxNodes = 100_000

// lowerer lowers one schema document under one dialect.
type lowerer struct {
	r     *rules
	doc   *doc
	stack []string        // definitions being inlined, innermost last
	used  map[string]bool // definitions referred to by a kept $ref
	nodes int
}

// lower parses a canonical schema, checks its root and lowers it under r.
func lower(schema json.RawMessage, r *rules) (*value, error) {
	root, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(root, r.name); err != nil {
		return nil, err
	}
	l := &lowerer{r: r, doc: newDoc(root), used: map[string]bool{}}
	return l.lowerRoot(root)
}

func parseSchema(schema []byte) (*value, error) {
	root, err := jsonvalue.Parse(schema)
	if err != nil {
		if errors.Is(err, jsonvalue.ErrTooDeep) {
			return nil, &Error{Reason: fmt.Sprintf("the schema nests more than %d levels deep", jsonvalue.MaxDepth)}
		}
		return nil, &Error{Reason: "the schema is not valid JSON"}
	}
	return root, nil
}

// checkRoot applies the rule every provider shares: a tool's parameters are
// one object, described by a plain object schema.
func checkRoot(root *value, dialect string) error {
	if root.Kind != jsonvalue.Object {
		return &Error{Reason: "the root must be a schema object of type object"}
	}
	if t := root.Get("type"); !t.IsString() || t.Text != "object" {
		return &Error{Reason: dialect + " needs a root schema of type object"}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref"} {
		if root.Get(k) != nil {
			return errorf("", "%s does not accept %s at the root: the root must be a plain object schema", dialect, k)
		}
	}
	return nil
}

func (l *lowerer) lowerRoot(root *value) (*value, error) {
	body := &value{Kind: jsonvalue.Object}
	at := -1 // where $defs stood, to write them back there
	for i, m := range root.Members {
		if m.Key == "$defs" {
			at = i
			continue
		}
		body.Members = append(body.Members, m)
	}
	l.stack = []string{"#"} // a "#" $ref below refers back to the root
	out, err := l.schema(body, "")
	if err != nil {
		return nil, err
	}
	l.stack = nil
	if l.r.inline {
		return out, nil
	}
	bareRefs(out)
	if len(l.used) == 0 {
		return out, nil
	}
	// Lower the definitions a kept $ref reaches, until no new one is reached.
	lowered := map[string]*value{}
	for again := true; again; {
		again = false
		for _, name := range l.doc.order {
			if !l.used[name] || lowered[name] != nil {
				continue
			}
			l.stack = append(l.stack, name)
			def, err := l.schema(l.doc.defs[name], "$defs."+name)
			l.stack = l.stack[:len(l.stack)-1]
			if err != nil {
				return nil, err
			}
			bareRefs(def)
			lowered[name], again = def, true
		}
	}
	defs := &value{Kind: jsonvalue.Object}
	for _, name := range l.doc.order {
		if d := lowered[name]; d != nil {
			defs.Members = append(defs.Members, member{Key: name, Val: d})
		}
	}
	m := member{Key: "$defs", Val: defs}
	at = min(max(at, 0), len(out.Members))
	out.Members = slices.Insert(out.Members, at, m)
	return out, nil
}

// schema lowers the subschema in, found at path.
func (l *lowerer) schema(in *value, path string) (*value, error) {
	if l.nodes++; l.nodes > maxNodes {
		return nil, errorf(path, "the schema is too large once its $refs are inlined (over %d subschemas)", maxNodes)
	}
	switch in.Kind {
	case jsonvalue.Bool:
		return l.boolSchema(in, path)
	case jsonvalue.Object:
	default:
		return nil, errorf(path, "a schema must be a JSON object or a boolean")
	}
	in, err := l.normalize(in, path)
	if err != nil {
		return nil, err
	}
	if in.Get("$ref") != nil {
		return l.ref(in, path)
	}
	out, moved, err := l.keywords(in, path)
	if err != nil {
		return nil, err
	}
	if err := l.finish(in, out, moved, path); err != nil {
		return nil, err
	}
	return out, nil
}

// boolSchema lowers the schema true (any value) or false (no value).
func (l *lowerer) boolSchema(in *value, path string) (*value, error) {
	if !in.Bool {
		return nil, errorf(path, "the schema false accepts no value; %s cannot express it", l.r.name)
	}
	if !l.r.anyOK {
		return nil, l.anyError(path)
	}
	return jsonvalue.NewObject(), nil
}

// A verdict is what lowering decides for one keyword the dialect takes.
type verdict uint8

const (
	emit verdict = iota // written to the output, lowered
	omit                // left out: here it says nothing
	move                // moved into the description, where the model still reads it
)

// keywords lowers the keywords of the object schema in, in order: it
// returns the schema made of those the dialect keeps, and those to move
// into its description.
func (l *lowerer) keywords(in *value, path string) (*value, []member, error) {
	out := &value{Kind: jsonvalue.Object}
	var moved []member
	for _, m := range in.Members {
		if omitted(in, m) {
			continue
		}
		switch l.r.action(m.Key) {
		case drop:
			continue
		case refuse:
			return nil, nil, errorf(path, "%s cannot express the keyword %q", l.r.name, m.Key)
		case describe:
			if m.Key != "default" || m.Val.Kind != jsonvalue.Null { // default:null says nothing
				moved = append(moved, m)
			}
			continue
		}
		lowered, v, err := l.keyword(in, m, path)
		if err != nil {
			return nil, nil, err
		}
		switch v {
		case emit:
			out.Members = append(out.Members, lowered)
		case move:
			moved = append(moved, m)
		}
	}
	return out, moved, nil
}

// keyword lowers one keyword m of in that the dialect keeps.
func (l *lowerer) keyword(in *value, m member, path string) (member, verdict, error) {
	switch m.Key {
	case "properties", "additionalProperties", "items", "prefixItems", "anyOf", "oneOf":
		lowered, err := l.applicator(in, m, path)
		return lowered, emit, err
	case "allOf", "$ref":
		return m, emit, errorf(path, "%s left after normalizing; this is a bug in package dialect", m.Key) // normalize and ref took them
	}
	return l.assertion(in, m, path)
}

// applicator lowers a keyword that holds subschemas, and them with it.
func (l *lowerer) applicator(in *value, m member, path string) (member, error) {
	k, v := m.Key, m.Val
	var err error
	switch k {
	case "properties":
		v, err = l.properties(v, path)
	case "additionalProperties":
		if v.Kind == jsonvalue.Bool && !v.Bool {
			break
		}
		if l.r.closed {
			return m, errorf(path, "%s cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects", l.r.name)
		}
		v, err = l.schema(v, path+"{}")
	case "items":
		if v.Kind == jsonvalue.Array {
			return m, errorf(path, "items must be one schema (use prefixItems for tuples)")
		}
		v, err = l.schema(v, path+"[]")
	case "prefixItems":
		v, err = l.schemas(v, path, "")
	case "anyOf", "oneOf":
		if v, err = l.schemas(v, path, "."+k); err != nil {
			break
		}
		if len(v.Items) == 0 {
			return m, errorf(path, "%s must list at least one schema", k)
		}
		if k == "oneOf" && l.r.toAnyOf {
			// The branches of a canonical oneOf never overlap, so anyOf
			// accepts the same values.
			if in.Get("anyOf") != nil {
				return m, errorf(path, "%s cannot express anyOf and oneOf on one schema", l.r.name)
			}
			k = "anyOf"
		}
	}
	if err != nil {
		return m, err
	}
	return member{Key: k, Val: v}, nil
}

// properties lowers the schema of each property, in order.
func (l *lowerer) properties(v *value, path string) (*value, error) {
	if v.Kind != jsonvalue.Object {
		return nil, errorf(path, "properties must be an object")
	}
	props := &value{Kind: jsonvalue.Object, Members: make([]member, 0, len(v.Members))}
	for _, p := range v.Members {
		ps, err := l.schema(p.Val, joinPath(path, p.Key))
		if err != nil {
			return nil, err
		}
		props.Members = append(props.Members, member{Key: p.Key, Val: ps})
	}
	return props, nil
}

// assertion checks a keyword that constrains the value itself, and decides
// whether the dialect enforces it, describes it or has no use for it.
func (l *lowerer) assertion(in *value, m member, path string) (member, verdict, error) {
	k, v := m.Key, m.Val
	switch k {
	case "type":
		if err := checkType(v, path); err != nil {
			return m, emit, err
		}
	case "required":
		if !stringArray(v) {
			return m, emit, errorf(path, "required must be an array of strings")
		}
	case "enum":
		if v.Kind != jsonvalue.Array || len(v.Items) == 0 {
			return m, emit, errorf(path, "enum must be a non-empty array")
		}
		for _, e := range v.Items {
			if !l.r.enum(e) {
				return m, emit, errorf(path, "%s accepts only %s as enum values", l.r.name, l.r.enumWhat)
			}
		}
	case "const":
		if !l.r.enum(v) {
			return m, emit, errorf(path, "%s accepts only %s as const values", l.r.name, l.r.enumWhat)
		}
		if l.r.constTo {
			if in.Get("enum") != nil {
				return m, emit, errorf(path, "%s cannot express const beside enum: keep one", l.r.name)
			}
			k, v = "enum", jsonvalue.NewArray(v)
		}
	case "description", "title", "format", "pattern":
		if !v.IsString() {
			return m, emit, errorf(path, "%s must be a string", k)
		}
		if k == "format" && l.r.formats != nil && !l.r.formats[v.Text] ||
			k == "pattern" && l.r.pattern != nil && !l.r.pattern(v.Text) {
			return m, move, nil
		}
	case "minItems":
		if l.r.minItems >= 0 {
			n, ok := integer(v)
			if !ok {
				return m, emit, errorf(path, "minItems must be a non-negative integer")
			}
			if n.Cmp(big.NewInt(l.r.minItems)) > 0 {
				return m, move, nil
			}
		}
	case "default":
		if v.Kind == jsonvalue.Null {
			return m, omit, nil
		}
	}
	return member{Key: k, Val: v}, emit, nil
}

// finish applies to a lowered schema what the dialect demands of the
// schema as a whole: closed objects, every property required, a type on
// every subschema; then writes the moved keywords into its description.
func (l *lowerer) finish(in, out *value, moved []member, path string) error {
	if l.r.closed && isObject(out) {
		if err := l.closeObject(out, path); err != nil {
			return err
		}
	}
	if l.r.required && isObject(out) {
		if err := l.requireAll(in, out); err != nil {
			return err
		}
	}
	if !l.r.anyOK && !typed(out) {
		return l.anyError(path)
	}
	if len(moved) > 0 {
		if err := describeIn(out, moved, path); err != nil {
			return err
		}
	}
	typeFirst(out)
	return nil
}

// closeObject makes the object schema out closed (additionalProperties:false),
// refusing an object that only a map or free-form object could be.
func (l *lowerer) closeObject(out *value, path string) error {
	if out.Get("properties") == nil {
		if out.Get("additionalProperties") == nil {
			return errorf(path, "%s cannot express an object without declared properties (a map or free-form object): use a struct", l.r.name)
		}
		out.Set("properties", jsonvalue.NewObject())
	}
	out.Set("additionalProperties", jsonvalue.NewBool(false))
	if req := out.Get("required"); req != nil {
		props := out.Get("properties")
		for _, n := range req.Items {
			if props.Get(n.Text) == nil {
				return errorf(path, "required names %q, which is not among the properties of this closed object", n.Text)
			}
		}
	}
	return nil
}

// schemas lowers an array of subschemas; the path of the i-th is
// path+suffix+"[i]".
func (l *lowerer) schemas(v *value, path, suffix string) (*value, error) {
	if v.Kind != jsonvalue.Array {
		return nil, errorf(path, "%s must be an array of schemas", strings.TrimPrefix(suffix, "."))
	}
	// The branches of a nullable, {"anyOf":[X,{"type":"null"}]}, keep the
	// path of the property: X is the property.
	wrapper := suffix == ".anyOf" && len(v.Items) == 2 && nullSchema(v.Items[1])
	out := &value{Kind: jsonvalue.Array, Items: make([]*value, 0, len(v.Items))}
	for i, s := range v.Items {
		p := path + suffix + "[" + strconv.Itoa(i) + "]"
		if wrapper {
			p = path
		}
		ls, err := l.schema(s, p)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, ls)
	}
	return out, nil
}

func (l *lowerer) anyError(path string) error {
	return errorf(path, "the schema accepts any JSON value, which %s cannot express: give the field a concrete type", l.r.name)
}

// normalize rewrites in, before lowering, into a form the dialect can
// take: a one-schema allOf merged into its parent, and a type beside anyOf
// moved into the branches (the canonical schema of net.IP is
// {"type":"string","anyOf":[{"format":"ipv4"},{"format":"ipv6"}]}; strict
// dialects want each branch typed).
func (l *lowerer) normalize(in *value, path string) (*value, error) {
	for all := in.Get("allOf"); all != nil; all = in.Get("allOf") {
		if all.Kind != jsonvalue.Array || len(all.Items) != 1 {
			return nil, errorf(path, "%s cannot express allOf with several schemas: merge them into one", l.r.name)
		}
		rest := &value{Kind: jsonvalue.Object}
		for _, m := range in.Members {
			if m.Key != "allOf" {
				rest.Members = append(rest.Members, m)
			}
		}
		merged, err := merge(all.Items[0], rest, path, "allOf")
		if err != nil {
			return nil, err
		}
		in = merged
	}
	if !l.r.typeDown {
		return in, nil
	}
	t := in.Get("type")
	key := "anyOf"
	branches := in.Get(key)
	if branches == nil && l.r.toAnyOf {
		key = "oneOf"
		branches = in.Get(key)
	}
	if t == nil || branches == nil || branches.Kind != jsonvalue.Array {
		return in, nil
	}
	moved := &value{Kind: jsonvalue.Array, Items: make([]*value, len(branches.Items))}
	for i, b := range branches.Items {
		switch {
		case b.Kind == jsonvalue.Bool && b.Bool:
			moved.Items[i] = jsonvalue.NewObject(member{Key: "type", Val: t})
		case b.Kind == jsonvalue.Object && b.Get("$ref") == nil && (b.Get("type") == nil || jsonvalue.Equal(b.Get("type"), t)):
			nb := jsonvalue.NewObject(member{Key: "type", Val: t})
			for _, m := range b.Members {
				if m.Key != "type" {
					nb.Members = append(nb.Members, m)
				}
			}
			moved.Items[i] = nb
		default:
			return in, nil // a branch the type cannot move into: leave both
		}
	}
	out := &value{Kind: jsonvalue.Object}
	for _, m := range in.Members {
		switch m.Key {
		case "type":
		case key:
			out.Members = append(out.Members, member{Key: key, Val: moved})
		default:
			out.Members = append(out.Members, m)
		}
	}
	return out, nil
}

// ref lowers a schema holding $ref: kept as a bare $ref where the dialect
// keeps $defs and the $ref has no siblings, inlined otherwise.
func (l *lowerer) ref(in *value, path string) (*value, error) {
	refv := in.Get("$ref")
	if !refv.IsString() {
		return nil, errorf(path, "$ref must be a string")
	}
	name, target, err := l.doc.resolve(refv.Text, path)
	if err != nil {
		return nil, err
	}
	siblings := false
	for _, m := range in.Members {
		if m.Key == "$ref" || m.Key == "$defs" || l.r.action(m.Key) == drop || l.r.refKeys && strings.HasPrefix(m.Key, "$") {
			continue
		}
		siblings = true
	}
	if slices.Contains(l.stack, name) {
		if l.r.inline {
			return nil, errorf(path, "the schema is recursive (it refers back to %s); %s cannot express recursion: cut the cycle, e.g. with an ID the model passes instead of the nested value", defName(name), l.r.name)
		}
		if siblings {
			// Inlining again would never end: keep the $ref with its
			// description and title for now. A nullable wrapper takes
			// them over (see nullable); bareRefs drops what is left, as
			// the Anthropic SDK drops every sibling of a $ref.
			out := jsonvalue.NewObject(member{Key: "$ref", Val: jsonvalue.NewString(refv.Text)})
			for _, m := range in.Members {
				switch {
				case m.Key == "description" || m.Key == "title":
					out.Members = append(out.Members, m)
				case m.Key != "$ref" && l.r.action(m.Key) != drop && !slices.Contains(annotations, m.Key):
					return nil, errorf(path, "%s cannot express the keyword %q beside a recursive $ref", l.r.name, m.Key)
				}
			}
			l.use(name)
			return out, nil
		}
	}
	if !l.r.inline && !siblings {
		l.use(name)
		return jsonvalue.NewObject(member{Key: "$ref", Val: jsonvalue.NewString(refv.Text)}), nil
	}
	// Inline: the definition, with the keywords written beside the $ref.
	rest := &value{Kind: jsonvalue.Object}
	for _, m := range in.Members {
		if m.Key != "$ref" {
			rest.Members = append(rest.Members, m)
		}
	}
	merged, err := merge(target, rest, path, "$ref")
	if err != nil {
		return nil, err
	}
	l.stack = append(l.stack, name)
	out, err := l.schema(merged, path)
	l.stack = l.stack[:len(l.stack)-1]
	return out, err
}

// use records that a kept $ref names a definition, to be lowered into
// the output's $defs.
func (l *lowerer) use(name string) {
	if name != "#" {
		l.used[name] = true
	}
}

// bareRefs drops the keywords left beside a $ref in s and its
// subschemas: no dialect that keeps $refs takes siblings.
func bareRefs(s *value) {
	if s.Kind != jsonvalue.Object {
		return
	}
	if ref := s.Get("$ref"); ref != nil {
		s.Members = []member{{Key: "$ref", Val: ref}}
		return
	}
	eachSubschema(s, "", func(c *value, _ string) error {
		bareRefs(c)
		return nil
	})
}

// merge combines a schema with the keywords written beside it (beside its
// $ref, or around a one-schema allOf): annotations from rest win, other
// keywords are added unless they conflict.
func merge(target, rest *value, path, what string) (*value, error) {
	out := &value{Kind: jsonvalue.Object}
	switch target.Kind {
	case jsonvalue.Bool:
		if !target.Bool {
			return nil, errorf(path, "the schema behind %s is false and accepts no value", what)
		}
	case jsonvalue.Object:
		for _, m := range target.Members {
			if m.Key != "$defs" {
				out.Members = append(out.Members, m)
			}
		}
	default:
		return nil, errorf(path, "the schema behind %s must be a JSON object or a boolean", what)
	}
	for _, m := range rest.Members {
		prev := out.Get(m.Key)
		switch {
		case prev == nil || slices.Contains(annotations, m.Key):
			out.Set(m.Key, m.Val)
		case !jsonvalue.Equal(prev, m.Val):
			return nil, errorf(path, "the keyword %q beside %s conflicts with the schema it names; move it into the definition", m.Key, what)
		}
	}
	return out, nil
}

func defName(name string) string {
	if name == "#" {
		return "the root"
	}
	return "$defs." + name
}

// requireAll makes every property of out required, as OpenAI strict mode
// demands, and lets each property that was optional in the canonical
// schema in take null instead: the model sends null for "absent", and
// NullStripper removes it before validation.
func (l *lowerer) requireAll(in, out *value) error {
	req := map[string]bool{}
	if r := in.Get("required"); r != nil {
		for _, n := range r.Items {
			req[n.Text] = true
		}
	}
	inProps := in.Get("properties")
	props := out.Get("properties")
	if props == nil {
		return nil
	}
	names := &value{Kind: jsonvalue.Array, Items: make([]*value, 0, len(props.Members))}
	for i, p := range props.Members {
		names.Items = append(names.Items, jsonvalue.NewString(p.Key))
		if !req[p.Key] && !l.doc.acceptsNull(inProps.Get(p.Key)) {
			props.Members[i].Val = nullable(p.Val)
		}
	}
	out.Set("required", names)
	return nil
}

// checkType checks a type keyword: one type name or an array of them.
func checkType(t *value, path string) error {
	ok := func(v *value) bool {
		if !v.IsString() {
			return false
		}
		switch v.Text {
		case "string", "number", "integer", "boolean", "object", "array", "null":
			return true
		}
		return false
	}
	if t.Kind == jsonvalue.Array && len(t.Items) > 0 {
		for _, v := range t.Items {
			if !ok(v) {
				return errorf(path, "type must name JSON types")
			}
		}
		return nil
	}
	if !ok(t) {
		return errorf(path, "type must name JSON types")
	}
	return nil
}

// hasType reports whether the type keyword of s names type name.
func hasType(s *value, name string) bool {
	t := s.Get("type")
	if t == nil {
		return false
	}
	if t.IsString() {
		return t.Text == name
	}
	for _, v := range t.Items {
		if v.IsString() && v.Text == name {
			return true
		}
	}
	return false
}

func isObject(s *value) bool { return hasType(s, "object") }

// typed reports whether s constrains the type of its value: what strict
// dialects need of every subschema.
func typed(s *value) bool {
	for _, k := range []string{"type", "enum", "const", "anyOf", "$ref"} {
		if s.Get(k) != nil {
			return true
		}
	}
	return false
}

func stringArray(v *value) bool {
	if v.Kind != jsonvalue.Array {
		return false
	}
	for _, e := range v.Items {
		if !e.IsString() {
			return false
		}
	}
	return true
}

// integer reads a JSON number that is an integer, such as 3 or 3.0.
func integer(v *value) (*big.Int, bool) {
	if v.Kind != jsonvalue.Number {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(v.Text)
	if !ok || !r.IsInt() || len(v.Text) > 64 {
		return nil, false
	}
	return r.Num(), true
}

// describeIn appends the moved keywords to the description of out, in the
// form the Anthropic SDKs write: "Forecast length in days\n\n{minimum: 1,
// maximum: 7}". Strings are written bare, other values as JSON.
func describeIn(out *value, moved []member, path string) error {
	rank := func(k string) int {
		if i := slices.Index(describeOrder, k); i >= 0 {
			return i
		}
		return len(describeOrder)
	}
	slices.SortStableFunc(moved, func(a, b member) int { return rank(a.Key) - rank(b.Key) })
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range moved {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Key)
		b.WriteString(": ")
		if m.Val.IsString() {
			b.WriteString(m.Val.Text)
		} else {
			b.Write(m.Val.Encode())
		}
	}
	b.WriteByte('}')
	text := b.String()
	if d := out.Get("description"); d != nil {
		if !d.IsString() {
			return errorf(path, "description must be a string")
		}
		if d.Text != "" {
			text = d.Text + "\n\n" + text
		}
	}
	out.Set("description", jsonvalue.NewString(text))
	return nil
}
