package mcp

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolreg/toolreg"
)

type node struct {
	Name     string  `json:"name"`
	Children []*node `json:"children,omitempty"`
}
type rargs struct {
	Name     string   `json:"name"`
	Children []*rargs `json:"children,omitempty"`
}
type pt struct{ X int `json:"x"` }

func TestProbe(t *testing.T) {
	p := func(tl toolreg.AnyTool) { fmt.Printf("%s\n  in=%s\n  out=%s\n", tl.Name(), tl.InputSchema(), tl.OutputSchema()) }
	p(toolreg.MustNew("a", "d", func(context.Context, struct{}) ([]string, error) { return nil, nil }))
	p(toolreg.MustNew("b", "d", func(context.Context, struct{}) (int, error) { return 0, nil }))
	p(toolreg.MustNew("c", "d", func(context.Context, struct{}) (*pt, error) { return nil, nil }))
	p(toolreg.MustNew("d", "d", func(context.Context, rargs) (node, error) { return node{}, nil }))
	p(toolreg.MustNew("e", "d", func(context.Context, struct{}) ([]node, error) { return nil, nil }))
	p(toolreg.MustNew("f", "d", func(context.Context, struct{}) (map[string]int, error) { return nil, nil }))
	p(toolreg.MustNew("g", "d", func(context.Context, struct{}) (any, error) { return nil, nil }))
	o := toolreg.MustNew("c", "d", func(context.Context, struct{}) (*pt, error) { return nil, nil }).Invoke(context.Background(), nil)
	fmt.Printf("%q %s\n", o.Text, o.Structured)
}
