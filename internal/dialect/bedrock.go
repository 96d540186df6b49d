package dialect

import "encoding/json"

// bedrock is what Bedrock's Converse API takes in a toolSpec's inputSchema
// for every model behind it (bedrockRules in bedrock_test.go restates it):
// plain draft 2020-12 as Compact writes it, less the structure some of
// those models refuse.
var bedrock = &rules{
	name: "Bedrock",
	keywords: keywords(
		concat(structural, []string{"format", "pattern", "minimum", "maximum", "exclusiveMinimum",
			"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
			"minProperties", "maxProperties", "contentEncoding", "contentMediaType", "dependentRequired",
			"prefixItems", "default", "examples", "deprecated", "readOnly", "writeOnly"}),
		nil,
		applicators,
	),
	minItems: -1,
	enum:     func(*value) bool { return true },
	inline:   true,
	anyOK:    true,
	toAnyOf:  true,
}

// Bedrock lowers a canonical schema for ToolSpecification.inputSchema of
// Bedrock's Converse API, which hands it to models of several families.
// It is Compact, but for what Converse or the models behind it refuse:
//
//   - the root must be a plain object schema: Converse checks its type,
//     and Claude models refuse anyOf, oneOf and allOf there;
//   - every $ref is inlined and $defs dropped, so a recursive type is
//     refused;
//   - oneOf becomes anyOf (the branches of a canonical oneOf never
//     overlap, so the values accepted are the same) and a one-schema allOf
//     is merged into its parent.
//
// It refuses, with an *Error naming the property: recursive types, allOf
// of several schemas, and the applicators no dialect here lowers (not,
// if/then/else, patternProperties and the like), whose subschemas could
// hold a $ref left pointing at nothing. The canonical schema of a Go type
// never has them; a dynamic tool's hand-written schema may.
func Bedrock(schema json.RawMessage) (json.RawMessage, error) {
	out, err := lower(schema, bedrock)
	if err != nil {
		return nil, err
	}
	return out.Encode(), nil
}
