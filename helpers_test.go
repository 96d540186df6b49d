package toolreg

import (
	"bytes"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg/internal/args"
)

// compileSchema compiles a schema as the reference validator does.
var compileSchema = args.CompileSchema

// parseInstance reads JSON as the validator's own reader does.
func parseInstance(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
