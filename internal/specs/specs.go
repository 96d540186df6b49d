// Package specs checks the request bodies the adapters send against the
// request schemas the providers publish, so a field the API does not
// define, a wrong type or a missing required field shows in a test
// rather than as a 400 from the provider.
//
// The schemas under testdata are small extracts of the published
// documents, made by cmd/extract (which records the source repository,
// path and commit in each file):
//
//   - openai.json: Chat Completions (CreateChatCompletionRequest) and
//     Responses (CreateResponse) from openapi.json of
//     github.com/openai/openai-openapi:
//
//     git show COMMIT:openapi.json > openai-openapi.json
//     go run ./internal/specs/cmd/extract -format openapi -in openai-openapi.json \
//     -repo github.com/openai/openai-openapi -path openapi.json -commit COMMIT \
//     -roots CreateChatCompletionRequest,CreateResponse -out internal/specs/testdata/openai.json
//
//   - vertex.json: Vertex AI generateContent
//     (GoogleCloudAiplatformV1GenerateContentRequest) from the aiplatform v1
//     discovery document the module google.golang.org/api ships:
//
//     go mod download google.golang.org/api@VERSION
//     go run ./internal/specs/cmd/extract -format discovery \
//     -in $(go env GOMODCACHE)/google.golang.org/api@VERSION/aiplatform/v1/aiplatform-api.json \
//     -repo google.golang.org/api -path aiplatform/v1/aiplatform-api.json -commit VERSION \
//     -roots GoogleCloudAiplatformV1GenerateContentRequest -out internal/specs/testdata/vertex.json
//
// The Gemini Developer API publishes no machine-readable request schema
// in a public repository or module: its discovery document is served by
// the API alone, and the v1 protos in googleapis/googleapis lag it (their
// Part holds text and inline data alone). Its bodies are checked against Vertex AI's schema, which
// defines the same Content, Tool and config messages; a field only the
// Gemini API defines is listed as a gap where the check runs
// (adapttest). The check cannot see a field Vertex accepts and the
// Gemini API refuses.
//
// Anthropic publishes none either (its SDKs are generated from a document
// on a storage bucket, not in a repository), so its bodies are not
// checked.
package specs

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolreg/toolreg/internal/args"
)

//go:embed testdata/openai.json testdata/vertex.json
var files embed.FS

// Request names one kind of request and the published schema it is
// checked against: the file under testdata and the schema in its $defs.
type Request struct {
	API, File, Root string
}

// Known requests.
var (
	OpenAIChat      = Request{"OpenAI Chat Completions", "openai.json", "CreateChatCompletionRequest"}
	OpenAIResponses = Request{"OpenAI Responses", "openai.json", "CreateResponse"}
	Vertex          = Request{"Vertex AI", "vertex.json", "GoogleCloudAiplatformV1GenerateContentRequest"}
	// GeminiAPI is the Gemini Developer API's request, checked against
	// Vertex AI's schema (see the package documentation).
	GeminiAPI = Request{"Gemini API", "vertex.json", "GoogleCloudAiplatformV1GenerateContentRequest"}
)

// ForPath returns the request a body sent to the URL path is, and false
// for a path none of the extracted schemas covers. Vertex requests of
// any API version are checked against v1: it is the newest document
// published (the v1beta1 one in the same module is a year older), and
// v1beta1 accepts what v1 does.
func ForPath(path string) (Request, bool) {
	generate := strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, ":streamGenerateContent")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return OpenAIChat, true
	case strings.HasSuffix(path, "/responses"):
		return OpenAIResponses, true
	case generate && (strings.Contains(path, "/projects/") || strings.Contains(path, "/publishers/")):
		return Vertex, true
	case generate && strings.Contains(path, "/models/"):
		return GeminiAPI, true
	}
	return Request{}, false
}

// Violation is one place where a body breaks the schema.
type Violation struct {
	// Path is the JSON pointer of the value in the body.
	Path string
	// Message says what is wrong with it.
	Message string
}

func (v Violation) String() string { return v.Path + ": " + v.Message }

var (
	mu       sync.Mutex
	compiled = map[Request]compiledSchema{}
)

type compiledSchema struct {
	s   *jsonschema.Schema
	err error
}

// schema compiles r's schema once; a test binary checks thousands of
// bodies against it.
func schema(r Request) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := compiled[r]
	if !ok {
		c.s, c.err = compile(r)
		compiled[r] = c
	}
	return c.s, c.err
}

func compile(r Request) (*jsonschema.Schema, error) {
	raw, err := files.ReadFile("testdata/" + r.File)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.File, err)
	}
	c := args.NewCompiler()
	url := "urn:specs:" + r.File
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url + "#/$defs/" + r.Root)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", r.Root, err)
	}
	return s, nil
}

// Check validates body against r's schema and returns where it breaks
// it, none for a valid body. Where the schema allows several shapes
// (anyOf), only the shapes the value is of (its JSON type, its "type"
// field) are reported, so a function call output with a field too many
// reads as that, not as twenty mismatched item kinds.
func Check(r Request, body []byte) ([]Violation, error) {
	s, err := schema(r)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	err = s.Validate(v)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	p := message.NewPrinter(language.English)
	all := leaves(ve)
	var out []Violation
	for _, l := range all {
		if unknown(l) {
			if slices.ContainsFunc(all, func(o *jsonschema.ValidationError) bool { return cascade(l, o) }) {
				continue
			}
			out = append(out, Violation{Path: pointer(l.InstanceLocation), Message: "not a property the schema defines"})
			continue
		}
		// The validator prints an enum's null as Go does.
		msg := strings.ReplaceAll(l.ErrorKind.LocalizedString(p), "<nil>", "null")
		out = append(out, Violation{Path: pointer(l.InstanceLocation), Message: msg})
	}
	slices.SortFunc(out, func(a, b Violation) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(out), nil
}

// leaves returns the errors at the bottom of e's tree, leaving out the
// branches of an anyOf whose shape the value is not of.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		var best []*jsonschema.ValidationError
		for _, c := range e.Causes {
			l := leaves(c)
			if slices.ContainsFunc(l, func(x *jsonschema.ValidationError) bool { return otherShape(x, e.InstanceLocation) }) {
				continue
			}
			if best == nil || len(l) < len(best) {
				best = l
			}
		}
		if best == nil {
			return []*jsonschema.ValidationError{merged(e)}
		}
		return best
	}
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// merged returns the anyOf e, none of whose shapes the value is of, as
// one error: "got string, want boolean or null" when every branch wants
// another JSON type, e itself otherwise.
func merged(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	t := &kind.Type{}
	for _, c := range e.Causes {
		for _, l := range leaves(c) {
			k, ok := l.ErrorKind.(*kind.Type)
			if !ok || !slices.Equal(l.InstanceLocation, e.InstanceLocation) {
				return e
			}
			t.Got = k.Got
			for _, w := range k.Want {
				if !slices.Contains(t.Want, w) {
					t.Want = append(t.Want, w)
				}
			}
		}
	}
	return &jsonschema.ValidationError{SchemaURL: e.SchemaURL, InstanceLocation: e.InstanceLocation, ErrorKind: t}
}

// otherShape reports whether x says the value at `at` is of another shape
// than the branch that failed: another JSON type, another "type" field,
// or none of a nested anyOf's shapes.
func otherShape(x *jsonschema.ValidationError, at []string) bool {
	loc := x.InstanceLocation
	switch x.ErrorKind.(type) {
	case *kind.Type, *kind.AnyOf:
		return slices.Equal(loc, at)
	case *kind.Const, *kind.Enum:
		return len(loc) == len(at)+1 && slices.Equal(loc[:len(at)], at) && loc[len(at)] == "type"
	}
	return false
}

// unknown reports whether e refuses a property the schema does not
// define (the closing extract adds).
func unknown(e *jsonschema.ValidationError) bool {
	_, ok := e.ErrorKind.(*kind.FalseSchema)
	return ok && (strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties") || strings.HasSuffix(e.SchemaURL, "/additionalProperties"))
}

// cascade reports whether the unknown property u may only follow from
// the error o deeper in the same object: a part of an object (an allOf
// member) that fails gives no account of the properties it defines, so
// unevaluatedProperties then refuses them all. Such a property is left
// out; once o is fixed, a property that is really unknown still shows.
func cascade(u, o *jsonschema.ValidationError) bool {
	parent := u.InstanceLocation[:len(u.InstanceLocation)-1]
	if o == u || len(o.InstanceLocation) < len(parent) || !slices.Equal(o.InstanceLocation[:len(parent)], parent) {
		return false
	}
	// Another unknown property beside u explains nothing.
	return !unknown(o) || len(o.InstanceLocation) > len(u.InstanceLocation)
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
