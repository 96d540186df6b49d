package providers

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
)

// bedrockDialect is Bedrock's Converse: the toolConfig's "tools" as
// adapters/toolbedrock sends them. That adapter is a module of its own
// (the AWS SDK stays out of this one), so the definitions are rendered
// here from the same lowering (dialect.Bedrock), in the SDK's form: each
// tool a {"toolSpec": {"description", "inputSchema": {"json"}, "name"}},
// every object's keys sorted and <, > and & escaped, as the SDK's
// encoders write them.
// A test in that module holds the two to the same bytes.
var bedrockDialect = form{"bedrock", bedrockJSON, splitArray}

// errBedrock marks a schema Converse cannot take, as the adapter's does.
var errBedrock = adapt.Unsupported("tool schema cannot be expressed for Bedrock")

func bedrockJSON(reg *toolreg.Registry) (json.RawMessage, error) {
	var specs []any
	for _, t := range reg.Tools() {
		lowered, err := dialect.Bedrock(t.InputSchema())
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", errBedrock, t.Name(), err)
		}
		dec := json.NewDecoder(bytes.NewReader(lowered))
		dec.UseNumber() // numbers as written
		var schema any
		if err := dec.Decode(&schema); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
		}
		specs = append(specs, map[string]any{"toolSpec": map[string]any{
			"name": t.Name(), "description": t.Description(), "inputSchema": map[string]any{"json": schema},
		}})
	}
	return json.Marshal(specs) // escaping <, > and & as the SDK does
}
