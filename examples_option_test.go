package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type trip struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
}

func TestWithExamples(t *testing.T) {
	fn := func(context.Context, trip) (string, error) { return "", nil }
	tool, err := New("plan", "Plans a trip.", fn, WithExamples(trip{City: "Oslo"}, trip{City: "Lima", Days: 3}))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, ex := range tool.Examples() {
		got = append(got, string(ex))
	}
	if diff := cmp.Diff([]string{`{"city":"Oslo"}`, `{"city":"Lima","days":3}`}, got); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"refused by the schema", WithExamples(trip{City: "Rome", Days: 9}), "example 1 is refused by the tool's own schema: invalid arguments for tool \"plan\":\n- days: 9 is greater than the maximum 7"},
		{"another type", WithExamples(struct{ City string }{"Rome"}), "example 1 is a struct { City string }; the tool's arguments are a toolreg.trip"},
	}
	for _, tt := range tests {
		_, err := New("plan", "Plans a trip.", fn, tt.opt)
		if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}

	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)
	dyn := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	if _, err := NewDynamic("search", "Searches.", schema, dyn, WithExamples(json.RawMessage(`{"q":"lamps"}`))); err != nil {
		t.Errorf("a dynamic tool's example: %v", err)
	}
	if _, err := NewDynamic("search", "Searches.", schema, dyn, WithExamples(json.RawMessage(`{}`))); !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), "q: required field is missing") {
		t.Errorf("a dynamic tool's bad example: %v", err)
	}
}
