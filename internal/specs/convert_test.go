package specs

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFromOpenAPI shows each conversion on the smallest document that
// needs it.
func TestFromOpenAPI(t *testing.T) {
	doc := decode(t, `{"openapi":"3.1.0","components":{"schemas":{
		"Req": {"allOf":[{"$ref":"#/components/schemas/Base"},{"type":"object","properties":{
			"n": {"type":"integer","nullable":true,"minimum":1,"exclusiveMinimum":true,"description":"d","x-oaiMeta":{}},
			"e": {"type":"string","enum":["a","b"],"nullable":true},
			"r": {"$ref":"#/components/schemas/Item","nullable":true},
			"description": {"type":"string","title":"a property named like a keyword stays"},
			"free": {"type":"object","properties":{}},
			"items": {"type":"array","items":{"oneOf":[{"$ref":"#/components/schemas/Item"},{"type":"string"}],"discriminator":{"propertyName":"type"}}}
		}}]},
		"Base": {"type":"object","properties":{"model":{"type":"string"}},"required":["model"]},
		"Item": {"$recursiveAnchor":true,"type":"object","properties":{"type":{"type":"string","enum":["item"],"x-stainless-const":true},"sub":{"$recursiveRef":"#"}}},
		"Unused": {"type":"object"}
	}}}`)
	got, err := FromOpenAPI(doc, []string{"Req"}, Source{Repo: "example.com/spec", Path: "openapi.json", Commit: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `{
		"Req": {"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{
			"n": {"type":["integer","null"],"exclusiveMinimum":1},
			"e": {"type":["string","null"],"enum":["a","b",null]},
			"r": {"anyOf":[{"$ref":"#/$defs/Item"},{"type":"null"}]},
			"description": {"type":"string"},
			"free": {"type":"object"},
			"items": {"type":"array","items":{"anyOf":[{"$ref":"#/$defs/Item"},{"type":"string"}]}}
		}}],"unevaluatedProperties":false},
		"Base": {"type":"object","properties":{"model":{"type":"string"}},"required":["model"]},
		"Item": {"type":"object","properties":{"type":{"type":"string","enum":["item"]},"sub":{"$ref":"#/$defs/Item"}},"unevaluatedProperties":false}
	}`)
	if diff := cmp.Diff(want, got.Defs); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Source{Repo: "example.com/spec", Path: "openapi.json", Commit: "abc", Version: "openapi 3.1.0"}, got.Source); diff != "" {
		t.Errorf("source (-want +got):\n%s", diff)
	}
	if _, err := FromOpenAPI(doc, []string{"Missing"}, Source{}); !errors.Is(err, ErrUnknownSchema) {
		t.Errorf("a missing root: got %v, want ErrUnknownSchema", err)
	}
}

func TestFromDiscovery(t *testing.T) {
	doc := decode(t, `{"name":"api","version":"v1","revision":"20260101","schemas":{
		"Req": {"id":"Req","type":"object","description":"d","properties":{
			"parts": {"type":"array","items":{"$ref":"Part"}},
			"count": {"type":"string","format":"int64"},
			"mode": {"type":"string","enum":["A","B"],"enumDescriptions":["a","b"]},
			"args": {"type":"object","additionalProperties":{"type":"any"}}
		}},
		"Part": {"id":"Part","type":"object","properties":{"text":{"type":"string","readOnly":true}}}
	}}`)
	got, err := FromDiscovery(doc, []string{"Req"}, Source{Repo: "example.com/api"})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `{
		"Req": {"type":["object","null"],"unevaluatedProperties":false,"properties":{
			"parts": {"type":["array","null"],"items":{"$ref":"#/$defs/Part"}},
			"count": {"type":["string","integer","null"]},
			"mode": {"type":["string","null"],"enum":["A","B",null]},
			"args": {"type":["object","null"],"additionalProperties":{}}
		}},
		"Part": {"type":["object","null"],"unevaluatedProperties":false,"properties":{"text":{"type":["string","null"]}}}
	}`)
	if diff := cmp.Diff(want, got.Defs); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
	if got.Source.Revision != "20260101" || got.Source.Version != "api v1" {
		t.Errorf("source = %+v, want the document's revision and version", got.Source)
	}
}
