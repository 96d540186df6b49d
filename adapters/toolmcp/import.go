package toolmcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// ErrNotOffered is in the Output.Err of a call of an imported tool that its
// server no longer offers, or offers with another input or output schema
// than the one the model was given.
var ErrNotOffered = errors.New("tool no longer offered by its MCP server")

// ErrDisconnected is in the Output.Err of a call of an imported tool whose
// session to its server has ended, before or during the call, and in the
// error OnChange reports when the session ends.
var ErrDisconnected = errors.New("MCP server disconnected")

// ErrListTooLong is in the error of an Import or a Refresh whose listing of
// the server's tools went past a bound: more pages than MaxListPages, more
// tools than MaxTools, or a page cursor the server gave before, which
// would page forever. Nothing of such a listing is imported, and an import
// made before stays as it was. The error names the bound and the option
// that raises it.
var ErrListTooLong = errors.New("MCP server's tool list too long")

// refreshTimeout bounds a refresh that the server asked for with
// notifications/tools/list_changed.
const refreshTimeout = 30 * time.Second

// Importer imports the tools of an MCP server, reached through a go-sdk
// client session, into a toolreg.Registry, and keeps them in step with the
// server. Each becomes a tool of the registry like any other (see Import),
// so one registry mixes Go tools and remote ones and serves them all to
// any provider, or over MCP again with AddTools. It is safe for concurrent
// use.
//
// A registry only grows (adapters build each tool's definition once, by
// name), so a tool the server stops offering stays in the registry,
// withdrawn: its calls fail at once with an Output whose Err matches
// ErrNotOffered, telling the model not to call it again; Unavailable lists
// it, for agent.Options.PrepareStep to hide it from the model; an MCP
// server that re-serves the registry (AddTools) stops listing it; OnChange
// reports it. If the server offers it again, it comes back. A tool whose
// input or output schema the server changes is withdrawn the same way,
// because the registry cannot change the schema the model was given, and
// comes back if the schema does; a new description, title or annotations
// are not taken up.
type Importer struct {
	reg *toolreg.Registry
	cfg importConfig

	mu      sync.Mutex // serialises imports and refreshes
	link    atomic.Pointer[link]
	tools   atomic.Pointer[[]*importedTool] // in import order; replaced, never changed
	byMCP   map[string]*importedTool
	byName  map[string]*importedTool
	refused map[string]string // MCP name → signature of a tool refused; tried again once it changes

	wmu      sync.Mutex
	watchers []func([]*importedTool) // told of tools whose availability changed

	amu    sync.Mutex       // guards asking
	asking map[*asking]bool // the calls in flight, for the questions their servers ask

	nmu        sync.Mutex // guards the refreshes notifications ask for
	refreshing bool       // one runs
	dirty      bool       // a notification came since it began
}

// link is one session to the server.
type link struct {
	cs     *mcp.ClientSession
	server string // for messages: `the MCP server "name"`
	closed atomic.Bool
	ended  chan struct{} // closed when the session has ended
}

// endGrace is how long a call that failed on its way waits to learn
// whether the session ended with it: a transport that gives up on a
// message (one over its size, say) fails the call before the session's
// end is seen, and the model should read that the connection closed, not
// that the call failed.
const endGrace = 250 * time.Millisecond

// endedBy reports whether the session has ended, or ends within endGrace.
func (l *link) endedBy() bool {
	t := time.NewTimer(endGrace)
	defer t.Stop()
	select {
	case <-l.ended:
		return true
	case <-t.C:
		return false
	}
}

// NewImporter returns an Importer of tools into reg. Set its
// ToolListChanged as the ToolListChangedHandler of the mcp.Client you
// connect with, and its Elicit as the ElicitationHandler (so that a
// server's question pauses the run), then Import the session:
//
//	im, err := toolmcp.NewImporter(reg, toolmcp.Prefix("github__"))
//	client := mcp.NewClient(impl, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged, ElicitationHandler: im.Elicit})
//	session, err := client.Connect(ctx, transport, nil)
//	err = im.Import(ctx, session)
//
// An invalid option (a Prefix or an ImportAs name toolreg.ValidName
// refuses, two tools given one name) is an error.
func NewImporter(reg *toolreg.Registry, opts ...ImportOption) (*Importer, error) {
	if reg == nil {
		return nil, errors.New("mcp: NewImporter needs a registry")
	}
	im := &Importer{reg: reg, byMCP: map[string]*importedTool{}, byName: map[string]*importedTool{}, refused: map[string]string{}}
	for _, o := range opts {
		if o.set != nil {
			o.set(&im.cfg)
		}
	}
	if err := im.cfg.check(); err != nil {
		return nil, err
	}
	im.cfg.bounds = im.cfg.bounds.withDefaults()
	im.tools.Store(&[]*importedTool{})
	return im, nil
}

// Import adds every tool that session's server lists (see ImportOnly) to
// the registry, each a toolreg.NewDynamic tool that calls through to the
// server:
//   - its name is the MCP name with the Prefix, with each character
//     toolreg.ValidName refuses written '_' and a name over 64 characters
//     cut to 55 and ended with a hash of the MCP name ("files.read" is
//     "files_read"), unless ImportAs names it; Names lists them all;
//   - its description, title, input schema (calls are validated against it
//     before they reach the server) and output schema are the server's, the
//     schemas as the SDK's client reads them (keys sorted, numbers as
//     float64); the annotations (readOnlyHint, ...) go with it, and AddTools
//     serves them;
//   - a call sends the arguments with the call's context, so the
//     registry's deadlines and cancellation reach the server; the result's
//     text content is what the model reads, with text resources and
//     resource links in it as text; its images, audio and blob resources
//     are Output.Media, which each provider's adapter sends in its own form
//     (and AddTools as MCP content again); structuredContent is
//     Output.Structured, and an isError result is an error Output whose
//     text is the server's.
//
// A tool that cannot be imported is left out and the others are imported:
// one whose name is taken, by a tool of the registry or by another tool of
// the server (toolreg.ErrDuplicateTool; of two tools of the server that map
// to one name, an ImportAs name wins, then one that needed no mapping, then
// the first listed), or whose schema does not compile or has no object root
// (toolreg.ErrInvalidDeclaration). The error joins their reasons, naming
// each tool; nil when every tool was imported. If the server cannot be
// listed, nothing is imported and the error says why. A schema that
// compiles but uses keywords a provider's strict mode lacks is imported:
// strict adapters fall back to sending it non-strict (or, without
// fallback, refuse it with toolreg.ErrUnsupportedSchema naming the tool).
//
// Call Import again with a new session to the same server when the old one
// has ended: the tools already imported call through the new session, and
// the list is refreshed.
//
// What the server sends is bounded, as a server can lie: a listing of
// more than MaxListPages pages or MaxTools tools, or one that repeats a
// cursor, fails with ErrListTooLong and imports nothing; a result's media
// are bounded by MaxResultMedia, and its text, an error's included, is held
// to the registry's result limit like any tool's
// (toolreg.WithDefaultMaxResultBytes, 100 kB by default; MaxResultText
// sets the imported tools' own): a longer text is cut, keeping its start
// and its end, not refused. One message is bounded by the transport the session was made
// with, before the Importer sees it: a go-sdk client over stdio or a
// command refuses a line over mcp.DefaultMaxLineLength (16 MiB; set
// IOTransport.MaxLineLength to change it) and a streamable HTTP client an
// event over StreamableClientTransport.MaxEventSize, and either ends the
// session; the call in flight then fails with ErrDisconnected.
func (im *Importer) Import(ctx context.Context, session *mcp.ClientSession) error {
	if session == nil {
		return errors.New("mcp: Import needs a connected session")
	}
	im.mu.Lock()
	before := im.available()
	l := &link{cs: session, server: serverName(session), ended: make(chan struct{})}
	if old := im.link.Load(); old != nil && old.cs == session {
		l = old
	} else {
		im.link.Store(l)
		go im.watch(l)
	}
	change, err := im.refresh(ctx, l, before)
	im.mu.Unlock()
	im.report(change, err)
	return err
}

// ToolListChanged refreshes the import when the server says its tools have
// changed (notifications/tools/list_changed): set it as the
// ToolListChangedHandler of the mcp.Client the session is made with (the
// client subscribes to the notification only when one is set). OnChange
// reports what the refresh did.
//
// The refresh runs after ToolListChanged returns, each bounded by 30 s.
// Notifications that come while one runs are answered by a single refresh
// after it, which sees every change they announce: a server that sends
// them in a flood costs one listing in flight and one waiting, never one
// listing each.
func (im *Importer) ToolListChanged(ctx context.Context, req *mcp.ToolListChangedRequest) {
	l := im.link.Load()
	if l == nil || req == nil || req.Session != l.cs {
		// Not imported yet (Import lists the tools after this) or another
		// session of the same client.
		return
	}
	im.nmu.Lock()
	defer im.nmu.Unlock()
	im.dirty = true
	if !im.refreshing {
		im.refreshing = true
		go im.refreshWhileDirty(context.WithoutCancel(ctx))
	}
}

// refreshWhileDirty refreshes until no notification has come since the
// last refresh began.
func (im *Importer) refreshWhileDirty(base context.Context) {
	for {
		im.nmu.Lock()
		if !im.dirty {
			im.refreshing = false
			im.nmu.Unlock()
			return
		}
		im.dirty = false
		im.nmu.Unlock()
		ctx, cancel := context.WithTimeout(base, refreshTimeout)
		im.Refresh(ctx)
		cancel()
	}
}

// Refresh lists the server's tools again and brings the import in step:
// new tools are added, tools no longer listed (or listed with other
// schemas) are withdrawn, and withdrawn tools listed again come back.
// ToolListChanged calls it; call it yourself for a server that does not
// send notifications/tools/list_changed. The error joins the reasons of
// the tools that could not be imported, or says why the server could not
// be listed (the import is then unchanged).
func (im *Importer) Refresh(ctx context.Context) (Change, error) {
	im.mu.Lock()
	l := im.link.Load()
	if l == nil {
		im.mu.Unlock()
		return Change{}, errors.New("mcp: Refresh before Import")
	}
	change, err := im.refresh(ctx, l, im.available())
	im.mu.Unlock()
	im.report(change, err)
	return change, err
}

// Unavailable lists, by registry name in import order, the imported tools
// that cannot be called now: withdrawn (see Importer), or all of them while
// the session has ended. Hide them from the model in each step of a run:
//
//	PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Hide(im.Unavailable()...) }
func (im *Importer) Unavailable() []string {
	var names []string
	for _, t := range *im.tools.Load() {
		if !t.available() {
			names = append(names, t.Name())
		}
	}
	return names
}

// Names maps the MCP name of every tool imported to its registry name.
func (im *Importer) Names() map[string]string {
	names := map[string]string{}
	for _, t := range *im.tools.Load() {
		names[t.mcpName] = t.Name()
	}
	return names
}

// Change says which imported tools an import, a refresh or the end of the
// session changed, by registry name.
type Change struct {
	Added    []string // imported
	Removed  []string // no longer callable: withdrawn, or the session ended
	Restored []string // callable again
}

func (c Change) empty() bool { return len(c.Added)+len(c.Removed)+len(c.Restored) == 0 }

// refresh lists the server's tools and brings the import in step; before
// is what was available before the change began. im.mu is held.
func (im *Importer) refresh(ctx context.Context, l *link, before map[string]bool) (Change, error) {
	all, err := im.list(ctx, l)
	if err != nil {
		return Change{}, fmt.Errorf("mcp: listing the tools of %s: %w", l.server, fromPeer(err))
	}
	var listed []*mcp.Tool
	for _, t := range all {
		if t != nil && (im.cfg.keep == nil || im.cfg.keep(t)) {
			listed = append(listed, t)
		}
	}
	var errs []error
	seen := map[string]bool{}
	var twice []string // names listed more than once, each once
	var fresh []candidate
	for _, t := range listed {
		if seen[t.Name] {
			if !slices.Contains(twice, t.Name) && len(twice) <= maxNamed {
				twice = append(twice, t.Name)
			}
			continue
		}
		seen[t.Name] = true
		sig := signature(t)
		if old := im.byMCP[t.Name]; old != nil {
			switch {
			case sig == old.sig:
				old.state.Store(offered)
			case old.state.Load() != changed:
				old.state.Store(changed)
				errs = append(errs, fmt.Errorf("mcp: tool %q of %s changed its input or output schema; %q keeps the schema the model was given, so its calls are refused until the server offers that schema again or the tool is imported into a new registry",
					t.Name, l.server, old.Name()))
			}
			continue
		}
		if im.refused[t.Name] == sig {
			continue // refused before as it is; its reason was reported then
		}
		name, claim := im.cfg.name(t.Name)
		fresh = append(fresh, candidate{tool: t, name: name, claim: claim, sig: sig})
	}
	// Only the names of this listing are remembered as refused: a server
	// that lists new bad names at each refresh would otherwise grow the
	// map without bound. A name it lists again is tried, and refused,
	// once more.
	maps.DeleteFunc(im.refused, func(name, _ string) bool { return !seen[name] })
	if len(twice) > 0 {
		// One error, whatever the number of repeats: a server that lists
		// one name a thousand times is not worth a thousand lines.
		errs = append(errs, fmt.Errorf("mcp: %s lists %s more than once; the first tool listed under each name is the one imported", l.server, quoteNames(twice)))
	}
	for _, t := range *im.tools.Load() {
		if !seen[t.mcpName] {
			t.state.Store(withdrawn)
		}
	}
	added, addErrs := im.add(l, fresh)
	errs = append(errs, addErrs...)

	after := im.available()
	change := Change{Added: added}
	var flipped []*importedTool
	for _, t := range *im.tools.Load() {
		name := t.Name()
		if slices.Contains(added, name) || before[name] == after[name] {
			continue
		}
		flipped = append(flipped, t)
		if after[name] {
			change.Restored = append(change.Restored, name)
		} else {
			change.Removed = append(change.Removed, name)
		}
	}
	im.tell(flipped)
	return change, errors.Join(errs...)
}

// list reads every page of the server's tools, within the bounds: the
// server chooses the cursors and the sizes of its pages, and a server that
// lies would otherwise be listed until the process runs out of memory.
func (im *Importer) list(ctx context.Context, l *link) ([]*mcp.Tool, error) {
	b := im.cfg.bounds
	var tools []*mcp.Tool
	seen := map[[sha256.Size]byte]bool{} // cursors, by digest: a server picks their length
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := l.cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		if len(tools)+len(res.Tools) > b.tools {
			return nil, fmt.Errorf("%w: more than %d tools, the bound of a listing; raise it with MaxTools", ErrListTooLong, b.tools)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools, nil
		}
		sum := sha256.Sum256([]byte(res.NextCursor))
		if seen[sum] {
			return nil, fmt.Errorf("%w: page %d gave a cursor the server gave before, so the listing would never end; the server is at fault, not a bound", ErrListTooLong, page)
		}
		seen[sum] = true
		if page == b.pages {
			return nil, fmt.Errorf("%w: more than %d pages, the bound of a listing; raise it with MaxListPages", ErrListTooLong, b.pages)
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// candidate is a tool of the server not imported yet.
type candidate struct {
	tool  *mcp.Tool
	name  string // in the registry
	claim int    // on name: claimChosen, claimExact or claimMapped
	sig   string
}

// add imports the candidates whose names are free and whose schemas
// compile, in the server's order, and returns their registry names and
// the reasons of the others. im.mu is held.
func (im *Importer) add(l *link, fresh []candidate) ([]string, []error) {
	var errs []error
	refuse := func(c candidate, err error) {
		im.refused[c.tool.Name] = c.sig
		errs = append(errs, fmt.Errorf("mcp: tool %q of %s not imported: %w", c.tool.Name, l.server, err))
	}
	// Names are given out by the strength of the claim, then in the
	// server's order, so that which tool keeps a contested name does not
	// depend on the order of the list.
	order := slices.Clone(fresh)
	slices.SortStableFunc(order, func(a, b candidate) int { return cmp.Compare(a.claim, b.claim) })
	claimed := map[string]string{} // registry name → MCP name, in this batch
	ok := map[string]bool{}        // MCP names whose names are free
	for _, c := range order {
		if other, dup := im.byName[c.name]; dup {
			refuse(c, fmt.Errorf("%w: its name would be %q, which its tool %q already has; import it under another name with ImportAs", toolreg.ErrDuplicateTool, c.name, other.mcpName))
		} else if other, dup := claimed[c.name]; dup {
			refuse(c, fmt.Errorf("%w: its name would be %q, which its tool %q takes; import it under another name with ImportAs", toolreg.ErrDuplicateTool, c.name, other))
		} else if held, dup := im.reg.Lookup(c.name); dup {
			refuse(c, fmt.Errorf("%w: its name would be %q, which the registry's tool %s already has; import it under another name with ImportAs or Prefix", toolreg.ErrDuplicateTool, c.name, describe(held)))
		} else {
			claimed[c.name] = c.tool.Name
			ok[c.tool.Name] = true
		}
	}
	var batch []*importedTool
	for _, c := range fresh {
		if !ok[c.tool.Name] {
			continue
		}
		t, err := im.build(c)
		if err != nil {
			refuse(c, err)
			continue
		}
		batch = append(batch, t)
	}
	if len(batch) == 0 {
		return nil, errs
	}
	var added []*importedTool
	if err := im.reg.Add(anyTools(batch)...); err == nil {
		added = batch
	} else {
		// A tool was added to the registry meanwhile under one of the
		// names: add one by one, so that only that tool is refused.
		for _, t := range batch {
			if err := im.reg.Add(t); err != nil {
				refuse(candidate{tool: &mcp.Tool{Name: t.mcpName}, sig: t.sig}, err)
				continue
			}
			added = append(added, t)
		}
	}
	all := slices.Clone(*im.tools.Load())
	var names []string
	for _, t := range added {
		all = append(all, t)
		im.byMCP[t.mcpName], im.byName[t.Name()] = t, t
		names = append(names, t.Name())
	}
	im.tools.Store(&all)
	return names, errs
}

func anyTools(ts []*importedTool) []toolreg.AnyTool {
	out := make([]toolreg.AnyTool, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// describe names a registry tool for an error: its name, and for a tool
// imported from a server, which.
func describe(t toolreg.AnyTool) string {
	if it, ok := t.(*importedTool); ok {
		if l := it.im.link.Load(); l != nil {
			return fmt.Sprintf("%q (tool %q of %s)", t.Name(), it.mcpName, l.server)
		}
	}
	return fmt.Sprintf("%q", t.Name())
}

// build declares the tool of c.
func (im *Importer) build(c candidate) (*importedTool, error) {
	t := c.tool
	if t.InputSchema == nil {
		return nil, fmt.Errorf("%w: the server gave no inputSchema", toolreg.ErrInvalidDeclaration)
	}
	input, err := encode(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("%w: inputSchema: %v", toolreg.ErrInvalidDeclaration, err)
	}
	it := &importedTool{im: im, mcpName: t.Name, sig: c.sig}
	if t.Annotations != nil {
		a := *t.Annotations
		it.annotations = &a
	}
	var opts []toolreg.Option
	if title := cmp.Or(t.Title, annotationTitle(t)); title != "" {
		opts = append(opts, toolreg.WithTitle(title))
	}
	if t.OutputSchema != nil {
		output, err := encode(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: outputSchema: %v", toolreg.ErrInvalidDeclaration, err)
		}
		opts = append(opts, toolreg.WithOutputSchema(output))
	}
	if im.cfg.deferred {
		opts = append(opts, toolreg.WithDeferred())
	}
	if im.cfg.bounds.text > 0 {
		opts = append(opts, toolreg.WithMaxResultBytes(im.cfg.bounds.text))
	}
	if im.cfg.toolOpts != nil {
		opts = append(opts, im.cfg.toolOpts(t)...)
	}
	description := t.Description
	if strings.TrimSpace(description) == "" {
		// MCP makes the description optional; toolreg requires one, as the
		// model needs it.
		description = cmp.Or(t.Title, annotationTitle(t), t.Name)
	}
	tool, err := toolreg.NewDynamic(c.name, description, input, it.call, opts...)
	if err != nil {
		return nil, err
	}
	it.Tool = tool
	return it, nil
}

func annotationTitle(t *mcp.Tool) string {
	if t.Annotations == nil {
		return ""
	}
	return t.Annotations.Title
}

// encode writes a schema as JSON, as the client read it (a map: keys come
// out sorted), with "<" and ">" left as they are for the model.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// signature is what a tool's definition in the registry depends on and
// its description does not: its input and output schemas.
func signature(t *mcp.Tool) string {
	in, _ := encode(t.InputSchema)
	out, _ := encode(t.OutputSchema)
	return string(in) + "\x00" + string(out)
}

// available is the registry names of the imported tools, each with
// whether it can be called now. im.mu is held.
func (im *Importer) available() map[string]bool {
	m := map[string]bool{}
	for _, t := range *im.tools.Load() {
		m[t.Name()] = t.available()
	}
	return m
}

// watch waits for the session to end, then withdraws every tool it serves.
func (im *Importer) watch(l *link) {
	l.cs.Wait()
	close(l.ended)
	im.mu.Lock()
	if im.link.Load() != l {
		l.closed.Store(true) // replaced by Import: its tools call the new session
		im.mu.Unlock()
		return
	}
	before := im.available()
	l.closed.Store(true)
	var flipped []*importedTool
	var change Change
	for _, t := range *im.tools.Load() {
		if before[t.Name()] {
			flipped = append(flipped, t)
			change.Removed = append(change.Removed, t.Name())
		}
	}
	im.tell(flipped)
	im.mu.Unlock()
	im.report(change, fmt.Errorf("mcp: the session to %s has ended: %w", l.server, ErrDisconnected))
}

// report passes a change or an error to OnChange.
func (im *Importer) report(change Change, err error) {
	if im.cfg.onChange != nil && (err != nil || !change.empty()) {
		im.cfg.onChange(change, err)
	}
}

// onAvailability adds fn to the functions told, in the order of changes,
// of imported tools whose availability changed: AddTools stops or starts
// serving them.
func (im *Importer) onAvailability(fn func([]*importedTool)) {
	im.wmu.Lock()
	defer im.wmu.Unlock()
	im.watchers = append(im.watchers, fn)
}

// tell tells the watchers of tools whose availability changed. im.mu is
// held, which keeps the changes in order.
func (im *Importer) tell(tools []*importedTool) {
	if len(tools) == 0 {
		return
	}
	im.wmu.Lock()
	watchers := slices.Clone(im.watchers)
	im.wmu.Unlock()
	for _, fn := range watchers {
		fn(tools)
	}
}

// maxServerName bounds, in bytes, the name of a server in the messages
// the model and the host read: the server chooses it, and it goes into
// every error about its tools.
const maxServerName = 100

func serverName(cs *mcp.ClientSession) string {
	if res := cs.InitializeResult(); res != nil && res.ServerInfo != nil && res.ServerInfo.Name != "" {
		name := res.ServerInfo.Name
		if len(name) > maxServerName {
			cut := maxServerName
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			name = name[:cut] + "..."
		}
		return fmt.Sprintf("the MCP server %q", name)
	}
	return "the MCP server"
}

// maxPeerMessage bounds, in bytes, the message of an error an MCP server
// caused (a JSON-RPC error it answered, a reply the client could not
// read), as the importer reports it to the host and to the model.
const maxPeerMessage = 1000

// peerError is an error an MCP server caused, as the importer reports it:
// its message is cleaned and bounded by peerText, and it unwraps to the
// SDK's error for errors.Is and errors.As, but for a JSON-RPC error to a
// copy with the same code, the cleaned message and no data, so that no
// more of what the server said is kept than the message shows.
type peerError struct {
	msg string
	err error
}

func (e *peerError) Error() string { return e.msg }
func (e *peerError) Unwrap() error { return e.err }

// fromPeer is err, which may hold any text an MCP server chose (a message
// of 10 MB, control characters, lines that pass for a stack trace), as a
// peerError. Every error of a server the importer reports goes through it.
func fromPeer(err error) error {
	var pe *peerError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	inner := err
	if rpc := (*jsonrpc.Error)(nil); errors.As(err, &rpc) {
		inner = &jsonrpc.Error{Code: rpc.Code, Message: peerText(rpc.Message, maxPeerMessage)}
	}
	return &peerError{msg: peerText(err.Error(), maxPeerMessage), err: inner}
}

// peerText is s, a text an MCP server chose, fit for a message: control and
// format characters and line separators (so that it cannot pass for lines
// of a log or a stack trace of its own) written as spaces, invalid UTF-8 as
// U+FFFD, and cut to limit bytes, at a character, with a note of how many
// bytes were left out.
func peerText(s string, limit int) string {
	cut := len(s)
	if cut > limit {
		cut = limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	var b strings.Builder
	for _, r := range s[:cut] {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			r = ' '
		}
		b.WriteRune(r)
	}
	if cut < len(s) {
		fmt.Fprintf(&b, "... (%d more bytes left out)", len(s)-cut)
	}
	return b.String()
}

// maxNamed is how many names of a server's tools one message names.
const maxNamed = 5

// quoteNames quotes the first maxNamed of names, each bounded as a
// server's name is, and says that there are more when there are.
func quoteNames(names []string) string {
	var b strings.Builder
	for i, name := range names[:min(len(names), maxNamed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(peerText(name, maxServerName)))
	}
	if len(names) > maxNamed {
		b.WriteString(" and others")
	}
	return b.String()
}

// The states of an imported tool, as its server lists it.
const (
	offered   int32 = iota // listed as imported
	withdrawn              // no longer listed
	changed                // listed with other schemas
)

// importedTool is a tool of an MCP server in the registry: a dynamic tool
// whose function calls the server.
type importedTool struct {
	*toolreg.Tool[json.RawMessage, toolreg.Output]
	im          *Importer
	mcpName     string
	sig         string
	annotations *mcp.ToolAnnotations // as the server gave them
	state       atomic.Int32
}

// available reports whether the tool can be called now.
func (t *importedTool) available() bool {
	l := t.im.link.Load()
	return t.state.Load() == offered && l != nil && !l.closed.Load()
}

// call is the tool's function: one tools/call to the server.
func (t *importedTool) call(ctx context.Context, args json.RawMessage) (toolreg.Output, error) {
	l := t.im.link.Load()
	switch t.state.Load() {
	case withdrawn:
		return toolreg.Output{}, callError(ErrNotOffered, nil, "tool %q is no longer offered by %s; do not call it again", t.Name(), l.server)
	case changed:
		return toolreg.Output{}, callError(ErrNotOffered, nil, "tool %q was changed by %s after you were given it, and cannot be called as you know it; do not call it again", t.Name(), l.server)
	}
	if l.closed.Load() {
		return toolreg.Output{}, callError(ErrDisconnected, nil, "tool %q cannot be called: the connection to %s has closed", t.Name(), l.server)
	}
	a, err := t.asks(ctx, l.cs)
	if err != nil {
		return toolreg.Output{}, err
	}
	done := t.im.track(a)
	res, err := l.cs.CallTool(context.WithValue(ctx, askingKey{}, a), &mcp.CallToolParams{Name: t.mcpName, Arguments: args})
	done()
	if asked := a.outcome(); asked != nil {
		// What the server made of a question it was told is passed on
		// is not the call's result: the call is made again with the
		// answer.
		return toolreg.Output{}, asked
	}
	if err != nil {
		err = fromPeer(err)
		var rpc *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			// The registry words a timeout or a cancellation itself.
			return toolreg.Output{}, fmt.Errorf("tool %q of %s: %w", t.Name(), l.server, ctx.Err())
		case errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || l.closed.Load():
			return toolreg.Output{}, callError(ErrDisconnected, err, "the connection to %s closed during the call of tool %q; whether the call took effect is unknown", l.server, t.Name())
		case errors.As(err, &rpc):
			return toolreg.Output{}, callError(nil, err, "%s refused the call of tool %q: %s", l.server, t.Name(), rpc.Message)
		case l.endedBy():
			return toolreg.Output{}, callError(ErrDisconnected, err, "the connection to %s closed during the call of tool %q; whether the call took effect is unknown", l.server, t.Name())
		default:
			return toolreg.Output{}, callError(nil, err, "the call of tool %q to %s failed: %v", t.Name(), l.server, err)
		}
	}
	return fromResult(res, t.im.cfg.bounds.media), nil
}

// modelError is the error of a call that failed on the way to or from the
// server: its text is what the model reads; it matches kind and wraps
// cause for the host.
type modelError struct {
	text        string
	kind, cause error
}

func callError(kind, cause error, format string, args ...any) error {
	return &modelError{text: fmt.Sprintf(format, args...), kind: kind, cause: cause}
}

func (e *modelError) Error() string { return e.text }

func (e *modelError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
