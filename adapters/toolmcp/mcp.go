// Package toolmcp bridges toolreg and the Model Context Protocol through the
// official SDK (github.com/modelcontextprotocol/go-sdk/mcp), both ways.
// AddTools serves a toolreg.Registry over MCP: every tool of the registry
// becomes a tool of an *mcp.Server, with its input schema, an output schema
// when its result is structured, its title and the annotations given with
// Annotate. An Importer does the reverse: it imports the tools of an MCP
// server, through a client session, into a registry, where they sit beside
// Go tools and reach any provider's model (and MCP clients again, with
// AddTools).
//
// Served calls go through Registry.Call, so a client gets toolreg's
// validation and messages, not the SDK's: invalid arguments, a tool's error
// and a panic are results with isError set, whose text tells the model what
// to fix; only an unknown tool is a protocol error (JSON-RPC -32602, as the
// specification asks). The registry's middleware (Registry.Use) sees every
// call: log, meter or authorise calls there, with the details the client
// never sees (Output.Err holds a panic's stack).
//
// Results are held to the registry's result limit
// (toolreg.WithDefaultMaxResultBytes, toolreg.WithMaxResultBytes) both
// ways. A served tool's text content is cut as any tool's; a served tool
// with an output schema still sends its whole structuredContent, however
// long, because every result that is not an error must carry one valid
// under the schema (the client's code reads it; its model reads the cut
// text). An imported tool's text content, text resources and resource links
// are cut, and a structuredContent over the limit is dropped from what the
// model reads (Output.Cut keeps it, and toolreg.WithResultSpill gets it).
// The message of a server's error reaches the host and the model cleaned
// and bounded to 1,000 bytes.
//
// Questions cross MCP both ways. A served tool that asks the host a
// question (toolreg.Interrupt) asks the MCP client's user instead, and
// runs again with the answer (see AddTools). An imported server that asks
// the user during a call (elicitation) pauses the agent run as a Go tool's
// Interrupt does; the host answers, in this process or from a stored
// State, and the resumed run makes the call again with the answer (see
// Importer.Elicit).
//
// Each client is served in the revision it speaks, on either transport:
// 2026-07-28 (server/discover, no session) and 2025-11-25 and older (the
// initialize handshake, one session per client). Over stdio (the SDK's
// StdioTransport) the SDK serves both. Over streamable HTTP, HTTPHandler
// serves 2026-07-28 request by request and opens a session for an older
// client, or, with HTTPOptions.Stateless, opens none for anyone (older
// clients then get no notifications/tools/list_changed; see HTTPOptions).
// The server lists the same tools to all clients, so the tools are shaped
// for the strictest revision a client may speak: an output schema always
// has an object root (see AddTools).
package toolmcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
)

// Adapter keeps an *mcp.Server in step with a registry. It is safe for
// concurrent use.
type Adapter struct {
	srv *mcp.Server
	reg *toolreg.Registry
	cfg config

	mu       sync.Mutex        // serialises Sync
	live     bool              // AddTools succeeded: Sync may serve tools
	looked   map[string]bool   // registry names served, refused or waiting for their server; a registry only grows
	served   map[string]string // MCP name → registry name
	errs     []error           // tools that could not be served, kept for every Sync
	imported map[string]entry  // tools imported from MCP servers, by registry name
	watched  map[*Importer]bool
	key      [32]byte // signs the requestState of the questions its tools ask
}

// AddTools adds every tool of reg to srv and keeps srv in step with reg: a
// tool added to reg later is served as soon as it is added (AddTools
// listens with Registry.OnAdd), and connected clients are told with
// notifications/tools/list_changed. Registry names are served as they are
// unless Rename says otherwise.
//
// Each tool becomes an MCP tool with:
//   - name, title (a tool with a Title method, as toolreg.WithTitle gives)
//     and description;
//   - inputSchema: the tool's InputSchema less what only restates its Go
//     types (a bound at the limit of int64, the RFC 3339 pattern of a
//     time.Time beside format date-time), property order kept, nothing
//     re-inferred. Calls are still checked against the full InputSchema,
//     so a model that crosses an omitted bound is told which;
//   - outputSchema, when the result is structured: the tool's
//     OutputSchema lowered as inputSchema is. MCP before 2026-07-28
//     requires an object root, and this server lists one set of tools to
//     clients of every revision, so a schema whose root is not exactly
//     {"type":"object"} (a slice, a scalar, a pointer or map that may be
//     null, any) is wrapped as an object with one required property,
//     "result", and each structuredContent as {"result": value}; the text
//     block keeps the unwrapped JSON the model reads. A schema that cannot be
//     wrapped faithfully (a $ref outside #/$defs, an $id or an anchor) is
//     left out, and that tool's results are text only;
//   - annotations: those a tool imported from another MCP server came with
//     (see Importer), and Annotate's over them.
//
// A result's media (toolreg.Output.Media) follow its text: images as image
// content, audio as audio content, files as embedded resources (text for a
// text type in UTF-8, a blob for any other) under a URI of the form
// toolreg://tool/hash/name, which names the tool, the file and a hash of
// its bytes, and which no client can fetch: the file is in the result
// alone. A result carries up to 10 MB of media, so that it stays within
// the 16 MiB message a go-sdk client reads over stdio; each medium past
// that, or empty, is a line of text in its place that says why.
//
// A tool that asks the host a question (toolreg.Interrupt) asks the MCP
// client's user instead of failing, as a form. A question that is an
// object with a string "message" and an object "requestedSchema" (an
// mcp.ElicitParams, or a struct of yours with those JSON names) is asked
// as it is; any other question is the message (a string as it is, other
// JSON as its text), with a form of one line of text. The requestedSchema
// must be what MCP elicitation allows: a flat object of strings, numbers,
// integers, booleans and multiple choices, of at most 50 properties and
// 16 kB, with a message of at most 4,000 bytes; otherwise the result is an
// error that says so. A client before 2026-07-28 is asked over its session
// (elicitation/create) and waited for up to 10 minutes within the call's
// context; a client of 2026-07-28 gets an input_required result, and
// answers by calling again with the answer and the result's requestState,
// which is signed with a key of this Adapter and binds the question to the
// tool, its arguments and the hour after it was asked. The answer, at most
// 64 kB, is checked against the schema, and the tool runs again with the
// same arguments, reading it in toolreg.Info(ctx).Answer: the form's
// content, a JSON object, or for a one-line form the line, a JSON string.
// An answer not valid under the schema, a decline, a cancel, a
// requestState of another call or another Adapter (a restarted process,
// another replica), a client that cannot be asked (no elicitation
// capability; a client before 2026-07-28 over HTTPOptions.Stateless, which
// has no session) or an eleventh question in one call is an error result
// the model reads, and the tool does not run with that answer. A tool
// imported from another server (see Importer.Elicit) relays that server's
// question as it is, and the client's reply, decline and cancel included,
// goes back to that server.
//
// A tool imported from another server is served while that server offers
// it: when the server withdraws it, or its session ends, clients stop
// seeing it (and are told with notifications/tools/list_changed) until it
// is back.
//
// The SDK lists tools sorted by name, and replaces a tool it already serves
// under the same name.
//
// AddTools is all or nothing: if a tool cannot be served (a schema whose
// root is not an object, two tools with one MCP name) or an option is
// invalid, it returns the error and leaves srv untouched.
func AddTools(srv *mcp.Server, reg *toolreg.Registry, opts ...Option) (*Adapter, error) {
	if srv == nil || reg == nil {
		return nil, errors.New("mcp: AddTools needs a server and a registry")
	}
	a := &Adapter{srv: srv, reg: reg, looked: map[string]bool{}, served: map[string]string{}, imported: map[string]entry{}, watched: map[*Importer]bool{},
		cfg: adapt.Configure(opts, func(o Option) func(*config) { return o.set })}
	if err := a.cfg.check(); err != nil {
		return nil, err
	}
	if _, err := rand.Read(a.key[:]); err != nil {
		return nil, fmt.Errorf("mcp: AddTools: %w", err)
	}
	// Listen before reading the registry, so that no tool added meanwhile
	// is missed: a listener that runs before start finds the adapter not
	// live and leaves the tool to start, which reads the registry after
	// it; one that waits for start serves what start did not see.
	remove := reg.OnAdd(a.added)
	if err := a.start(); err != nil {
		remove()
		return nil, err
	}
	return a, nil
}

// start serves the registry's tools, all or none, and makes the adapter
// live.
func (a *Adapter) start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	tools := a.reg.Tools()
	entries, errs := a.prepare(tools)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, t := range tools {
		a.looked[t.Name()] = true
	}
	a.commit(entries)
	a.live = true
	return nil
}

// Sync serves the tools of the registry not served yet. Adding tools to
// the registry serves them already; call it to learn whether every tool
// could be served: the error joins every tool that could not be served
// since AddTools (the others are served); nil when all are.
func (a *Adapter) Sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live && len(a.looked) < a.reg.Len() {
		a.serve(a.reg.Tools())
	}
	return errors.Join(a.errs...)
}

// added is the adapter's OnAdd listener: it serves the tools one Add
// added, at a cost that does not grow with the registry. When other Adds
// have not been served yet (their listeners run on other goroutines and
// have not reached the adapter), it serves the whole registry instead, so
// that tools are served in the registry's order whatever the order the
// listeners run in: of two tools served under one MCP name, the one added
// first is served.
func (a *Adapter) added(tools []toolreg.AnyTool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.live {
		return
	}
	if len(a.looked)+len(tools) != a.reg.Len() {
		tools = a.reg.Tools()
	}
	a.serve(tools)
}

// serve serves the tools not looked at yet, in order, and keeps the
// reasons of those that cannot be served; a.mu is held.
func (a *Adapter) serve(tools []toolreg.AnyTool) {
	var fresh []toolreg.AnyTool
	for _, t := range tools {
		if !a.looked[t.Name()] {
			a.looked[t.Name()] = true
			fresh = append(fresh, t)
		}
	}
	entries, errs := a.prepare(fresh)
	a.errs = append(a.errs, errs...)
	a.commit(entries)
}

// entry is one registry tool as the server will serve it.
type entry struct {
	name    string // in the registry
	tool    *mcp.Tool
	handler mcp.ToolHandler
	src     toolreg.AnyTool // the registry tool
}

// prepare builds the entries of tools, not yet served; a.mu is held.
func (a *Adapter) prepare(tools []toolreg.AnyTool) ([]entry, []error) {
	var entries []entry
	var errs []error
	batch := map[string]string{}
	for _, t := range tools {
		name := a.cfg.mcpName(t.Name())
		if prev, dup := a.served[name]; dup {
			errs = append(errs, fmt.Errorf("mcp: %w: tools %q and %q would both be served as %q", toolreg.ErrDuplicateTool, prev, t.Name(), name))
			continue
		}
		if prev, dup := batch[name]; dup {
			errs = append(errs, fmt.Errorf("mcp: %w: tools %q and %q would both be served as %q", toolreg.ErrDuplicateTool, prev, t.Name(), name))
			continue
		}
		e, err := a.build(name, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		batch[name] = t.Name()
		entries = append(entries, e)
	}
	return entries, errs
}

// commit serves entries; a.mu is held.
func (a *Adapter) commit(entries []entry) {
	for _, e := range entries {
		a.served[e.tool.Name] = e.name
		if t, ok := e.src.(*importedTool); ok {
			a.imported[e.name] = e
			if !a.watched[t.im] {
				a.watched[t.im] = true
				t.im.onAvailability(a.availability)
			}
			if !t.available() {
				continue // listed once its server offers it again
			}
		}
		a.srv.AddTool(e.tool, e.handler)
	}
}

// availability serves the imported tools that can be called again and
// stops serving those that cannot, so that clients list only tools they
// can call.
func (a *Adapter) availability(tools []*importedTool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var gone []string
	for _, t := range tools {
		e, ok := a.imported[t.Name()]
		switch {
		case !ok: // not served: refused, or not synced yet
		case t.available():
			a.srv.AddTool(e.tool, e.handler)
		default:
			gone = append(gone, e.tool.Name)
		}
	}
	if len(gone) > 0 {
		a.srv.RemoveTools(gone...)
	}
}

func (a *Adapter) build(name string, t toolreg.AnyTool) (entry, error) {
	if err := objectRoot(t.InputSchema()); err != nil {
		return entry{}, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name(), err)
	}
	input, err := dialect.Compact(t.InputSchema())
	if err != nil {
		return entry{}, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name(), err)
	}
	tool := &mcp.Tool{
		Name:        name,
		Description: t.Description(),
		InputSchema: input,
	}
	var base *mcp.ToolAnnotations
	if it, ok := t.(*importedTool); ok {
		base = it.annotations
	}
	tool.Annotations = a.cfg.annotations(t.Name(), base)
	if titled, ok := t.(interface{ Title() string }); ok {
		tool.Title = titled.Title()
	}
	out := t.OutputSchema()
	if len(out) > 0 && outputShape(out).schema != nil {
		// Lowered as the input schema is, so that the output schema
		// spends no tokens on the limits of Go number types either; a
		// schema left out (an $id, an anchor) is judged as written, before
		// lowering drops its $id.
		if out, err = dialect.Compact(out); err != nil {
			return entry{}, fmt.Errorf("mcp: tool %q: output schema: %w", t.Name(), err)
		}
	}
	shape := outputShape(out)
	if shape.schema != nil {
		tool.OutputSchema = shape.schema // only when set: a nil RawMessage in an interface marshals as null
	}
	return entry{name: t.Name(), tool: tool, handler: a.handler(t.Name(), name, shape), src: t}, nil
}

// handler dispatches one MCP call to the registry and converts the Output.
func (a *Adapter) handler(name, mcpName string, shape output) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		if _, ok := a.reg.Lookup(name); !ok {
			// Not reachable while registries only grow; should one ever
			// drop a tool, the client gets what the SDK answers for any
			// unknown tool.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", mcpName)}
		}
		if req == nil {
			return shape.result(mcpName, a.reg.Call(ctx, name, args)), nil
		}
		return a.run(ctx, req, name, mcpName, args, shape), nil
	}
}

// objectRoot checks what the SDK requires of an input schema (it panics
// otherwise): a JSON object with "type": "object".
func objectRoot(schema json.RawMessage) error {
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if root.Type != "object" {
		return fmt.Errorf(`the root must have "type": "object" (MCP requires it), not %v`, root.Type)
	}
	return nil
}
