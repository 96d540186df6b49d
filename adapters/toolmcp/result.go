package toolmcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// wrapKey is the property that holds a result whose schema root is not an
// object; FastMCP (Python) wraps the same way, under the same name.
const wrapKey = "result"

// output is how one tool's results reach MCP clients.
type output struct {
	schema json.RawMessage // the outputSchema to advertise; nil for text-only results
	wrap   bool            // structuredContent is {"result": value}
}

// outputShape decides the outputSchema of a tool from its OutputSchema:
// as it is when the root is exactly {"type":"object"}, wrapped when not
// (revisions before 2026-07-28 require an object root, and the server lists
// one set of tools to clients of every revision), left out when the tool has
// none or when wrapping could change its meaning.
func outputShape(schema json.RawMessage) output {
	if len(bytes.TrimSpace(schema)) == 0 {
		return output{}
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(schema, &root) == nil {
		var typ any
		json.Unmarshal(root["type"], &typ)
		if typ == "object" {
			return output{schema: schema}
		}
	} else {
		var b bool
		if json.Unmarshal(schema, &b) != nil {
			return output{} // neither an object nor a boolean: not a schema
		}
		root = nil // true or false: the whole schema moves under "result"
	}
	var tree any
	if json.Unmarshal(schema, &tree) != nil || !relocatable(tree) {
		return output{}
	}

	// The inner schema keeps every keyword but $defs, which moves to the
	// root so that its "#/$defs/..." references still resolve.
	var inner []byte
	var defs json.RawMessage
	if root == nil {
		inner = bytes.TrimSpace(schema)
	} else {
		defs = root["$defs"]
		inner = rewriteWithout(schema, "$defs")
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{"` + wrapKey + `":`)
	b.Write(inner)
	b.WriteString(`},"required":["` + wrapKey + `"],"additionalProperties":false`)
	if defs != nil {
		b.WriteString(`,"$defs":`)
		b.Write(defs)
	}
	b.WriteString("}")
	return output{schema: b.Bytes(), wrap: true}
}

// relocatable reports whether a schema means the same one level down: its
// references all point into #/$defs (which moves with it) and it declares
// no base URI or anchor that a reference could resolve against.
func relocatable(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if s, ok := sub.(string); ok {
				switch k {
				case "$ref", "$dynamicRef":
					if !strings.HasPrefix(s, "#/$defs/") {
						return false
					}
				case "$id", "$anchor", "$dynamicAnchor":
					return false
				}
			}
			if !relocatable(sub) {
				return false
			}
		}
	case []any:
		for _, sub := range v {
			if !relocatable(sub) {
				return false
			}
		}
	}
	return true
}

// rewriteWithout returns schema without the key drop, keeping the order of
// the other keys as they appear in schema (encoding/json would sort them).
func rewriteWithout(schema json.RawMessage, drop string) []byte {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.Token() // {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if dec.Decode(&val) != nil {
			break
		}
		if key == drop {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// result converts one Output of tool (its MCP name): its text as a text
// block (for a structured result, the JSON the model reads), then its
// media (see mediaContent), structuredContent when the tool advertises an
// output schema, and isError for every failure.
//
// A result the registry cut to its limit (toolreg.ResultCut) has lost its
// structured JSON, which cannot be cut and stay valid; but a tool with an
// output schema must send structuredContent valid under it with every
// result that is not an error (the MCP specification: "Servers MUST
// provide structured results that conform to this schema"), and clients
// that check it fail the call without one. So such a result sends the
// whole JSON as structuredContent, for the client's code, beside the cut
// text the client's model reads: the call stays a success, as it was.
func (o output) result(tool string, out toolreg.Output) *mcp.CallToolResult {
	if out.Structured == nil && out.Cut != nil && o.schema != nil {
		out.Structured = out.Cut.Structured
	}
	res := &mcp.CallToolResult{IsError: out.IsError}
	media := mediaContent(tool, out.Media)
	// An empty text block says nothing beside media; without them, it is
	// how a result says it is empty.
	if out.Text != "" || len(media) == 0 {
		res.Content = append(res.Content, &mcp.TextContent{Text: out.Text})
	}
	res.Content = append(res.Content, media...)
	if out.IsError || o.schema == nil || out.Structured == nil {
		return res
	}
	if o.wrap {
		res.StructuredContent = json.RawMessage(`{"` + wrapKey + `":` + string(out.Structured) + `}`)
	} else {
		res.StructuredContent = out.Structured
	}
	return res
}

// fromResult converts an imported tool's result to the Output the model
// reads: its text content, joined by newlines, with text resources under a
// line naming their URI and resource links as a line each; its images,
// audio and blob resources as Media, in order, which each provider's
// adapter sends in its own form; structuredContent as Structured; isError
// as an error Output whose text is the server's.
//
// A text resource stays text, not a file of Media: every provider's model
// reads text, while some take few files or none in tool results (Chat
// Completions takes PDFs only), and a JSON or code resource would reach
// them as a line saying it was left out.
//
// The server chooses the size of its result: media past maxMedia bytes are
// left out with a line each at the end of the text; the text and
// structuredContent are held by the registry, to the tool's result limit
// (see MaxResultText), as any tool's.
func fromResult(res *mcp.CallToolResult, maxMedia int) toolreg.Output {
	var out toolreg.Output
	parts := make([]string, 0, len(res.Content))
	var notes []string
	used := 0
	for _, c := range res.Content {
		if m, ok := contentMedia(c); ok {
			if used+len(m.Data) > maxMedia {
				notes = append(notes, adapt.LeftOut(m, mediaOver(used, maxMedia)))
				continue
			}
			used += len(m.Data)
			out.Media = append(out.Media, m)
			continue
		}
		parts = append(parts, contentText(c))
	}
	out.Text, out.IsError = strings.Join(parts, "\n"), res.IsError
	if res.IsError {
		if out.Text == "" {
			out.Text = "the tool failed without saying why"
		}
		out.Text = withNotes(out.Text, notes)
		return out
	}
	if res.StructuredContent != nil {
		if s, err := encode(res.StructuredContent); err == nil {
			out.Structured = s
			if out.Text == "" {
				// A server should send the JSON as text too; one that
				// does not still gives the model its result.
				out.Text = string(s)
			}
		}
	}
	out.Text = withNotes(out.Text, notes)
	return out
}

// mediaOver says why an item of media did not fit in a result that
// already carries used bytes of them, under limit.
func mediaOver(used, limit int) string {
	if used == 0 {
		return fmt.Sprintf("this result may carry up to %s of media", adapt.Size(limit))
	}
	return fmt.Sprintf("this result already carries %s of media, and may carry up to %s", adapt.Size(used), adapt.Size(limit))
}

func withNotes(text string, notes []string) string {
	if len(notes) == 0 {
		return text
	}
	if text == "" {
		return strings.Join(notes, "\n")
	}
	return text + "\n" + strings.Join(notes, "\n")
}

// contentText is what the model reads of a content block that is not
// Media (see contentMedia).
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ResourceLink:
		s := fmt.Sprintf("[resource link: %s <%s>", cmp.Or(c.Title, c.Name), c.URI)
		if c.MIMEType != "" {
			s += ", " + c.MIMEType
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[resource]"
		}
		return fmt.Sprintf("[resource <%s>]\n%s", c.Resource.URI, c.Resource.Text)
	default:
		return fmt.Sprintf("[content of type %T, not shown]", c)
	}
}
