package toolregtest

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// Rule names one check of Lint. Finding.Rule holds it; Ignore takes it.
type Rule string

// The rules Lint checks. The checks are about what the model reads; the
// providers' limits are rules of package toolregtest/providers (see
// providers.Limits). A jsonschema tag that does not apply to its field, or
// that the reflector would silently drop (a plain jsonschema:"the city",
// jsonschema_extras, minimum on a string...), never gets this far:
// toolreg.New refuses it at declaration, naming the field and the fix.
// Lint checks what New accepts.
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
	// RuleLongDescription: the tool's description is longer than
	// MaxDescriptionLength characters, or a property's longer than
	// MaxFieldDescriptionLength. Every request carries every definition,
	// so a long text is paid for on every call, needed or not: keep what
	// the model needs to choose the tool and fill its arguments, and let
	// the rest come with the tool's results or its refusals.
	RuleLongDescription Rule = "long-description"
	// RuleLargeEnum: a property is limited to more than MaxEnumValues
	// values, every one of which every request carries. Take a plain
	// string the tool checks (its refusal can name the nearest values), or
	// offer a tool that looks the values up.
	RuleLargeEnum Rule = "large-enum"
)

// MaxDescriptionLength is the longest tool description
// RuleLongDescription accepts, in characters: some 250 tokens, room for
// what the tool does, when to use it and when not to, with an example.
const MaxDescriptionLength = 1000

// MaxFieldDescriptionLength is the longest property description
// RuleLongDescription accepts, in characters: a sentence or two on the
// format, the units and an example.
const MaxFieldDescriptionLength = 300

// MaxEnumValues is the most values RuleLargeEnum accepts in one enum: a
// list a model can still read as a choice, at a few tokens a value.
const MaxEnumValues = 50

// MinDescriptionLength is the shortest tool description RuleToolDescription
// accepts, in characters after trimming space: about the shortest text
// that can say both what a tool does and when to use it.
const MinDescriptionLength = 20

// Finding is one thing Lint found wrong with a registry.
type Finding struct {
	// Tool is the tool at fault, "" for the registry as a whole (a limit
	// on the number of tools, say).
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

// LintOption configures Lint and LintT: Ignore, Check.
type LintOption struct {
	set func(*lintConfig)
}

type lintConfig struct {
	ignore map[Rule]bool
	checks []func(*toolreg.Registry) []Finding
}

// Ignore skips rules: those of Lint, and those that Check adds (the
// strict-mode limits of a provider you do not use in strict mode, say).
func Ignore(rules ...Rule) LintOption {
	return LintOption{func(c *lintConfig) {
		for _, r := range rules {
			c.ignore[r] = true
		}
	}}
}

// Check adds to Lint rules kept outside this package: check returns its
// findings for a registry, and Lint reports them among its own, in its
// order and subject to Ignore. Package toolregtest/providers adds the
// providers' limits this way (providers.Limits); a team can add its own
// conventions.
func Check(check func(reg *toolreg.Registry) []Finding) LintOption {
	return LintOption{func(c *lintConfig) { c.checks = append(c.checks, check) }}
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

// Lint checks a registry for definitions that would mislead a model, and
// returns the findings: first each tool's in registration order, then
// those of the registry as a whole. The rules and their thresholds are the
// Rule constants; Check adds more, such as the providers' limits of
// package toolregtest/providers.
//
// A jsonschema tag that does not apply to its field's type, or that the
// reflector would silently drop (a plain jsonschema:"the city" that other
// libraries read as a description, a keyword of another type), is not
// Lint's business: toolreg.New refuses it at declaration. Lint reports the
// struct tags New does not look at (RuleForeignTag).
func Lint(reg *toolreg.Registry, opts ...LintOption) []Finding {
	cfg := lintConfig{ignore: map[Rule]bool{}}
	for _, o := range opts {
		if o.set != nil { // the zero LintOption does nothing
			o.set(&cfg)
		}
	}
	var all []Finding
	add := func(f Finding) { all = append(all, f) }
	tools := reg.Tools()
	firstWith := map[string]string{} // normalized description → first tool
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
	}
	for _, check := range cfg.checks {
		all = append(all, check(reg)...)
	}
	inOrder(all, tools)
	return slices.DeleteFunc(all, func(f Finding) bool { return cfg.ignore[f.Rule] })
}

// inOrder sorts findings by tool, in registration order, and puts those of
// the registry as a whole (or of a tool it does not hold) last. The sort
// is stable: a tool's findings keep the order their rules found them in.
func inOrder(fs []Finding, tools []toolreg.AnyTool) {
	rank := make(map[string]int, len(tools))
	for i, t := range tools {
		rank[t.Name()] = i
	}
	at := func(f Finding) int {
		if i, ok := rank[f.Tool]; ok && f.Tool != "" {
			return i
		}
		return len(tools)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int { return at(a) - at(b) })
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
	if n := utf8.RuneCountInString(desc); n > MaxDescriptionLength {
		add(Finding{Tool: name, Rule: RuleLongDescription,
			Message: fmt.Sprintf("the description has %d characters, more than %d, and every request carries it: keep what the model needs to choose the tool and fill its arguments; let the rest come with the results", n, MaxDescriptionLength)})
	}
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
		if vals := enumValues(prop); len(vals) > MaxEnumValues {
			add(Finding{Tool: t.Name(), Field: path, Rule: RuleLargeEnum,
				Message: fmt.Sprintf("the field takes one of %d values (%s, %s, %s …), more than %d, and every request carries them all: take a plain string the tool checks, or offer a tool that looks the values up",
					len(vals), vals[0].Encode(), vals[1].Encode(), vals[2].Encode(), MaxEnumValues)})
		}
		if n := utf8.RuneCountInString(strings.TrimSpace(ownDescription(prop))); n > MaxFieldDescriptionLength {
			add(Finding{Tool: t.Name(), Field: path, Rule: RuleLongDescription,
				Message: fmt.Sprintf("the description has %d characters, more than %d, and every request carries it: say what to put there (format, units, an example) and no more", n, MaxFieldDescriptionLength)})
		}
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
