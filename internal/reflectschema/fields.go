package reflectschema

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// structFields lists the JSON members of struct type t the way encoding/json
// decodes them, and refuses the declarations where invopop's schema and
// encoding/json would disagree (embedding and tags).
func structFields(t reflect.Type, path string) ([]Field, error) {
	var fields []Field
	if err := collectFields(t, nil, "", path, map[reflect.Type]bool{t: true}, &fields); err != nil {
		return nil, err
	}
	seen := make(map[string]Field, len(fields))
	for _, f := range fields {
		if prev, dup := seen[f.Name]; dup {
			return nil, &Error{
				Path: joinPath(path, f.Name), Type: t.String(),
				Why: fmt.Sprintf("the JSON name %q is declared by both %s and %s; encoding/json resolves such clashes by embedding depth and may silently drop one", f.Name, prev.GoPath, f.GoPath),
				Fix: "give one of them another name with a json tag, or hide it with json:\"-\"",
			}
		}
		seen[f.Name] = f
	}
	return fields, nil
}

func collectFields(t reflect.Type, index []int, goPrefix, path string, embedding map[reflect.Type]bool, out *[]Field) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if key := lostTagKey(sf.Tag); key != "" && (sf.IsExported() || sf.Anonymous) {
			return &Error{Path: joinPath(path, goPrefix+sf.Name), Type: sf.Type.String(),
				Why: fmt.Sprintf("the struct tag `%s` is malformed, so reflect.StructTag cannot read its %s key and the field's %s tag would be silently dropped", sf.Tag, key, key),
				Fix: `write each key as key:"value", separated by spaces, every value quoted and a valid Go string: in a raw string tag a backslash is doubled, as in jsonschema:"enum=a\\,b"`}
		}
		jsonTag := sf.Tag.Get("json")
		if schemaTag, _, _ := strings.Cut(sf.Tag.Get("jsonschema"), ","); jsonTag == "-" || schemaTag == "-" {
			// Hidden from the model: not in the schema, never set by a call.
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		goPath := goPrefix + sf.Name
		at := func(why, fix string) error {
			return &Error{Path: joinPath(path, goPath), Type: sf.Type.String(), Why: why, Fix: fix}
		}
		if jsonTag == "-," || strings.HasPrefix(jsonTag, "-,") {
			return at(`json:"-," names the JSON key "-", which the schema reflector drops`, `rename the field with a json tag, or use json:"-" to hide it`)
		}
		if hasOpt(opts, "inline") {
			return at(`encoding/json has no ",inline" option: it would expect a nested object while the schema flattens it`, "embed the struct without a json tag to promote its fields")
		}
		if hasOpt(opts, "string") {
			return at(`the ",string" option is not supported: the schema would not say that the value is a quoted number`, `remove ",string" and use a plain number or string field`)
		}
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if name == "" && ft.Kind() == reflect.Struct && !hasDecoder(ft) && !hasSchemaHook(ft) {
				if sf.Type.Kind() == reflect.Pointer && !isExportedName(ft.Name()) {
					return at("an embedded pointer to an unexported struct cannot be set by encoding/json", "embed the struct by value, or export its type")
				}
				if embedding[ft] {
					return at("the struct embeds itself", "remove the cyclic embedding")
				}
				embedding[ft] = true
				err := collectFields(ft, append(append([]int(nil), index...), i), goPath+".", path, embedding, out)
				delete(embedding, ft)
				if err != nil {
					return err
				}
				continue
			}
			if !sf.IsExported() {
				if ft.Kind() == reflect.Struct {
					return at("an embedded unexported struct with its own decoding or a json name is ignored by encoding/json", "export the type or give it a named field")
				}
				return at("an embedded unexported non-struct type is ignored by encoding/json, but the schema would list it", "give it an exported field name, or remove it")
			}
		} else if !sf.IsExported() {
			continue
		}
		if name != "" && !validTagName(name) {
			return at(fmt.Sprintf("the json tag name %q is not one encoding/json accepts, so it would use %q instead", name, sf.Name), "use letters, digits and punctuation other than quotes, backslash and comma")
		}
		if name == "" {
			name = sf.Name
		}
		*out = append(*out, Field{
			Name:      name,
			GoPath:    goPath,
			Index:     append(append([]int(nil), index...), i),
			Type:      sf.Type,
			Tag:       sf.Tag,
			OmitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
		})
	}
	return nil
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validTagName is encoding/json's rule for json tag names.
func validTagName(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func isExportedName(s string) bool {
	for _, c := range s {
		return unicode.IsUpper(c)
	}
	return false
}

// joinPath appends a JSON member name to a field path used in messages.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// tagKeyPattern finds the keys of a struct tag that toolreg reads.
var tagKeyPattern = regexp.MustCompile(`(?:^|[^\w])(json|jsonschema|jsonschema_description|jsonschema_extras):`)

// lostTagKey returns a key toolreg reads that a malformed struct tag holds
// but reflect.StructTag.Lookup cannot return (it stops at the first
// malformed pair, and drops a value strconv.Unquote refuses), "" when
// there is none. A malformed tag whose json keys Lookup still reads (a
// malformed key of another package after them) is left to go vet.
func lostTagKey(tag reflect.StructTag) string {
	if wellFormedTag(string(tag)) {
		return ""
	}
	for _, m := range tagKeyPattern.FindAllStringSubmatch(string(tag), -1) {
		if _, ok := tag.Lookup(m[1]); !ok {
			return m[1]
		}
	}
	return ""
}

// wellFormedTag reports whether tag follows the struct tag convention
// that reflect.StructTag.Lookup parses: key:"value" pairs, each value a
// quoted Go string, separated by spaces.
func wellFormedTag(tag string) bool {
	for {
		tag = strings.TrimLeft(tag, " ")
		if tag == "" {
			return true
		}
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return false
		}
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			return false
		}
		if _, err := strconv.Unquote(tag[:i+1]); err != nil {
			return false
		}
		tag = tag[i+1:]
		if tag != "" && tag[0] != ' ' {
			return false // pairs are separated by spaces: `json:"a",jsonschema:"b"` hides its second key
		}
	}
}
