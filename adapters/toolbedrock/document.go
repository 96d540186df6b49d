package toolbedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	smithydocument "github.com/aws/smithy-go/document"
)

// The SDK sends a document by encoding a Go value with its own encoder,
// which writes a json.RawMessage as a list of bytes and a json.Number as a
// string. So JSON becomes plain Go values first: objects as maps, arrays
// as slices, and numbers as smithy document.Numbers, which it writes
// verbatim, so that 12345678901234567890 and 1.0 reach the wire as they
// were written.

// documentValue decodes JSON into the Go values a document is made of.
func documentValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not JSON: data after the value")
	}
	return numbers(v), nil
}

// numbers replaces every json.Number in v by a smithy document.Number.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return smithydocument.Number(v)
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

// documentJSON encodes a document as JSON: the input of a toolUse block,
// as the registry reads it. A missing input is the empty object.
func documentJSON(d document.Interface) json.RawMessage {
	if d == nil {
		return json.RawMessage("{}")
	}
	b, err := d.MarshalSmithyDocument()
	if err != nil {
		return json.RawMessage("unencodable input: " + err.Error())
	}
	return b
}

// isObject reports whether raw holds a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}
