package toolmcp

import (
	"cmp"
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
	return errors.Join(append(c.errs, sameName("Rename", c.rename)...)...)
}

// sameName reports the tools that option (Rename, ImportAs) gives one
// name: names maps each tool to its name.
func sameName(option string, names map[string]string) []error {
	var errs []error
	by := map[string]string{}
	for _, tool := range slices.Sorted(maps.Keys(names)) {
		name := names[tool]
		if prev, dup := by[name]; dup {
			errs = append(errs, fmt.Errorf("mcp: %w: %s gives tools %q and %q the same name %q", toolreg.ErrDuplicateTool, option, prev, tool, name))
		}
		by[name] = tool
	}
	return errs
}

func (c *config) mcpName(tool string) string {
	if name, ok := c.rename[tool]; ok {
		return name
	}
	return tool
}

// annotations returns a fresh value per tool (the SDK keeps the pointer):
// base (an imported tool's, as its server gave them) with the tool's hints
// applied; nil when there are neither.
func (c *config) annotations(tool string, base *mcp.ToolAnnotations) *mcp.ToolAnnotations {
	hints := c.hints[tool]
	if len(hints) == 0 && base == nil {
		return nil
	}
	a := &mcp.ToolAnnotations{}
	if base != nil {
		*a = *base
	}
	for _, h := range hints {
		h(a)
	}
	return a
}

// ImportOption configures an Importer. Options name tools by their MCP
// name, as the server lists them.
type ImportOption struct{ set func(*importConfig) }

type importConfig struct {
	prefix   string
	as       map[string]string // MCP name → registry name
	keep     func(*mcp.Tool) bool
	toolOpts func(*mcp.Tool) []toolreg.Option
	deferred bool
	onChange func(Change, error)
	bounds   bounds
	errs     []error
}

// bounds are what the importer takes from its server; 0 means the default.
type bounds struct {
	pages, tools int // per listing
	text, media  int // per result, in bytes; text 0 for the registry's limit
}

// withDefaults is b with each bound not set at its default.
func (b bounds) withDefaults() bounds {
	b.pages = cmp.Or(b.pages, DefaultMaxListPages)
	b.tools = cmp.Or(b.tools, DefaultMaxTools)
	b.media = cmp.Or(b.media, DefaultMaxResultMedia)
	return b
}

// The bounds an Importer keeps to by default. A server can lie, so each
// listing and each result is bounded: a server that pages forever, lists
// tools without end or answers a call with a flood is refused or cut
// before it fills the process or the model's context.
const (
	// DefaultMaxListPages bounds the pages of one listing of a server's
	// tools (MaxListPages). The go-sdk serves 1,000 tools a page, so a
	// real server needs one page or a few; 100 leaves room for a server
	// that pages in tens.
	DefaultMaxListPages = 100
	// DefaultMaxTools bounds the tools one listing may hold (MaxTools),
	// those ImportOnly leaves out included. Providers take at most a few
	// hundred tools in a request (OpenAI 128), and a model chooses well
	// among far fewer.
	DefaultMaxTools = 1000
	// DefaultMaxResultText bounds the text of one result the model reads,
	// in bytes, unless MaxResultText or the registry
	// (toolreg.WithDefaultMaxResultBytes) says otherwise: the registry's
	// default limit, toolreg.DefaultMaxResultBytes.
	DefaultMaxResultText = toolreg.DefaultMaxResultBytes
	// DefaultMaxResultMedia bounds the images, audio and files of one
	// result (MaxResultMedia), in bytes: the bound AddTools serves a result
	// with, so that a result imported fits when it is served again.
	DefaultMaxResultMedia = 10 * 1000 * 1000 // maxResultBytes
)

// Prefix puts prefix before the registry name of every imported tool, as
// in "github__create_issue": use it to tell apart the tools of several
// servers in one registry, and to keep them from colliding with each
// other's names or with the registry's own. ImportAs names are taken as
// they are, without the prefix.
func Prefix(prefix string) ImportOption {
	return ImportOption{func(c *importConfig) {
		if err := checkPrefix(prefix); err != nil {
			c.errs = append(c.errs, fmt.Errorf("mcp: %w", err))
			return
		}
		c.prefix = prefix
	}}
}

// Deferred declares every imported tool toolreg.WithDeferred: a run of
// package agent sends their definitions only once the model has found them
// with its tool search, so that the tools of a large server cost nothing
// in requests that do not need them. With Prefix, the prefix is a word of
// each name the search matches ("github" of "github__create_issue").
func Deferred() ImportOption {
	return ImportOption{func(c *importConfig) { c.deferred = true }}
}

// ImportAs imports the server's tool mcpName under name, which must follow
// toolreg.ValidName: for a tool whose mapped name would be unclear, too long
// or taken. The prefix does not apply to it.
func ImportAs(mcpName, name string) ImportOption {
	return ImportOption{func(c *importConfig) {
		if err := toolreg.ValidName(name); err != nil {
			c.errs = append(c.errs, fmt.Errorf("mcp: ImportAs(%q): %w", mcpName, err))
			return
		}
		if c.as == nil {
			c.as = map[string]string{}
		}
		c.as[mcpName] = name
	}}
}

// ImportOnly imports just the tools keep accepts, now and when the server's
// list changes; the others are left out without an error. Use it to give a
// model a part of a large server, or to leave out a tool it should never
// call.
func ImportOnly(keep func(tool *mcp.Tool) bool) ImportOption {
	return ImportOption{func(c *importConfig) { c.keep = keep }}
}

// ToolOptions declares each imported tool with the options opts returns
// for it: toolreg.WithTimeout for a slow server, toolreg.WithApproval for
// tools a person should confirm (say, those not annotated read-only),
// toolreg.WithTags to choose tools per step. Every imported tool already
// has the server's title (toolreg.WithTitle).
func ToolOptions(opts func(tool *mcp.Tool) []toolreg.Option) ImportOption {
	return ImportOption{func(c *importConfig) { c.toolOpts = opts }}
}

// OnChange calls fn after each import or refresh that changed which tools
// can be called, or that failed (err, which joins the reasons of every tool
// that could not be imported), and when the session ends (err matches
// ErrDisconnected). It runs after the change, on the goroutine that made
// it (for a refresh the server asked for, the session's), and must not
// block for long. Use it to log what a server's changes did.
func OnChange(fn func(Change, error)) ImportOption {
	return ImportOption{func(c *importConfig) { c.onChange = fn }}
}

// MaxListPages bounds the pages one listing of the server's tools may
// take, DefaultMaxListPages when not set; n must be at least 1. A listing
// that needs more fails with ErrListTooLong and changes nothing. Raise it
// for a server that pages in small pages on purpose.
func MaxListPages(n int) ImportOption {
	return bound("MaxListPages", n, 1, "", func(b *bounds) { b.pages = n })
}

// MaxTools bounds the tools one listing of the server may hold,
// DefaultMaxTools when not set; n must be at least 1. A listing with more
// fails with ErrListTooLong and changes nothing. Raise it for a server
// with more tools, of which ImportOnly takes a part: the bound counts the
// tools as listed.
func MaxTools(n int) ImportOption {
	return bound("MaxTools", n, 1, "", func(b *bounds) { b.tools = n })
}

// MaxResultText bounds, in bytes, the text of one result of an imported
// tool that the model reads: it declares each imported tool with
// toolreg.WithMaxResultBytes(n), in place of the registry's limit
// (toolreg.WithDefaultMaxResultBytes, which holds them when it is not
// set); n must be at least 1000. A longer text keeps its start and its
// end, with a line in the middle that tells the model how much was left
// out; a structuredContent longer than n is dropped (it is the text's JSON
// too), and the message of a call the server refuses (a JSON-RPC error) is
// cut the same way (see toolreg.ResultCut). Raise it for a server whose
// long results the model needs whole; lower it for a small context.
// ToolOptions may set another limit for some of the tools.
func MaxResultText(n int) ImportOption {
	return bound("MaxResultText", n, 1000, " bytes", func(b *bounds) { b.text = n })
}

// MaxResultMedia bounds, in bytes, the images, audio and files of one
// result of an imported tool, DefaultMaxResultMedia when not set; n must be
// at least 1. They are taken in order while they fit; each one that does
// not is left out, and a line of the text says which and why. Each
// provider's adapter bounds them again by its own limits.
func MaxResultMedia(n int) ImportOption {
	return bound("MaxResultMedia", n, 1, "", func(b *bounds) { b.media = n })
}

// bound is an option that sets one of the bounds to n, refusing an n below
// least (unit names what it counts, in the refusal).
func bound(name string, n, least int, unit string, set func(*bounds)) ImportOption {
	return ImportOption{func(c *importConfig) {
		if n < least {
			c.errs = append(c.errs, fmt.Errorf("mcp: %s(%d): the bound must be at least %d%s", name, n, least, unit))
			return
		}
		set(&c.bounds)
	}}
}

func (c *importConfig) check() error {
	return errors.Join(append(c.errs, sameName("ImportAs", c.as)...)...)
}

// Claims on a registry name, strongest first: when two tools of a server
// would have one name, the stronger claim keeps it (see Importer).
const (
	claimChosen = iota // named with ImportAs
	claimExact         // the MCP name, with the prefix
	claimMapped        // the MCP name with characters replaced or cut
)

// name is the registry name of the MCP tool mcpName, and the strength of
// its claim on it.
func (c *importConfig) name(mcpName string) (name string, claim int) {
	if name, ok := c.as[mcpName]; ok {
		return name, claimChosen
	}
	name, exact := importName(c.prefix, mcpName)
	if exact {
		return name, claimExact
	}
	return name, claimMapped
}
