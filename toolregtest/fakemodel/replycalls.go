package fakemodel

import (
	"encoding/json"
	"strings"
)

// replyCalls are the tool calls of a recorded answer in d's wire format,
// whole or streamed, so that Calls reads a replayed run as a scripted one.
func replyCalls(d dialect, p recordedResponse) []ToolCall {
	var datas []map[string]any
	if p.Events == nil {
		var v map[string]any
		json.Unmarshal(p.Body, &v)
		datas = append(datas, v)
	}
	for _, e := range p.Events {
		var v map[string]any
		json.Unmarshal(e.Data, &v)
		if v != nil {
			if e.Event != "" && v["type"] == nil {
				v["type"] = e.Event // Bedrock names its events only in the frame
			}
			datas = append(datas, v)
		}
	}
	var b callBuilder
	for _, v := range datas {
		switch d.(type) {
		case chat:
			for _, c := range list(object(object(first(v["choices"]))["message"])["tool_calls"]) {
				f := object(object(c)["function"])
				b.whole(text(object(c)["id"]), text(f["name"]), text(f["arguments"]))
			}
			for _, c := range list(object(object(first(v["choices"]))["delta"])["tool_calls"]) {
				c := object(c)
				f := object(c["function"])
				b.part(key(c["index"]), text(c["id"]), text(f["name"]), text(f["arguments"]))
			}
		case responsesAPI:
			items := list(v["output"])
			if v["type"] == "response.output_item.done" {
				items = []any{v["item"]}
			}
			for _, it := range items {
				if it := object(it); it["type"] == "function_call" {
					b.whole(text(it["call_id"]), text(it["name"]), text(it["arguments"]))
				}
			}
		case messages:
			if v["type"] == "message" {
				for _, c := range list(v["content"]) {
					if c := object(c); c["type"] == "tool_use" {
						b.whole(text(c["id"]), text(c["name"]), string(raw(c["input"])))
					}
				}
			}
			if c := object(v["content_block"]); v["type"] == "content_block_start" && c["type"] == "tool_use" {
				b.part(key(v["index"]), text(c["id"]), text(c["name"]), "")
			}
			if dl := object(v["delta"]); v["type"] == "content_block_delta" && dl["type"] == "input_json_delta" {
				b.part(key(v["index"]), "", "", text(dl["partial_json"]))
			}
		case gemini:
			for _, p := range list(object(object(first(v["candidates"]))["content"])["parts"]) {
				if f := object(object(p)["functionCall"]); f != nil {
					b.whole(text(f["id"]), text(f["name"]), string(raw(f["args"])))
				}
			}
		case converse:
			for _, c := range list(object(object(object(v["output"])["message"]))["content"]) {
				if u := object(object(c)["toolUse"]); u != nil {
					b.whole(text(u["toolUseId"]), text(u["name"]), string(raw(u["input"])))
				}
			}
			if u := object(object(v["start"])["toolUse"]); v["type"] == "contentBlockStart" && u != nil {
				b.part(key(v["contentBlockIndex"]), text(u["toolUseId"]), text(u["name"]), "")
			}
			if u := object(object(v["delta"])["toolUse"]); v["type"] == "contentBlockDelta" && u != nil {
				b.part(key(v["contentBlockIndex"]), "", "", text(u["input"]))
			}
		}
	}
	return b.calls()
}

// callBuilder puts calls together, whole or from a stream's parts.
type callBuilder struct {
	out   []ToolCall
	parts map[string]int // a streamed call's index → its place in out
}

func (b *callBuilder) whole(id, name, args string) {
	b.out = append(b.out, ToolCall{ID: id, Name: name, Args: args})
}

func (b *callBuilder) part(index, id, name, args string) {
	i, ok := b.parts[index]
	if !ok {
		if b.parts == nil {
			b.parts = map[string]int{}
		}
		i = len(b.out)
		b.parts[index] = i
		b.out = append(b.out, ToolCall{})
	}
	c := &b.out[i]
	if id != "" {
		c.ID = id
	}
	if name != "" {
		c.Name = name
	}
	c.Args += args
}

func (b *callBuilder) calls() []ToolCall {
	for i, c := range b.out {
		if strings.TrimSpace(c.Args) == "" {
			b.out[i].Args = "{}"
		}
	}
	return b.out
}

func first(v any) any {
	if l := list(v); len(l) > 0 {
		return l[0]
	}
	return nil
}

// key is a JSON number as a map key.
func key(v any) string { return string(raw(v)) }
