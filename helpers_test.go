package toolreg

import (
	"bytes"
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg/internal/args"
)

// compileSchema compiles a schema as the reference validator does, with
// no bound on its size.
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	return args.CompileSchema(schema, 0)
}

// parseInstance reads JSON as the validator's own reader does.
func parseInstance(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
