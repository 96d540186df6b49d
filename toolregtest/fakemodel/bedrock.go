package fakemodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http"
	"strings"
)

// converse is Amazon Bedrock's Converse and ConverseStream, the stream
// framed as AWS event-stream messages. Point the AWS SDK's client at the
// server with package fakebedrock of the toolbedrock module.
type converse struct{}

func (converse) name() string { return "Bedrock Converse" }

func (converse) streams(r *http.Request, _ map[string]any) bool {
	return strings.HasSuffix(r.URL.Path, "/converse-stream")
}

func (converse) id(n, i int) string { return fmt.Sprintf("tooluse_%d_%d", n, i) }

func (converse) error(status int, message string) []byte {
	typ := map[int]string{400: "ValidationException", 403: "AccessDeniedException", 404: "ResourceNotFoundException",
		408: "ModelTimeoutException", 424: "ModelErrorException", 429: "ThrottlingException", 503: "ServiceUnavailableException"}[status]
	if typ == "" {
		typ = "InternalServerException"
	}
	b, _ := json.Marshal(map[string]any{"__type": typ, "message": message})
	return b
}

// stop is the stop reason, named as Anthropic names it.
func (converse) stop(a answer) string { return messages{}.stop(a) }

var converseUsage = map[string]any{"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}

func (d converse) answer(a answer) any {
	var content []any
	if a.Text != "" {
		content = append(content, map[string]any{"text": a.Text})
	}
	for _, c := range a.Calls {
		content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)}})
	}
	return map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": d.stop(a), "usage": converseUsage, "metrics": map[string]any{"latencyMs": 100}}
}

func (d converse) events(a answer) []event {
	events := []event{{"messageStart", map[string]any{"role": "assistant"}}}
	i := 0
	if a.Text != "" {
		for _, w := range words(a.Text) {
			events = append(events, event{"contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": w}}})
		}
		events = append(events, event{"contentBlockStop", map[string]any{"contentBlockIndex": i}})
		i++
	}
	for _, c := range a.Calls {
		events = append(events, event{"contentBlockStart", map[string]any{"contentBlockIndex": i,
			"start": map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name}}}})
		for _, p := range pieces(c.Args) {
			events = append(events, event{"contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": p}}}})
		}
		events = append(events, event{"contentBlockStop", map[string]any{"contentBlockIndex": i}})
		i++
	}
	return append(events, event{"messageStop", map[string]any{"stopReason": d.stop(a)}},
		event{"metadata", map[string]any{"usage": converseUsage, "metrics": map[string]any{"latencyMs": 100}}})
}

// frame writes events as AWS event-stream messages: a prelude (total and
// headers length, and its CRC-32), the headers, the JSON payload, and the
// message's CRC-32.
func (converse) frame(events []event) (contentType string, body []byte) {
	var out bytes.Buffer
	for _, e := range events {
		payload, _ := json.Marshal(e.data)
		var headers bytes.Buffer
		for _, h := range [][2]string{{":message-type", "event"}, {":event-type", e.name}, {":content-type", "application/json"}} {
			headers.WriteByte(byte(len(h[0])))
			headers.WriteString(h[0])
			headers.WriteByte(7) // a string
			binary.Write(&headers, binary.BigEndian, uint16(len(h[1])))
			headers.WriteString(h[1])
		}
		msg := binary.BigEndian.AppendUint32(nil, uint32(12+headers.Len()+len(payload)+4))
		msg = binary.BigEndian.AppendUint32(msg, uint32(headers.Len()))
		msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
		msg = append(append(msg, headers.Bytes()...), payload...)
		out.Write(binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg)))
	}
	return "application/vnd.amazon.eventstream", out.Bytes()
}

func (converse) tools(f map[string]any) []Tool {
	var out []Tool
	for _, t := range list(object(f["toolConfig"])["tools"]) {
		if spec := object(object(t)["toolSpec"]); spec != nil {
			out = append(out, Tool{Name: text(spec["name"]), Description: text(spec["description"]), Parameters: raw(object(spec["inputSchema"])["json"])})
		}
	}
	return out
}

func (converse) last(f map[string]any) []any { return messages{}.last(f) }

func (d converse) results(f map[string]any) []ToolResult {
	var out []ToolResult
	for _, m := range d.last(f) {
		for _, b := range list(object(m)["content"]) {
			r := object(object(b)["toolResult"])
			if r == nil {
				continue
			}
			var texts []string
			for _, c := range list(r["content"]) {
				c := object(c)
				if t, ok := c["text"].(string); ok {
					texts = append(texts, t)
				} else if j, ok := c["json"]; ok {
					texts = append(texts, string(raw(j)))
				}
			}
			out = append(out, ToolResult{ID: text(r["toolUseId"]), Text: strings.Join(texts, "\n"), IsError: r["status"] == "error"})
		}
	}
	return out
}

// converseMedia reads Bedrock's image and document blocks: a format and
// the bytes.
func converseMedia(p map[string]any) (Media, bool) {
	for _, kind := range []string{"image", "document", "video", "audio"} {
		b := object(p[kind])
		format := text(b["format"])
		if b == nil || format == "" {
			continue
		}
		typ := kind + "/" + format
		if kind == "document" {
			typ = map[string]string{"pdf": "application/pdf", "csv": "text/csv", "txt": "text/plain", "md": "text/markdown",
				"html": "text/html"}[format]
			if typ == "" {
				typ = "application/" + format
			}
		}
		m := Media{MIMEType: typ}
		src := object(b["source"])
		m.Data = decode(text(src["bytes"]))
		if s3 := object(src["s3Location"]); s3 != nil {
			m.URL = text(s3["uri"])
		}
		return m, true
	}
	return Media{}, false
}
