package toolregtest

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/anthropic"
	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// Rule names one check of Lint. Finding.Rule holds it; Ignore takes it.
type Rule string

// The rules Lint checks. The checks are about what the model reads and
// what a provider accepts; a jsonschema tag that does not apply to its
// field, or that the reflector would silently drop (a plain
// jsonschema:"the city", jsonschema_extras, minimum on a string...), never
// gets this far: toolreg.New refuses it at declaration, naming the field
// and the fix. Lint checks what New accepts.
const (
	// RuleToolDescription: the tool's description is shorter than
	// MinDescriptionLength characters, or only restates the tool's name.
	// The description is all the model has to decide when to call the
	// tool: say what it does, when to use it and when not to.
	RuleToolDescription Rule = "tool-description"
	// RuleToolName: the tool's name is not snake_case (lower-case letters
	// and digits, words joined by single underscores, a letter first), the
	// form models are trained on and the one every provider accepts.
	RuleToolName Rule = "tool-name"
	// RuleDuplicateDescription: two tools have the same description
	// (ignoring case and spacing), so the model cannot tell them apart.
	RuleDuplicateDescription Rule = "duplicate-description"
	// RuleFieldDescription: a property of the arguments, at any depth, has
	// no description (jsonschema:"description=...").
	RuleFieldDescription Rule = "field-description"
	// RuleEnumDescription: a property limited to enum values has no
	// description saying what the values mean or when to pick which one.
	// It replaces RuleFieldDescription for such a property.
	RuleEnumDescription Rule = "enum-description"
	// RuleForeignTag: a field of the Args struct carries a struct tag that
	// other schema or validation libraries read (description:"...",
	// enum:"...", validate:"...") but toolreg does not: the model never
	// sees it and no call is checked against it.
	RuleForeignTag Rule = "foreign-tag"
	// RuleOpenAITools: the registry has more tools than OpenAI accepts in
	// one request (128, observed as array_above_max_length).
	RuleOpenAITools Rule = "openai-tools"
	// RuleOpenAIStrictProperties: a tool's schema has more than 5000
	// object properties in total, more than OpenAI strict mode accepts.
	RuleOpenAIStrictProperties Rule = "openai-strict-properties"
	// RuleOpenAIStrictDepth: a tool's objects nest more than 10 levels
	// deep, more than OpenAI strict mode accepts. The root object is level
	// 1 and a $ref counts as its definition, as the openai adapter counts.
	RuleOpenAIStrictDepth Rule = "openai-strict-depth"
	// RuleAnthropicStrictTools: more tools can be sent in Anthropic strict
	// mode than one request may carry (20).
	RuleAnthropicStrictTools Rule = "anthropic-strict-tools"
	// RuleAnthropicStrictOptional: the tools that can be sent in Anthropic
	// strict mode have more than 24 optional parameters in total, at any
	// depth; or one tool has more by itself (and cannot be sent strict).
	RuleAnthropicStrictOptional Rule = "anthropic-strict-optional"
	// RuleAnthropicStrictUnions: the tools that can be sent in Anthropic
	// strict mode have more than 16 parameters using anyOf or a type array
	// (nullable fields) in total; or one tool has more by itself.
	RuleAnthropicStrictUnions Rule = "anthropic-strict-unions"
)

// MinDescriptionLength is the shortest tool description RuleToolDescription
// accepts, in characters after trimming space: about the shortest text
// that can say both what a tool does and when to use it.
const MinDescriptionLength = 20

// Provider limits. The Anthropic ones are the adapter's.
const (
	openAIMaxTools            = 128
	openAIStrictMaxProperties = 5000
	openAIStrictMaxDepth      = 10
)

// Finding is one thing Lint found wrong with a registry.
type Finding struct {
	// Tool is the tool at fault, "" for the registry as a whole (a limit
	// on the number of tools or a sum across them).
	Tool string
	// Field is the path of the property at fault ("home.zip", "stops[]",
	// "labels{}"), "" for the tool itself.
	Field   string
	Rule    Rule
	Message string
}

// String reads "get_weather: unit: message (enum-description)".
func (f Finding) String() string {
	var b strings.Builder
	if f.Tool != "" {
		b.WriteString(f.Tool)
	} else {
		b.WriteString("registry")
	}
	if f.Field != "" {
		b.WriteString(": ")
		b.WriteString(f.Field)
	}
	fmt.Fprintf(&b, ": %s (%s)", f.Message, f.Rule)
	return b.String()
}

// LintOption configures Lint and LintT.
type LintOption func(*lintConfig)

type lintConfig struct {
	ignore map[Rule]bool
}

// Ignore skips rules: the strict-mode limits of a provider you do not use
// in strict mode, say.
func Ignore(rules ...Rule) LintOption {
	return func(c *lintConfig) {
		for _, r := range rules {
			c.ignore[r] = true
		}
	}
}

// LintT fails t with every finding of Lint, one per line.
func LintT(t testing.TB, reg *toolreg.Registry, opts ...LintOption) {
	t.Helper()
	fs := Lint(reg, opts...)
	if len(fs) == 0 {
		return
	}
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = "\t" + f.String()
	}
	t.Errorf("toolregtest: %d lint findings:\n%s\n(skip a rule with toolregtest.Ignore)", len(fs), strings.Join(lines, "\n"))
}

// Lint checks a registry for definitions that would mislead a model or
// that a provider would refuse, and returns the findings: first each
// tool's in registration order, then those of the registry as a whole.
// The rules and their thresholds are the Rule constants.
//
// A jsonschema tag that does not apply to its field's type, or that the
// reflector would silently drop (a plain jsonschema:"the city" that other
// libraries read as a description, a keyword of another type), is not
// Lint's business: toolreg.New refuses it at declaration. Lint reports the
// struct tags New does not look at (RuleForeignTag).
//
// The strict-mode rules count as the adapters do, which refuse a strict
// tool or request over a limit. The per-request Anthropic sums cover the
// tools strict mode can express (Snapshot shows those it refuses, and
// why). The rules apply whether or not you send tools strict: Ignore those
// of a mode you do not use.
func Lint(reg *toolreg.Registry, opts ...LintOption) []Finding {
	cfg := lintConfig{ignore: map[Rule]bool{}}
	for _, o := range opts {
		o(&cfg)
	}
	var out []Finding
	add := func(f Finding) {
		if !cfg.ignore[f.Rule] {
			out = append(out, f)
		}
	}
	tools := reg.Tools()
	firstWith := map[string]string{} // normalized description → first tool
	var strict []anthropicStrict
	for _, t := range tools {
		lintTool(t, add)
		if d := words(t.Description()); d != "" {
			if first, ok := firstWith[d]; ok {
				add(Finding{Tool: t.Name(), Rule: RuleDuplicateDescription,
					Message: fmt.Sprintf("the description is the same as that of %s, so the model cannot tell them apart; say what sets each apart", first)})
			} else {
				firstWith[d] = t.Name()
			}
		}
		lintFields(t, add)
		lintTags(t, add)
		lintOpenAIStrict(t, add)
		strict = append(strict, anthropicCounts(t))
	}
	if len(tools) > openAIMaxTools {
		add(Finding{Rule: RuleOpenAITools,
			Message: fmt.Sprintf("%d tools; OpenAI accepts at most %d in one request: send a subset per request", len(tools), openAIMaxTools)})
	}
	lintAnthropicStrict(strict, add)
	return out
}

var (
	snakeCase   = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	underscores = regexp.MustCompile(`_+`)
)

func lintTool(t toolreg.AnyTool, add func(Finding)) {
	name := t.Name()
	if !snakeCase.MatchString(name) {
		add(Finding{Tool: name, Rule: RuleToolName,
			Message: fmt.Sprintf("the name is not snake_case; write it as %s", toSnake(name))})
	}
	desc := strings.TrimSpace(t.Description())
	switch n := utf8.RuneCountInString(desc); {
	case words(desc) == words(name):
		add(Finding{Tool: name, Rule: RuleToolDescription,
			Message: fmt.Sprintf("the description %q only restates the name; say what the tool does, when to use it and when not to", desc)})
	case n < MinDescriptionLength:
		add(Finding{Tool: name, Rule: RuleToolDescription,
			Message: fmt.Sprintf("the description %q has %d characters, fewer than %d; say what the tool does, when to use it and when not to", desc, n, MinDescriptionLength)})
	}
}

// words reduces a text to its lower-case words, space-separated: "Get
// weather." and get_weather both read "get weather".
func words(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

// toSnake suggests a snake_case form of a name: getWeather, Get-Weather →
// get_weather.
func toSnake(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r == '-' || r == '_':
			b.WriteByte('_')
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = true
		}
	}
	return strings.Trim(underscores.ReplaceAllString(b.String(), "_"), "_")
}

func lintFields(t toolreg.AnyTool, add func(Finding)) {
	root, err := parseObject(t.InputSchema())
	if err != nil {
		return // not toolreg's schema; the snapshot shows what each dialect makes of it
	}
	walkFields(root, func(path string, prop *jsonvalue.Value) {
		if described(root, prop, map[string]bool{}) {
			return
		}
		if vals := enumValues(prop); len(vals) > 0 {
			add(Finding{Tool: t.Name(), Field: path, Rule: RuleEnumDescription,
				Message: fmt.Sprintf("the field takes one of %s but has no description saying what the values mean and when to pick which; add jsonschema:\"description=...\"", listValues(vals))})
			return
		}
		add(Finding{Tool: t.Name(), Field: path, Rule: RuleFieldDescription,
			Message: "the field has no description; add jsonschema:\"description=...\" saying what to put there (format, units, an example)"})
	})
}

func listValues(vals []*jsonvalue.Value) string {
	const shown = 5
	parts := make([]string, 0, shown+1)
	for i, v := range vals {
		if i == shown {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(vals)))
			break
		}
		parts = append(parts, string(v.Encode()))
	}
	return strings.Join(parts, ", ")
}

// foreignTags are struct tag keys that other Go schema and validation
// libraries read and toolreg does not, with what to write instead.
var foreignTags = func() map[string]string {
	m := map[string]string{
		"description": `jsonschema:"description=..."`,
		"desc":        `jsonschema:"description=..."`,
		"doc":         `jsonschema:"description=..."`,
		"title":       `jsonschema:"title=..."`,
		"enum":        `jsonschema:"enum=a,enum=b"`,
		"required":    "a non-pointer field without omitempty (toolreg derives required from the Go type)",
		"nullable":    "a pointer field",
		"validate":    "the constraint as jsonschema keywords (minimum=, maxLength=, enum=, pattern=...), so that the model sees it and every call is checked",
		"binding":     "the constraint as jsonschema keywords (minimum=, maxLength=, enum=, pattern=...), so that the model sees it and every call is checked",
	}
	for _, k := range []string{"default", "example", "examples", "format", "pattern", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems"} {
		m[k] = fmt.Sprintf(`jsonschema:"%s=..."`, k)
	}
	return m
}()

// argsType is the Args type of a *toolreg.Tool, read from the signature of
// its Call method; nil for other AnyTools.
func argsType(t toolreg.AnyTool) reflect.Type {
	m := reflect.ValueOf(t).MethodByName("Call")
	if !m.IsValid() {
		return nil
	}
	mt := m.Type()
	if mt.NumIn() != 2 || mt.In(0) != reflect.TypeFor[context.Context]() {
		return nil
	}
	return mt.In(1)
}

func lintTags(t toolreg.AnyTool, add func(Finding)) {
	at := argsType(t)
	if at == nil {
		return
	}
	walkStruct(at, "", map[reflect.Type]bool{}, func(path string, f reflect.StructField) {
		for _, key := range tagKeys(f.Tag) {
			fix, ok := foreignTags[key]
			if !ok {
				continue
			}
			val := f.Tag.Get(key)
			add(Finding{Tool: t.Name(), Field: path, Rule: RuleForeignTag,
				Message: fmt.Sprintf("the struct tag %s:%q is read by other libraries but not by toolreg: the model never sees it and no call is checked against it; write %s", key, val, fix)})
		}
	})
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walkStruct visits the fields of a Go type as encoding/json sees them,
// with their JSON paths. Types that decode themselves are not entered.
func walkStruct(t reflect.Type, path string, seen map[reflect.Type]bool, visit func(string, reflect.StructField)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		walkStruct(t.Elem(), path+"[]", seen, visit)
	case reflect.Map:
		walkStruct(t.Elem(), path+"{}", seen, visit)
	case reflect.Struct:
		if seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				visit(joinPath(path, f.Name), f)
				walkStruct(f.Type, path, seen, visit) // promoted fields
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := joinPath(path, name)
			visit(p, f)
			walkStruct(f.Type, p, seen, visit)
		}
	}
}

// tagKeys lists the keys of a struct tag in the conventional format
// key:"value" key2:"value2", as reflect.StructTag.Lookup reads it.
func tagKeys(tag reflect.StructTag) []string {
	var keys []string
	s := string(tag)
	for s != "" {
		s = strings.TrimLeft(s, " ")
		i := 0
		for i < len(s) && s[i] > ' ' && s[i] != ':' && s[i] != '"' && s[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(s) || s[i] != ':' || s[i+1] != '"' {
			break
		}
		key := s[:i]
		s = s[i+1:]
		i = 1
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			break
		}
		keys = append(keys, key)
		s = s[i+1:]
	}
	return keys
}

func lintOpenAIStrict(t toolreg.AnyTool, add func(Finding)) {
	root, err := parseObject(t.InputSchema())
	if err != nil {
		return
	}
	if n := countProperties(root); n > openAIStrictMaxProperties {
		add(Finding{Tool: t.Name(), Rule: RuleOpenAIStrictProperties,
			Message: fmt.Sprintf("the schema has %d object properties, and OpenAI strict mode allows at most %d: split the tool, or send it without strict", n, openAIStrictMaxProperties)})
	}
	if depth, path := objectDepth(root); depth > openAIStrictMaxDepth {
		add(Finding{Tool: t.Name(), Field: path, Rule: RuleOpenAIStrictDepth,
			Message: fmt.Sprintf("objects nest %d levels deep here, and OpenAI strict mode allows at most %d: flatten the arguments, or send the tool without strict", depth, openAIStrictMaxDepth)})
	}
}

// subschemas calls fn on each direct subschema of s but $defs, with its
// path; branches keep the path of their property.
func subschemas(s *jsonvalue.Value, path string, fn func(*jsonvalue.Value, string)) {
	for _, p := range objectAt(s, "properties") {
		fn(p.Val, joinPath(path, p.Key))
	}
	if v := s.Get("items"); v != nil {
		fn(v, path+"[]")
	}
	if v := s.Get("additionalProperties"); v != nil {
		fn(v, path+"{}")
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		for _, b := range arrayAt(s, k) {
			fn(b, path)
		}
	}
}

// countProperties counts the object properties of a schema, those of each
// $defs entry once.
func countProperties(root *jsonvalue.Value) int {
	n := 0
	var walk func(s *jsonvalue.Value, _ string)
	walk = func(s *jsonvalue.Value, _ string) {
		if s == nil || s.Kind != jsonvalue.Object {
			return
		}
		n += len(objectAt(s, "properties"))
		subschemas(s, "", walk)
	}
	walk(root, "")
	for _, d := range objectAt(root, "$defs") {
		walk(d.Val, "")
	}
	return n
}

// objectDepth is how deep object schemas nest, the root object being level
// 1, and the path of the deepest. A $ref counts as its definition's depth;
// a $ref back into a definition being measured counts as nothing. This is
// the reading of the openai adapter, which refuses a strict tool over the
// limit.
func objectDepth(root *jsonvalue.Value) (int, string) {
	active := map[string]bool{"#": true}
	var depth func(s *jsonvalue.Value, path string) (int, string)
	depth = func(s *jsonvalue.Value, path string) (int, string) {
		if s == nil || s.Kind != jsonvalue.Object {
			return 0, path
		}
		if ref := stringAt(s, "$ref"); ref != "" {
			if active[ref] {
				return 0, path
			}
			active[ref] = true
			defer delete(active, ref)
			return depth(resolve(root, ref), path)
		}
		best, at := 0, path
		subschemas(s, path, func(c *jsonvalue.Value, p string) {
			if n, np := depth(c, p); n > best {
				best, at = n, np
			}
		})
		if hasType(s, "object") {
			best++
		}
		return best, at
	}
	return depth(root, "")
}

func hasType(s *jsonvalue.Value, typ string) bool {
	if stringAt(s, "type") == typ {
		return true
	}
	for _, t := range arrayAt(s, "type") {
		if t.IsString() && t.Text == typ {
			return true
		}
	}
	return false
}

// anthropicStrict is what one tool counts against the per-request limits
// of Anthropic strict mode.
type anthropicStrict struct {
	tool             string
	strict           bool // strict mode can express the tool
	optional, unions int
}

// anthropicCounts counts the schema the anthropic adapter sends in strict
// mode, or the canonical schema when strict mode cannot express the tool.
func anthropicCounts(t toolreg.AnyTool) anthropicStrict {
	s := anthropicStrict{tool: t.Name()}
	var schema *jsonvalue.Value
	if def := define(dialectNamed("anthropic strict"), t); def.err == nil {
		if o, err := parseObject(def.json); err == nil {
			schema, s.strict = o.Get("input_schema"), true
		}
	}
	if !s.strict {
		schema, _ = jsonvalue.Parse(t.InputSchema())
	}
	s.walk(schema)
	return s
}

// walk counts as the anthropic adapter does: every property missing from
// its object's required list, and every schema with anyOf or a type array.
func (s *anthropicStrict) walk(o *jsonvalue.Value) {
	if o == nil || o.Kind != jsonvalue.Object {
		return
	}
	required := map[string]bool{}
	for _, r := range arrayAt(o, "required") {
		if r.IsString() {
			required[r.Text] = true
		}
	}
	for _, p := range objectAt(o, "properties") {
		if !required[p.Key] {
			s.optional++
		}
	}
	switch {
	case o.Get("anyOf") != nil:
		s.unions++
	case o.Get("oneOf") != nil:
		s.unions++ // sent as anyOf
	case o.Get("type") != nil && o.Get("type").Kind == jsonvalue.Array:
		s.unions++
	}
	subschemas(o, "", func(c *jsonvalue.Value, _ string) { s.walk(c) })
}

func lintAnthropicStrict(all []anthropicStrict, add func(Finding)) {
	var tools []anthropicStrict // those sent strict
	for _, s := range all {
		if s.strict {
			tools = append(tools, s)
			continue
		}
		// The adapter refuses a tool over a limit by itself.
		if s.optional > anthropic.MaxStrictOptional {
			add(Finding{Tool: s.tool, Rule: RuleAnthropicStrictOptional,
				Message: fmt.Sprintf("the schema alone has %d optional parameters, and Anthropic strict mode allows at most %d per request: make some required, or send the tool without strict", s.optional, anthropic.MaxStrictOptional)})
		}
		if s.unions > anthropic.MaxStrictUnions {
			add(Finding{Tool: s.tool, Rule: RuleAnthropicStrictUnions,
				Message: fmt.Sprintf("the schema alone has %d parameters using anyOf or a type array, and Anthropic strict mode allows at most %d per request: send the tool without strict", s.unions, anthropic.MaxStrictUnions)})
		}
	}
	if len(tools) > anthropic.MaxStrictTools {
		names := make([]string, len(tools))
		for i, s := range tools {
			names[i] = s.tool
		}
		add(Finding{Rule: RuleAnthropicStrictTools,
			Message: fmt.Sprintf("%d tools can be sent in Anthropic strict mode, and one request may carry at most %d strict tools: choose them with anthropic.WithStrictTools (%s)",
				len(tools), anthropic.MaxStrictTools, strings.Join(names, ", "))})
	}
	sum := func(count func(anthropicStrict) int) (int, string) {
		total := 0
		var parts []string
		sorted := append([]anthropicStrict(nil), tools...)
		sort.SliceStable(sorted, func(i, j int) bool { return count(sorted[i]) > count(sorted[j]) })
		for _, s := range sorted {
			if n := count(s); n > 0 {
				total += n
				parts = append(parts, fmt.Sprintf("%s %d", s.tool, n))
			}
		}
		return total, strings.Join(parts, ", ")
	}
	if n, parts := sum(func(s anthropicStrict) int { return s.optional }); n > anthropic.MaxStrictOptional {
		add(Finding{Rule: RuleAnthropicStrictOptional,
			Message: fmt.Sprintf("the tools that Anthropic strict mode can express have %d optional parameters, and a request may carry at most %d (%s): make some required, or send fewer tools strict (anthropic.WithStrictTools)",
				n, anthropic.MaxStrictOptional, parts)})
	}
	if n, parts := sum(func(s anthropicStrict) int { return s.unions }); n > anthropic.MaxStrictUnions {
		add(Finding{Rule: RuleAnthropicStrictUnions,
			Message: fmt.Sprintf("the tools that Anthropic strict mode can express have %d parameters using anyOf or a type array (nullable fields), and a request may carry at most %d (%s): send fewer tools strict (anthropic.WithStrictTools)",
				n, anthropic.MaxStrictUnions, parts)})
	}
}
