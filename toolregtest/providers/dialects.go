package providers

import (
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
)

// A form is one dialect in which a tool definition reaches a model: the
// wire JSON of one adapter function, with one set of options.
type form struct {
	name string
	// emit returns the registry's definitions as the adapter sends them
	// (the JSON array of a request's "tools").
	emit func(*toolreg.Registry) (json.RawMessage, error)
	// split turns emit's array into one definition per tool.
	split func(json.RawMessage) ([]json.RawMessage, error)
}

// dialects lists every form the module emits, in the order a snapshot
// shows them. MCP is missing: adapters/toolmcp has no tools/list function
// yet; Sizes measures it by serving the registry (mcpDialect).
var dialects = []form{
	{"canonical", canonicalJSON, splitArray},
	{"openai chat", func(r *toolreg.Registry) (json.RawMessage, error) { return toolopenai.NewChat(r).ToolsJSON() }, splitArray},
	{"openai chat strict", func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolopenai.NewChat(r, toolopenai.WithStrict()).ToolsJSON()
	}, splitArray},
	{"openai responses", func(r *toolreg.Registry) (json.RawMessage, error) { return toolopenai.NewResponses(r).ToolsJSON() }, splitArray},
	{"anthropic", func(r *toolreg.Registry) (json.RawMessage, error) { return toolanthropic.New(r).ToolsJSON() }, splitArray},
	{"anthropic strict", func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolanthropic.New(r, toolanthropic.WithStrict()).ToolsJSON()
	}, splitArray},
	{"gemini", func(r *toolreg.Registry) (json.RawMessage, error) { return toolgemini.New(r).ToolsJSON() }, splitGemini},
	{"gemini legacy", func(r *toolreg.Registry) (json.RawMessage, error) {
		return toolgemini.New(r, toolgemini.WithLegacySchema()).ToolsJSON()
	}, splitGemini},
}

func dialectNamed(name string) form {
	for _, d := range dialects {
		if d.name == name {
			return d
		}
	}
	panic("providers: no dialect " + name)
}

// canonical is a tool as toolreg holds it, before any adapter lowers it.
type canonical struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

func canonicalJSON(reg *toolreg.Registry) (json.RawMessage, error) {
	tools := reg.Tools()
	out := make([]canonical, len(tools))
	for i, t := range tools {
		out[i] = canonical{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema(), OutputSchema: t.OutputSchema()}
		if tt, ok := t.(interface{ Title() string }); ok {
			out[i].Title = tt.Title()
		}
	}
	return json.Marshal(out)
}

func splitArray(b json.RawMessage) ([]json.RawMessage, error) {
	var defs []json.RawMessage
	if err := json.Unmarshal(b, &defs); err != nil {
		return nil, fmt.Errorf("not a JSON array of definitions: %w", err)
	}
	return defs, nil
}

// splitGemini unwraps [{"functionDeclarations":[...]}].
func splitGemini(b json.RawMessage) ([]json.RawMessage, error) {
	var tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		return nil, fmt.Errorf("not a JSON array of Gemini tools: %w", err)
	}
	var defs []json.RawMessage
	for _, t := range tools {
		defs = append(defs, t.FunctionDeclarations...)
	}
	return defs, nil
}

// definition is one tool in one dialect: its JSON, or why the dialect
// refuses it.
type definition struct {
	json json.RawMessage
	err  error
}

// define emits tool alone in dialect d. Adapters refuse a whole request
// when one tool fails, so each tool gets a registry of its own: a refusal
// then belongs to the tool that caused it.
func define(d form, tool toolreg.AnyTool) definition {
	reg := toolreg.NewRegistry()
	if err := reg.Add(tool); err != nil {
		return definition{err: err}
	}
	b, err := d.emit(reg)
	if err != nil {
		return definition{err: err}
	}
	defs, err := d.split(b)
	if err != nil {
		return definition{err: err}
	}
	if len(defs) != 1 {
		return definition{err: fmt.Errorf("the adapter emitted %d definitions for one tool", len(defs))}
	}
	return definition{json: defs[0]}
}

// indent lays JSON out one member per line, keeping the order of members
// (property order is part of what a model sees) and writing strings in
// their shortest form, so that "<" reads as "<", not "\u003c".
func indent(b json.RawMessage) (string, error) {
	v := jsontext.Value(append([]byte(nil), b...))
	if err := v.Indent(jsontext.PreserveRawStrings(false), jsontext.WithIndent("  ")); err != nil {
		return "", err
	}
	return string(v), nil
}
