package adapt

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// The run's deferred tools (toolreg.WithDeferred, agent.Options.Defer) and
// its tool search: the loop declares the tools that are not deferred, the
// search while some are, and the tools the model found, in the order they
// first were so, and answers the search's calls itself.

// deferred reports whether the run defers t.
func (r *Run) deferred(t toolreg.AnyTool) bool {
	return toolreg.Deferred(t) || r.Options.Defer != nil && r.Options.Defer(t)
}

// ownSearch reports whether the run searches its deferred tools itself,
// with the tool search it declares and answers (SearchToolName): unless
// the Model's provider searches them natively (agent.NativeSearcher). The
// loop's declare, admitLoaded and isSearch, and through the declared
// tools Step.Check and Step.Declared, follow it.
func (r *Run) ownSearch() bool {
	ns, ok := r.Model.(agent.NativeSearcher)
	return !ok || !ns.SearchesNatively()
}

// admitLoaded refuses a State that loaded a tool the registry does not
// hold, and a registry tool named as the tool search in a run that
// declares it (a run searched natively does not).
func (r *Run) admitLoaded() error {
	for _, name := range r.State.Loaded {
		if _, ok := r.Registry.Lookup(name); !ok {
			return fmt.Errorf("%w: loaded: the registry has no tool %q", agent.ErrInvalidState, name)
		}
	}
	if t, ok := r.Registry.Lookup(agent.SearchToolName); ok && r.ownSearch() && slices.ContainsFunc(r.Registry.Tools(), r.deferred) {
		return fmt.Errorf("%w: the registry's tool %q has the name of the tool search the run declares for its deferred tools (%s)", toolreg.ErrDuplicateTool, t.Name(), "agent.SearchToolName")
	}
	return nil
}

// declare is the tools the step's request declares: those declared before
// in the run, in their order (a tool the registry no longer holds left
// out), then the registry's tools not deferred and not declared yet, the
// tool search if the run defers any, and the tools found, in the order
// found. The array only grows at its end, so the prompt cache holds; a run
// that defers nothing declares the registry's tools in its order, and so
// does one whose provider searches natively (ownSearch), deferred tools
// included and no search of the loop's.
func (r *Run) declare() []toolreg.AnyTool {
	own := r.ownSearch()
	r.mu.Lock()
	loaded := slices.Clone(r.State.Loaded)
	r.mu.Unlock()
	tools := r.Registry.Tools()
	byName := make(map[string]toolreg.AnyTool, len(tools)+1)
	deferring := false
	for _, t := range tools {
		byName[t.Name()] = t
		deferring = deferring || own && r.deferred(t)
	}
	if own && (deferring || slices.Contains(r.order, agent.SearchToolName)) {
		byName[agent.SearchToolName] = searchTool{}
	}
	declared := make([]toolreg.AnyTool, 0, len(r.order)+len(tools))
	seen := make(map[string]bool, len(r.order)+len(tools))
	order := r.order[:0]
	add := func(name string) {
		if t, ok := byName[name]; ok && !seen[name] {
			seen[name] = true
			order = append(order, name)
			declared = append(declared, t)
		}
	}
	for _, name := range r.order {
		add(name)
	}
	for _, t := range tools {
		if !deferring || !r.deferred(t) {
			add(t.Name())
		}
	}
	if deferring {
		add(agent.SearchToolName)
	}
	for _, name := range loaded {
		add(name)
	}
	r.order = order
	return declared
}

// DeclaredTools is the tools a step declares, from their names as a
// durable run carries them from the loop to the model call
// (agent.Step.Declared, by name): the registry's, and the loop's tool
// search (agent.SearchToolName) where the registry holds no tool of that
// name. The names come from a history, which can be edited: one the
// registry lacks, or one named twice, is an error (agent.ErrInvalidStep).
func DeclaredTools(reg *toolreg.Registry, names []string) ([]toolreg.AnyTool, error) {
	tools := make([]toolreg.AnyTool, 0, len(names))
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			return nil, fmt.Errorf("%w: the step declares %q twice", agent.ErrInvalidStep, name)
		}
		seen[name] = true
		t, ok := reg.Lookup(name)
		switch {
		case ok:
			tools = append(tools, t)
		case name == agent.SearchToolName:
			tools = append(tools, searchTool{})
		default:
			return nil, fmt.Errorf("%w: the step declares %q, which the registry does not hold", agent.ErrInvalidStep, name)
		}
	}
	return tools, nil
}

// searchTool is the tool search as the model sees it; its calls are the
// loop's (answerSearch), never the registry's.
type searchTool struct{}

func (searchTool) Name() string { return agent.SearchToolName }

func (searchTool) Description() string {
	return "Searches the tools that are not declared to you yet by what they do, and declares those it finds: " +
		"you may call them from your next turn on. Use it when none of your tools fits the task; " +
		"describe the action and its object in a few words (\"create calendar event\", \"refund order\")."
}

func (searchTool) InputSchema() json.RawMessage { return searchSchema }

func (searchTool) OutputSchema() json.RawMessage { return nil }

// Invoke refuses: the loop answers the tool search, no registry does.
func (searchTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: "the tool search is answered by the run, not called", IsError: true, Err: toolreg.ErrInternal}
}

var searchSchema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"query":{"type":"string","description":"What the tool should do, in a few words","maxLength":%d},`+
	`"limit":{"type":"integer","description":"How many tools to find at most (default %d)","minimum":1,"maximum":%d}},`+
	`"required":["query"],"additionalProperties":false}`, agent.MaxSearchQuery, agent.DefaultSearchLimit, agent.MaxSearchLimit))

// maxSearchDescription bounds each found tool's description in the
// search's result, in bytes.
const maxSearchDescription = 300

// answerSearch answers a call of the tool search in the step: it ranks the
// deferred tools the step offers and the model has not found, records
// those found in the State, and lists each with its description.
func (r *Run) answerSearch(ctx context.Context, step *agent.Step, call toolreg.ToolCall) toolreg.Output {
	if out := searchArgs.Invoke(ctx, call.Arguments); out.IsError {
		return out // what was wrong, and what the schema allows, as for any tool
	}
	// The arguments hold to the schema the model was sent: an object of a
	// query of at most MaxSearchQuery bytes and, maybe, an integer limit
	// from 1 to MaxSearchLimit (2.0 is one), each member once.
	var args struct {
		Query string      `json:"query"`
		Limit json.Number `json:"limit"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return toolreg.Output{Text: "the arguments could not be read; call " + agent.SearchToolName + ` with {"query": "a few words"}`,
			IsError: true, Err: fmt.Errorf("%w: %s: %v", toolreg.ErrInvalidArguments, agent.SearchToolName, err)}
	}
	query := strings.TrimSpace(args.Query)
	limit := agent.DefaultSearchLimit
	if f, err := args.Limit.Float64(); err == nil && args.Limit != "" {
		limit = int(f)
	}
	if query == "" {
		return toolreg.Output{Text: "the query is empty; call " + agent.SearchToolName + ` with {"query": "a few words"}`,
			IsError: true, Err: fmt.Errorf("%w: %s: the query is empty", toolreg.ErrInvalidArguments, agent.SearchToolName)}
	}
	offered := make(map[string]bool)
	for _, n := range step.Tools() {
		offered[n] = true
	}
	r.mu.Lock()
	loaded := make(map[string]bool, len(r.State.Loaded)) // a set: a stored State may list thousands
	for _, n := range r.State.Loaded {
		loaded[n] = true
	}
	r.mu.Unlock()
	var candidates []toolreg.AnyTool
	byName := make(map[string]int)
	for _, t := range r.Registry.Tools() {
		if offered[t.Name()] && r.deferred(t) && !loaded[t.Name()] {
			byName[t.Name()] = len(candidates)
			candidates = append(candidates, t)
		}
	}
	if len(candidates) == 0 {
		return toolreg.Output{Text: "every tool you may call now is declared to you already: call one of them, or answer"}
	}
	searcher := r.Options.Search
	if searcher == nil {
		searcher = agent.KeywordSearch{}
	}
	names, err := search(ctx, searcher, query, candidates, limit)
	if err != nil {
		// The searcher is the host's: its error may name hosts, keys,
		// queries. The model reads only that the search failed.
		return toolreg.Output{Text: "the tool search is unavailable now; try again later, or answer without it",
			IsError: true, Err: fmt.Errorf("%w: %s: %w", toolreg.ErrToolFailed, agent.SearchToolName, err)}
	}
	var found []toolreg.AnyTool
	for _, n := range names {
		// Only candidates, once each, and no more than asked: the
		// searcher is the host's, and may get it wrong.
		i, ok := byName[n]
		if ok && len(found) < limit && !slices.Contains(found, candidates[i]) {
			found = append(found, candidates[i])
		}
	}
	if len(found) == 0 {
		return toolreg.Output{Text: fmt.Sprintf("no tool matched %q among the %d not declared yet; search again with other words: "+
			"the action and what it acts on (\"send email\", \"list invoices\"), a synonym, or fewer words", query, len(candidates))}
	}
	var b strings.Builder
	if len(found) == 1 {
		b.WriteString("found 1 tool; it is declared to you from your next turn on, and you may call it:")
	} else {
		fmt.Fprintf(&b, "found %d tools; they are declared to you from your next turn on, and you may call them:", len(found))
	}
	r.mu.Lock()
	for _, t := range found {
		if !slices.Contains(r.State.Loaded, t.Name()) {
			r.State.Loaded = append(r.State.Loaded, t.Name())
		}
		fmt.Fprintf(&b, "\n- %s: %s", t.Name(), clip(t.Description(), maxSearchDescription))
	}
	r.mu.Unlock()
	return toolreg.Output{Text: b.String()}
}

// clip cuts s to at most n bytes, at a character's start, marking the cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// search asks the host's searcher, turning a panic in it into an error:
// a streamed call of the search runs on a goroutine of the run's, where a
// panic would end the program.
func search(ctx context.Context, s agent.ToolSearcher, query string, candidates []toolreg.AnyTool, limit int) (names []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the tool searcher panicked: %v\n%s", toolreg.ErrToolPanic, p, debug.Stack())
		}
	}()
	return s.Search(ctx, query, candidates, limit)
}

// searchArgs checks a call of the tool search against the very schema the
// model is sent, as the registry checks any tool's: a wrong type, a member
// named twice, a limit out of range get the registry's own words.
var searchArgs = func() *toolreg.Tool[json.RawMessage, string] {
	t, err := toolreg.NewDynamic(agent.SearchToolName, "Checks a call of the tool search.", searchSchema,
		func(context.Context, json.RawMessage) (string, error) { return "", nil })
	if err != nil {
		panic("adapt: the tool search's schema: " + err.Error())
	}
	return t
}()
