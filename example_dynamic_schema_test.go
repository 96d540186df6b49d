package toolreg_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
)

// WithMaxSchemaNodes bounds what a schema from outside expands to, each
// $ref counted as what it refers to: here a definition used twice by a
// definition used twice is 13 subschemas, past a bound of 10.
func ExampleWithMaxSchemaNodes() {
	schema := json.RawMessage(`{"type":"object","properties":{"from":{"$ref":"#/$defs/span"},"to":{"$ref":"#/$defs/span"}},
		"$defs":{"span":{"type":"object","properties":{"start":{"$ref":"#/$defs/t"},"end":{"$ref":"#/$defs/t"}}},"t":{"type":"string"}}}`)
	fn := func(context.Context, json.RawMessage) (string, error) { return "ok", nil }
	_, err := toolreg.NewDynamic("trip", "Plans a trip.", schema, fn, toolreg.WithMaxSchemaNodes(10))
	fmt.Println(err)
	_, err = toolreg.NewDynamic("trip", "Plans a trip.", schema, fn)
	fmt.Println(err)
	// Output:
	// invalid tool declaration: tool "trip": the schema expands to more than 10 subschemas when its references are followed, the bound, and the validator walks them on every call: simplify it (a definition used many times is cheap, a reference that doubles at each level is not), or raise the bound with toolreg.WithMaxSchemaNodes
	// <nil>
}

// A schema from outside is a closed document: a reference to anything
// outside it, a file or a URL, is refused, and nothing is loaded.
func ExampleNewDynamic_closed() {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"$ref":"file:///etc/schemas/city.json"}}}`)
	_, err := toolreg.NewDynamic("weather", "Current weather for a city.", schema,
		func(context.Context, json.RawMessage) (string, error) { return "", nil })
	fmt.Println(err)
	// Output:
	// invalid tool declaration: tool "weather": the schema does not compile as draft 2020-12: the schema refers to a document outside itself ("file:///etc/schemas/city.json"): nothing outside the schema is loaded; put the definition under "$defs" and refer to it as "#/$defs/name"
}
