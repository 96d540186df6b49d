package toolmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/toolreg/toolreg/internal/args"
)

// Elicitation: a question to a person, across MCP, both ways. A served
// tool's toolreg.Interrupt asks the MCP client (see AddTools); an imported
// server's elicitation/create pauses the run (see Importer.Elicit). Both
// sides hold what the peer sends to the bounds below, because either peer
// can lie.

// ErrElicitation is in the error of a question across MCP that could not be
// asked or answered: a schema MCP does not allow, a question or an answer
// over its bound, an answer not valid under the schema, a peer that asks
// more than 10 questions in one call. The text says what was wrong and
// what is allowed.
var ErrElicitation = errors.New("MCP elicitation failed")

// Bounds of a question across MCP, in either direction.
const (
	// maxElicitMessage bounds, in bytes, the message of a question.
	maxElicitMessage = 4000
	// maxElicitSchema bounds, in bytes, a requestedSchema, and
	// maxElicitProperties its properties: MCP allows a flat form, which a
	// person fills in, not a document.
	maxElicitSchema     = 16 << 10
	maxElicitProperties = 50
	// maxAnswerBytes bounds, in bytes, an answer's content.
	maxAnswerBytes = 64 << 10
	// maxElicitations bounds the questions one call may ask.
	maxElicitations = 10
)

// answerLimits bound an answer as the registry bounds arguments: a form
// is one flat object.
var answerLimits = args.Limits{MaxBytes: maxAnswerBytes, MaxDepth: 3, MaxValues: 1000, MaxSchemaNodes: 500}

// fallbackSchema is the form asked for a question without a schema: one
// line of text, which the tool reads as a JSON string.
const fallbackSchema = `{"type":"object","properties":{"answer":{"type":"string","title":"Answer"}},"required":["answer"]}`

// form is a question as MCP asks it.
type form struct {
	message string
	schema  json.RawMessage // a flat object of primitives
	// fallback: the question had no schema, and the answer is the
	// "answer" property of fallbackSchema.
	fallback bool
	check    *args.Checker
}

// formOf reads a toolreg.Interrupt's question as a form: an object with a
// string "message" and an object "requestedSchema" (MCP's own names, so
// that a tool may interrupt with an mcp.ElicitParams) is asked as it is;
// a question without a requestedSchema is asked for one line of text; a
// string is the message itself, and any other JSON is shown as it is.
func formOf(question json.RawMessage) (*form, error) {
	var q struct {
		Message         *string         `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	var text string
	switch {
	case json.Unmarshal(question, &text) == nil:
	case json.Unmarshal(question, &q) == nil && q.Message != nil:
		text = *q.Message
	default:
		text = string(question)
	}
	if len(text) > maxElicitMessage {
		return nil, fmt.Errorf("%w: the question is %d bytes long; a question across MCP may be %d", ErrElicitation, len(text), maxElicitMessage)
	}
	schema := q.RequestedSchema
	if len(schema) == 0 || string(schema) == "null" {
		f, err := newForm(text, json.RawMessage(fallbackSchema))
		if f != nil {
			f.fallback = true
		}
		return f, err
	}
	return newForm(text, schema)
}

// newForm checks schema against what MCP elicitation allows and compiles
// the check of its answers.
func newForm(message string, schema json.RawMessage) (*form, error) {
	if err := flatSchema(schema); err != nil {
		return nil, err
	}
	check, err := args.CompileDynamic(schema, answerLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: the requestedSchema: %v", ErrElicitation, err)
	}
	return &form{message: message, schema: schema, check: check}, nil
}

// flatSchema checks that schema is what MCP elicitation allows: an object
// whose properties are each a string (enums included), a number, an
// integer, a boolean or an array of enumerated strings (a multiple
// choice), within the bounds.
func flatSchema(schema json.RawMessage) error {
	if len(schema) > maxElicitSchema {
		return fmt.Errorf("%w: the requestedSchema is %d bytes long; MCP elicitation asks for a flat form, here of up to %d bytes", ErrElicitation, len(schema), maxElicitSchema)
	}
	var root struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("%w: the requestedSchema is not a JSON object: %v", ErrElicitation, err)
	}
	if root.Type != "object" {
		return fmt.Errorf(`%w: the requestedSchema must have "type": "object", as MCP elicitation requires`, ErrElicitation)
	}
	if len(root.Properties) > maxElicitProperties {
		return fmt.Errorf("%w: the requestedSchema has %d properties; up to %d are allowed", ErrElicitation, len(root.Properties), maxElicitProperties)
	}
	names := make([]string, 0, len(root.Properties))
	for name := range root.Properties {
		names = append(names, name)
	}
	sort.Strings(names) // the first wrong property is named, whatever the map's order
	for _, name := range names {
		var p struct {
			Type  any             `json:"type"`
			Items json.RawMessage `json:"items"`
			Props json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(root.Properties[name], &p); err != nil {
			return fmt.Errorf("%w: property %q of the requestedSchema is not a JSON object", ErrElicitation, peerText(name, maxServerName))
		}
		switch {
		case p.Props != nil:
		case p.Type == "string", p.Type == "number", p.Type == "integer", p.Type == "boolean":
			continue
		case p.Type == "array" && enumItems(p.Items):
			continue
		}
		return fmt.Errorf("%w: property %q of the requestedSchema is not a string, number, integer, boolean or multiple choice; MCP elicitation allows only a flat form of those", ErrElicitation, peerText(name, maxServerName))
	}
	return nil
}

// enumItems reports whether items lists the choices of a multiple choice:
// strings, as an enum or as anyOf consts.
func enumItems(items json.RawMessage) bool {
	var it struct {
		Enum  []any `json:"enum"`
		AnyOf []struct {
			Const any `json:"const"`
		} `json:"anyOf"`
	}
	if json.Unmarshal(items, &it) != nil {
		return false
	}
	return len(it.Enum) > 0 || len(it.AnyOf) > 0
}

// content checks an answer's content against the form and returns the
// answer as the tool reads it (CallInfo.Answer).
func (f *form) content(content map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(content); err != nil {
		return nil, fmt.Errorf("%w: the answer does not encode as JSON: %v", ErrElicitation, err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > maxAnswerBytes {
		return nil, fmt.Errorf("%w: the answer is %d bytes long; the limit is %d", ErrElicitation, len(b), maxAnswerBytes)
	}
	var raw json.RawMessage
	problems, err := f.check.Decode(b, reflect.ValueOf(&raw).Elem())
	if err != nil {
		return nil, fmt.Errorf("%w: the answer could not be checked: %v", ErrElicitation, err)
	}
	if len(problems) > 0 {
		lines := make([]string, len(problems))
		for i, p := range problems {
			lines[i] = p.Message
			if p.Path != "" {
				lines[i] = p.Path + ": " + p.Message
			}
		}
		return nil, fmt.Errorf("%w: the answer is not valid under the requested schema: %s", ErrElicitation, peerText(strings.Join(lines, "; "), maxPeerMessage))
	}
	if f.fallback {
		// The tool asked without a schema: it reads the line of text.
		return json.Marshal(content["answer"])
	}
	return b, nil
}
