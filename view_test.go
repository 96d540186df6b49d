package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func tagged(name string, tags ...string) *Tool[struct{}, string] {
	return MustNew(name, "A tagged tool.", func(context.Context, struct{}) (string, error) { return name, nil }, WithTags(tags...))
}

func TestSelectIsAViewThatFollowsTheRegistry(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(tagged("read_a", "read"), tagged("write_a", "write"), echoTool("untagged"))
	reads := r.Select(Tagged("read"))
	var added []string
	reads.OnAdd(func(ts []AnyTool) { added = append(added, names(ts)...) })

	if diff := cmp.Diff([]string{"read_a"}, names(reads.Tools())); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	r.MustAdd(tagged("read_b", "read", "write"), tagged("write_b", "write"))
	if diff := cmp.Diff([]string{"read_a", "read_b"}, names(reads.Tools())); diff != "" {
		t.Errorf("view after Add (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_b"}, added); diff != "" {
		t.Errorf("OnAdd of the view (-want +got):\n%s", diff)
	}
	if _, ok := reads.Lookup("write_a"); ok || reads.Len() != 2 {
		t.Errorf("Lookup of a tool outside the view, or Len %d", reads.Len())
	}
	if out := reads.Call(context.Background(), "write_a", nil); !errors.Is(out.Err, ErrUnknownTool) || out.Text != `there is no tool named "write_a"; available tools: read_a, read_b` {
		t.Errorf("call outside the view: %+v", out)
	}
	outs := reads.CallAll(t.Context(), []ToolCall{{Name: "read_a"}, {Name: "read_b"}})
	if outs[0].Text != "read_a" || outs[1].Text != "read_b" {
		t.Errorf("CallAll through the view: %+v", outs)
	}
	if err := reads.Add(tagged("read_c", "read")); !errors.Is(err, ErrInvalidDeclaration) {
		t.Errorf("Add on a view: %v", err)
	}
	both := reads.Select(Tagged("write"))
	if diff := cmp.Diff([]string{"read_b"}, names(both.Tools())); diff != "" {
		t.Errorf("view of a view (-want +got):\n%s", diff)
	}
}

func TestViewsShareMiddleware(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(tagged("read_a", "read"))
	var seen []string
	r.Use(func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, c ToolCall) Output {
			seen = append(seen, c.Name)
			return next.HandleCall(ctx, c)
		})
	})
	r.Select(Tagged("read")).Call(context.Background(), "read_a", nil)
	if diff := cmp.Diff([]string{"read_a"}, seen); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNeedsApproval(t *testing.T) {
	pay := MustNew("pay", "Pays an invoice.", func(context.Context, struct{}) (string, error) { return "", nil }, WithApproval())
	r := NewRegistry(WithApprovalPolicy(func(c ToolCall) bool { return string(c.Arguments) == `{"big":true}` }))
	r.MustAdd(pay, echoTool("echo"))
	tests := []struct {
		call ToolCall
		want bool
	}{
		{ToolCall{Name: "pay"}, true},
		{ToolCall{Name: "echo", Arguments: json.RawMessage(`{"s":"x"}`)}, false},
		{ToolCall{Name: "echo", Arguments: json.RawMessage(`{"big":true}`)}, true},
		{ToolCall{Name: "nope", Arguments: json.RawMessage(`{"big":true}`)}, false},
	}
	for _, tt := range tests {
		if got := r.NeedsApproval(context.Background(), tt.call); got != tt.want {
			t.Errorf("NeedsApproval(%v) = %v", tt.call, got)
		}
		if got := r.Select(func(AnyTool) bool { return true }).NeedsApproval(context.Background(), tt.call); got != tt.want {
			t.Errorf("through a view, NeedsApproval(%v) = %v", tt.call, got)
		}
	}
}
