package toolopenai

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Namespace is a group of deferred tools that a Responses run declares
// together, as one "namespace" entry of the tools array: the model sees
// its name and description until tool_search loads the functions it needs
// from it. The API's guide recommends namespaces over single deferred
// functions, and fewer than ten functions in each.
type Namespace struct {
	// Name is how the model and the API call the group ("crm"); it
	// follows toolreg.ValidName.
	Name string
	// Description tells the model what the group's tools do, so that it
	// searches the group when it needs one of them.
	Description string
}

// NamespaceRule says which namespace, if any, a deferred tool belongs to.
// It must answer the same for a tool every time it is asked.
type NamespaceRule func(toolreg.AnyTool) (Namespace, bool)

// WithNamespaces groups the deferred tools of a Responses run that
// searches with the API's tool_search into namespaces, by rule: use it
// when many deferred tools come from a few sources (several MCP servers
// imported with a prefix each: NamespaceByPrefix; or tags:
// NamespaceByTag). A deferred tool the rule leaves out, and every tool
// not deferred, is declared on its own as before. It does nothing where
// the API's tool_search is not used: under WithClientToolSearch, and in a
// model made with Responses.Model (as tooltemporal does), which searches
// on the client; nor for a host that sets params.Tools itself.
//
// A function keeps its registry name inside its namespace, and the API
// sends its calls with the name and the namespace. A call is run only
// when the pair is one the request declared: a call naming a namespace
// with a function of another namespace or of none, or a namespaced
// function without its namespace, is refused as a call of a tool not
// offered. A step's restriction names the allowed namespaced functions
// in allowed_tools with their namespace ({"type":"function","name":...,
// "namespace":...}, the pair a call carries; the API's reference gives no
// form for it, so a model that ignores the member is still held by the
// loop's refusal). Forcing a namespaced tool (agent.ChoiceTool) fails
// the run with agent.ErrInvalidStep, since the API's tool_choice function
// has no namespace member: force only tools not grouped.
func WithNamespaces(rule NamespaceRule) Option {
	return Option{func(c *config) { c.namespaces = rule }}
}

// NamespaceByPrefix is a NamespaceRule that puts a tool in the namespace
// whose prefix its name begins with, as toolmcp.Prefix names the tools it
// imports ("github__create_issue" with the prefix "github__"). The keys
// of byPrefix are the prefixes; when several match, the longest wins.
func NamespaceByPrefix(byPrefix map[string]Namespace) NamespaceRule {
	return func(t toolreg.AnyTool) (Namespace, bool) {
		best, found := "", false
		for p := range byPrefix {
			if strings.HasPrefix(t.Name(), p) && (!found || len(p) > len(best)) {
				best, found = p, true
			}
		}
		return byPrefix[best], found
	}
}

// NamespaceByTag is a NamespaceRule that puts a tool in the namespace of
// the first of its tags (toolreg.WithTags) that byTag holds.
func NamespaceByTag(byTag map[string]Namespace) NamespaceRule {
	return func(t toolreg.AnyTool) (Namespace, bool) {
		tagged, ok := t.(interface{ Tags() []string })
		if !ok {
			return Namespace{}, false
		}
		for _, tag := range tagged.Tags() {
			if ns, ok := byTag[tag]; ok {
				return ns, true
			}
		}
		return Namespace{}, false
	}
}

// namespaceOf is the namespace a run declares t in: "" for a tool
// declared on its own. A run whose host set its own params.Tools declares
// nothing itself, so the rule does not apply: the host's array says where
// its functions are (hostNamespaces).
func (m *responsesModel) namespaceOf(t toolreg.AnyTool) (Namespace, bool) {
	if m.fixedTools || m.deferred == nil || m.a.namespaces == nil || !m.deferred(t) {
		return Namespace{}, false
	}
	return m.a.namespaces(t)
}

// declaredNamespace is the namespace the request declared the function
// name in: "" for none.
func (m *responsesModel) declaredNamespace(name string) string {
	if m.fixedTools {
		return m.hostNamespaces[name]
	}
	if t, ok := m.a.reg.Lookup(name); ok {
		if ns, ok := m.namespaceOf(t); ok {
			return ns.Name
		}
	}
	return ""
}

// hostNamespaces maps each function of the host's own tools array that
// sits in a namespace to the namespace's name.
func hostNamespaces(tools []responses.ToolUnionParam) map[string]string {
	byName := map[string]string{}
	for _, t := range tools {
		if t.OfNamespace == nil {
			continue
		}
		for _, fn := range t.OfNamespace.Tools {
			if fn.OfFunction != nil {
				byName[fn.OfFunction.Name] = t.OfNamespace.Name
			}
		}
	}
	return byName
}

// callName is the registry name of a call the model made of name in
// namespace: the one place that maps the API's pair back. A pair the
// request did not declare is given a name no registry tool has
// (namespace, a dot, name; dots are not allowed in tool names), so that
// the loop never runs it; RefuseCall tells the model why.
func (m *responsesModel) callName(name, namespace string) string {
	if namespace == m.declaredNamespace(name) {
		return name
	}
	if namespace == "" {
		namespace = "(none)"
	}
	return namespace + "." + name
}

// RefuseCall refuses a call callName gave a qualified name, the pair the
// request did not declare (adapt.CallRefuser): as a call of a tool not
// offered, telling the model which namespace the tool is in, or that it
// is in none, when the step offers the tool; not even that when the step
// hides it. A name of no tool is left to the loop, an unknown tool.
func (m *responsesModel) RefuseCall(step *agent.Step, c toolreg.ToolCall) (toolreg.Output, bool) {
	namespace, name, qualified := strings.Cut(c.Name, ".")
	if !qualified {
		return toolreg.Output{}, false
	}
	if _, ok := m.a.reg.Lookup(name); !ok {
		return toolreg.Output{}, false
	}
	err := fmt.Errorf("%w: step %d: tool %q called in namespace %q", agent.ErrNotOffered, step.Number, name, namespace)
	var text string
	switch declared := m.declaredNamespace(name); {
	case !step.Allows(name):
		text = fmt.Sprintf("tool %q is not available at this point in namespace %q", name, namespace)
	case declared == "":
		text = fmt.Sprintf("tool %q is in no namespace: call it by its name alone, without namespace %q", name, namespace)
	case namespace == "(none)":
		text = fmt.Sprintf("tool %q is in namespace %q: call it with that namespace", name, declared)
	default:
		text = fmt.Sprintf("tool %q is in namespace %q, not %q: call it with namespace %q", name, declared, namespace, declared)
	}
	return toolreg.Output{Text: text, IsError: true, Err: err}, true
}

// grouped is params with the namespaced tools moved into their
// namespaces, each namespace where its first tool was, the functions in
// the registry's order.
func (m *responsesModel) grouped(tools []toolreg.AnyTool, params []responses.ToolUnionParam) ([]responses.ToolUnionParam, error) {
	out := make([]responses.ToolUnionParam, 0, len(params))
	at := map[string]int{} // a namespace's place in out
	for i, t := range tools {
		ns, ok := m.namespaceOf(t)
		if !ok {
			out = append(out, params[i])
			continue
		}
		if err := toolreg.ValidName(ns.Name); err != nil {
			return nil, fmt.Errorf("openai: the namespace of tool %q: %w", t.Name(), err)
		}
		j, seen := at[ns.Name]
		if !seen {
			j, at[ns.Name] = len(out), len(out)
			out = append(out, responses.ToolUnionParam{OfNamespace: &responses.NamespaceToolParam{Name: ns.Name, Description: ns.Description}})
		}
		group := out[j].OfNamespace
		if group.Description != ns.Description {
			return nil, fmt.Errorf("openai: namespace %q has two descriptions, %q and %q (from tool %q): a NamespaceRule must give one", ns.Name, group.Description, ns.Description, t.Name())
		}
		fn := params[i].OfFunction
		group.Tools = append(group.Tools, responses.NamespaceToolToolUnionParam{OfFunction: &responses.NamespaceToolToolFunctionParam{
			Name:         fn.Name,
			Description:  fn.Description,
			Parameters:   fn.Parameters,
			OutputSchema: fn.OutputSchema,
			Strict:       fn.Strict,
			DeferLoading: openai.Bool(true),
		}})
	}
	return out, nil
}
