package mcp

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// Option configures AddTools. Options name tools by their registry name;
// an option for a tool the registry does not hold yet applies once it is
// added.
type Option struct{ set func(*config) }

type config struct {
	hints  map[string][]Hint
	rename map[string]string // registry name → MCP name
	errs   []error
}

// Hint sets one of the annotations of an MCP tool. Clients use them to
// decide, for example, whether to ask the user before a call; they are
// hints, not guarantees. A hint left unset keeps the protocol's default,
// which is always the cautious one: not read-only, destructive, not
// idempotent, open world.
type Hint func(*mcp.ToolAnnotations)

// ReadOnly says whether the tool leaves its environment unchanged
// (readOnlyHint).
func ReadOnly(v bool) Hint { return func(a *mcp.ToolAnnotations) { a.ReadOnlyHint = v } }

// Destructive says whether a tool that changes its environment may delete or
// overwrite (destructiveHint); false means it only adds.
func Destructive(v bool) Hint { return func(a *mcp.ToolAnnotations) { a.DestructiveHint = &v } }

// Idempotent says whether calling the tool again with the same arguments
// has no further effect (idempotentHint).
func Idempotent(v bool) Hint { return func(a *mcp.ToolAnnotations) { a.IdempotentHint = v } }

// OpenWorld says whether the tool reaches outside a closed domain, such as
// the web (openWorldHint); a calculator is a closed world.
func OpenWorld(v bool) Hint { return func(a *mcp.ToolAnnotations) { a.OpenWorldHint = &v } }

// Annotate sets annotations of the named tool. Several Annotate options
// for one tool add up; the last value of a hint wins.
func Annotate(tool string, hints ...Hint) Option {
	return Option{func(c *config) {
		if c.hints == nil {
			c.hints = map[string][]Hint{}
		}
		c.hints[tool] = append(c.hints[tool], hints...)
	}}
}

// Rename serves the named tool under mcpName. Use it for the names of MCP's
// wider rule, such as "files.read", which toolreg.ValidName refuses because
// OpenAI, Anthropic and Bedrock do: declare the tool as "files_read", use
// it under that name with every provider, and serve it to MCP clients as
// "files.read". An MCP name holds 1 to 128 ASCII letters, digits, '_', '-'
// and '.' (SEP-986); AddTools refuses an mcpName that breaks the rule
// (toolreg.ErrInvalidName), or one given to two tools. A renamed tool is no
// longer served under its registry name.
func Rename(tool, mcpName string) Option {
	return Option{func(c *config) {
		if err := validName(mcpName); err != nil {
			c.errs = append(c.errs, fmt.Errorf("mcp: Rename(%q): %w", tool, err))
			return
		}
		if c.rename == nil {
			c.rename = map[string]string{}
		}
		c.rename[tool] = mcpName
	}}
}

func (c *config) check() error {
	errs := c.errs
	by := map[string]string{}
	for _, tool := range slices.Sorted(maps.Keys(c.rename)) {
		name := c.rename[tool]
		if prev, dup := by[name]; dup {
			errs = append(errs, fmt.Errorf("mcp: %w: Rename gives tools %q and %q the same name %q", toolreg.ErrDuplicateTool, prev, tool, name))
		}
		by[name] = tool
	}
	return errors.Join(errs...)
}

func (c *config) mcpName(tool string) string {
	if name, ok := c.rename[tool]; ok {
		return name
	}
	return tool
}

// annotations returns a fresh value per tool (the SDK keeps the pointer),
// nil when the tool has no hints.
func (c *config) annotations(tool string) *mcp.ToolAnnotations {
	hints := c.hints[tool]
	if len(hints) == 0 {
		return nil
	}
	a := &mcp.ToolAnnotations{}
	for _, h := range hints {
		h(a)
	}
	return a
}
