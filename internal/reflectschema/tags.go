package reflectschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg/internal/suggest"
)

// tagInfo is what a field's jsonschema tag means beyond the keywords the
// reflector copies into the schema.
type tagInfo struct {
	required bool // a bare "required"
	def      any  // the default as a JSON value, nil when none
}

// Keywords of the jsonschema tag that the reflector applies, by the JSON
// type of the field. Anything else would be silently dropped, so checkTags
// refuses it.
var (
	genericKeywords = keywordSet("title", "description")
	stringKeywords  = keywordSet("minLength", "maxLength", "pattern", "format", "readOnly", "writeOnly", "default", "example", "enum")
	numberKeywords  = keywordSet("multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "default", "example", "enum")
	boolKeywords    = keywordSet("default")
	arrayKeywords   = keywordSet("minItems", "maxItems", "uniqueItems", "default")
)

// tagKeywords are all the keywords invopop/jsonschema reads from a
// jsonschema tag, whether or not toolreg lets them through: a key outside
// them is a typo, not a keyword for another type.
var tagKeywords = keywordSet("title", "description", "type", "anchor",
	"oneof_required", "anyof_required", "oneof_ref", "oneof_type", "anyof_ref", "anyof_type",
	"minLength", "maxLength", "pattern", "format", "readOnly", "writeOnly", "default", "example", "enum",
	"multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum",
	"dependencies", "patternProperties", "minItems", "maxItems", "uniqueItems")

// closestKeyword suggests the allowed keyword a user most likely meant:
// suggest.Closest's typo, or else the one keyword that key abbreviates
// ("desc" for description).
func closestKeyword(key string, allowed []string) string {
	if s := suggest.Closest(key, allowed); s != "" {
		return s
	}
	if len(key) < 3 {
		return ""
	}
	found := ""
	for _, a := range allowed {
		if strings.HasPrefix(strings.ToLower(a), strings.ToLower(key)) {
			if found != "" {
				return "" // "min": minimum or minLength
			}
			found = a
		}
	}
	return found
}

func keywordSet(k ...string) map[string]bool {
	m := make(map[string]bool, len(k))
	for _, s := range k {
		m[s] = true
	}
	return m
}

// tagClass is the JSON type whose tag keywords the reflector applies to a
// field of type t: "" when only the generic keywords apply (structs, maps,
// named slices, special types).
func tagClass(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case timeType, rawMessageType, numberType, ipType:
		return ""
	}
	if hasSchemaHook(t) || hasDecoder(t) {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Name() != "" || t.Elem() == reflect.TypeFor[byte]() && t.Kind() == reflect.Slice {
			return "" // a named slice becomes a $ref, where the keywords are dropped
		}
		return "array"
	}
	return ""
}

func checkTags(f Field, path string) (tagInfo, error) {
	var info tagInfo
	refuse := func(why, fix string) (tagInfo, error) {
		return info, &Error{Path: path, Type: f.Type.String(), Why: why, Fix: fix}
	}
	if f.Tag.Get("jsonschema_extras") != "" {
		return refuse("jsonschema_extras copies keywords into the schema unchecked", "use the keywords of the jsonschema tag")
	}
	raw, ok := f.Tag.Lookup("jsonschema")
	if !ok || raw == "" {
		return info, nil
	}
	class := tagClass(f.Type)
	var elemClass string
	if class == "array" {
		elemClass = tagClass(deref(f.Type).Elem())
		if elemClass == "array" {
			elemClass = "" // the reflector does not reach nested arrays
		}
	}
	var defaults []string
	kws := map[string][]string{} // the field's keywords, "items." for array items
	prev := ""
	for _, item := range splitTag(raw) {
		if item == "" {
			continue
		}
		key, val, hasVal := strings.Cut(item, "=")
		if !hasVal {
			switch item {
			case "required":
				info.required = true
				continue
			case "nullable":
				continue
			}
			if prev != "" {
				return refuse(fmt.Sprintf("the comma after %q ends that keyword, so %q is read as a keyword of its own", prev, item),
					`escape a comma inside a value as \\, (for example description=City name\\, e.g. Paris)`)
			}
			return refuse(fmt.Sprintf("jsonschema tag item %q is not a keyword; plain text is not read as a description", item),
				fmt.Sprintf(`write jsonschema:"description=%s"`, item))
		}
		prev = item
		if genericKeywords[key] {
			continue
		}
		applies, target := keywordTarget(class, elemClass, key)
		if !applies && !tagKeywords[key] {
			allowed := allowedKeywords(class, elemClass)
			why := "unknown keyword " + key
			if s := closestKeyword(key, allowed); s != "" {
				why += "; did you mean " + s + "?"
			}
			return refuse("jsonschema tag: "+why, "use one of: "+strings.Join(allowed, ", "))
		}
		if !applies {
			allowed := allowedKeywords(class, elemClass)
			return refuse(fmt.Sprintf("jsonschema keyword %q does not apply to this field and would be silently dropped", key),
				"use one of: "+strings.Join(allowed, ", "))
		}
		// The reflector reads array and number keywords with
		// strings.Split(item, "="): a value holding '=' is dropped.
		if (class == "array" || target != "string") && strings.Contains(val, "=") {
			return refuse(fmt.Sprintf("the value of %q contains '=', which the reflector silently drops here", key), "remove the '=' (use \\x3d in a pattern)")
		}
		if err := checkKeywordValue(f.Type, target, key, val); err != nil {
			return refuse(err.Error(), "write a value of the field's type")
		}
		if key == "default" {
			defaults = append(defaults, val)
			continue
		}
		scope := key
		if class == "array" && !arrayKeywords[key] {
			scope = "items." + key
		}
		kws[scope] = append(kws[scope], val)
	}
	if len(defaults) > 0 {
		if err := checkDefault(class, defaults, kws); err != nil {
			return refuse(err.Error(), "give a default the field's own keywords accept")
		}
		switch class {
		case "array":
			if elemClass != "string" {
				return refuse("array defaults are read as strings, which does not match the element type", "give defaults only to []string fields, or set the value in the tool")
			}
			d := make([]any, len(defaults))
			for i, s := range defaults {
				d[i] = s
			}
			info.def = d
		case "string":
			info.def = defaults[len(defaults)-1]
		case "boolean":
			info.def = defaults[len(defaults)-1] == "true"
		default:
			info.def = json.Number(defaults[len(defaults)-1])
		}
	}
	return info, nil
}

// keywordTarget says whether key applies to a field of the class, and to
// which JSON type it applies (the element type for array item keywords).
func keywordTarget(class, elemClass, key string) (bool, string) {
	if keywordsOf(class)[key] {
		return true, class
	}
	if class == "array" {
		if (key == "format" || key == "pattern") && elemClass == "string" {
			return true, "string"
		}
		if key != "default" && keywordsOf(elemClass)[key] {
			return true, elemClass
		}
	}
	return false, ""
}

func keywordsOf(class string) map[string]bool {
	switch class {
	case "string":
		return stringKeywords
	case "integer", "number":
		return numberKeywords
	case "boolean":
		return boolKeywords
	case "array":
		return arrayKeywords
	}
	return nil
}

func allowedKeywords(class, elemClass string) []string {
	var out []string
	for k := range genericKeywords {
		out = append(out, k)
	}
	for k := range keywordsOf(class) {
		out = append(out, k)
	}
	if class == "array" {
		for k := range keywordsOf(elemClass) {
			if k != "default" {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkKeywordValue refuses values the reflector would silently drop or
// that the field's type cannot hold.
func checkKeywordValue(t reflect.Type, target, key, val string) error {
	switch key {
	case "minLength", "maxLength", "minItems", "maxItems":
		if _, err := strconv.ParseUint(val, 10, 64); err != nil {
			return fmt.Errorf("%s=%q is not a non-negative integer", key, val)
		}
		return nil
	case "uniqueItems", "readOnly", "writeOnly":
		if _, err := strconv.ParseBool(val); err != nil {
			return fmt.Errorf("%s=%q is not true or false", key, val)
		}
		return nil
	case "pattern":
		if _, err := regexp.Compile(val); err != nil {
			return fmt.Errorf("pattern=%q is not a valid regular expression: %v", val, err)
		}
		return nil
	case "format", "title", "description":
		return nil
	}
	switch target {
	case "boolean":
		if val != "true" && val != "false" {
			return fmt.Errorf("%s=%q is not true or false", key, val)
		}
	case "integer", "number":
		if !jsonNumber.MatchString(val) {
			return fmt.Errorf("%s=%q is not a JSON number", key, val)
		}
		r, _ := new(big.Rat).SetString(val)
		if target == "integer" && (key == "default" || key == "enum" || key == "example") {
			if !r.IsInt() {
				return fmt.Errorf("%s=%q is not an integer", key, val)
			}
			lo, hi := IntRange(elemOrSelf(t))
			if r.Cmp(lo) < 0 || r.Cmp(hi) > 0 {
				return fmt.Errorf("%s=%q is outside the range of %s", key, val, elemOrSelf(t))
			}
		}
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// elemOrSelf is the scalar type a numeric keyword of field type t applies to.
func elemOrSelf(t reflect.Type) reflect.Type {
	t = deref(t)
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = deref(t.Elem())
	}
	return t
}

// splitTag splits a jsonschema tag on commas not escaped by a backslash, as
// the reflector does.
func splitTag(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == ',' {
			cur.WriteByte(',')
			i++
			continue
		}
		if s[i] == ',' {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(s[i])
	}
	return append(out, cur.String())
}

// jsonNumber is the JSON number grammar: the reflector drops anything else
// (0x10, +1, .5) silently.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// checkDefault refuses a default that the field's own keywords reject: the
// model would be told a value is impossible and then receive it.
func checkDefault(class string, defaults []string, kws map[string][]string) error {
	if class == "array" {
		if err := checkCount(len(defaults), kws["minItems"], kws["maxItems"], "items"); err != nil {
			return fmt.Errorf("the default %q has %v", defaults, err)
		}
		for _, d := range defaults {
			if err := checkScalar("string", d, kws, "items."); err != nil {
				return fmt.Errorf("the default item %q %v", d, err)
			}
		}
		return nil
	}
	d := defaults[len(defaults)-1]
	if err := checkScalar(class, d, kws, ""); err != nil {
		return fmt.Errorf("the default %q %v", d, err)
	}
	return nil
}

func checkScalar(class, v string, kws map[string][]string, prefix string) error {
	if enum := kws[prefix+"enum"]; len(enum) > 0 {
		found := false
		for _, e := range enum {
			if class == "string" && e == v {
				found = true
			}
			if class == "integer" || class == "number" {
				a, _ := new(big.Rat).SetString(e)
				b, _ := new(big.Rat).SetString(v)
				found = found || a != nil && b != nil && a.Cmp(b) == 0
			}
		}
		if !found {
			return fmt.Errorf("is not one of the enum values %q", enum)
		}
	}
	switch class {
	case "integer", "number":
		r, _ := new(big.Rat).SetString(v)
		for key, ok := range map[string]func(c int) bool{
			"minimum": func(c int) bool { return c >= 0 }, "exclusiveMinimum": func(c int) bool { return c > 0 },
			"maximum": func(c int) bool { return c <= 0 }, "exclusiveMaximum": func(c int) bool { return c < 0 },
		} {
			for _, b := range kws[prefix+key] {
				br, _ := new(big.Rat).SetString(b)
				if br != nil && !ok(r.Cmp(br)) {
					return fmt.Errorf("breaks %s=%s", key, b)
				}
			}
		}
		for _, m := range kws[prefix+"multipleOf"] {
			mr, _ := new(big.Rat).SetString(m)
			if mr != nil && mr.Sign() != 0 && !new(big.Rat).Quo(r, mr).IsInt() {
				return fmt.Errorf("is not a multiple of %s", m)
			}
		}
	case "string":
		if err := checkCount(utf8.RuneCountInString(v), kws[prefix+"minLength"], kws[prefix+"maxLength"], "characters"); err != nil {
			return fmt.Errorf("has %v", err)
		}
		for _, p := range kws[prefix+"pattern"] {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
				return fmt.Errorf("does not match pattern=%s", p)
			}
		}
	}
	return nil
}

func checkCount(n int, min, max []string, what string) error {
	for _, m := range min {
		if k, _ := strconv.Atoi(m); n < k {
			return fmt.Errorf("%d %s, fewer than %d", n, what, k)
		}
	}
	for _, m := range max {
		if k, _ := strconv.Atoi(m); n > k {
			return fmt.Errorf("%d %s, more than %d", n, what, k)
		}
	}
	return nil
}
