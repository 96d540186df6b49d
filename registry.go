package toolreg

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolreg/toolreg/internal/slot"
)

// DefaultMaxConcurrency bounds how many calls of one CallAll run at once
// unless WithMaxConcurrency says otherwise. Tools mostly wait on I/O, so the
// bound is above the core count.
const DefaultMaxConcurrency = 16

// Registry holds tools of any Args and Result types by name: it emits their
// definitions (Tools) and dispatches a model's calls (Call, CallAll). A
// Registry is safe for concurrent use; tools may be added while calls run.
type Registry struct {
	mu           sync.Mutex // serialises Add, Use and OnAdd; readers use the snapshots
	snap         atomic.Pointer[snapshot]
	chain        atomic.Pointer[chain] // dispatch wrapped in the middleware
	mws          []Middleware
	concurrency  int
	timeout      time.Duration
	maxAbandoned int
	isolated     bool // WithIsolatedCalls
	abandoned    atomic.Int64
	logger       *slog.Logger
	approval     func(ToolCall) bool
	maxResult    int // WithDefaultMaxResultBytes; NoResultLimit for none
	spill        func(context.Context, ToolCall, Output) (string, error)
	onAdd        []listener // in registration order
	nextID       int
	view         *view          // set on a view of another registry (Select)
	groupLimits  map[string]int // WithGroupLimit
	groups       sync.Map       // groupKey → *slot.Sema, made on first use
}

// chain is the handler every call goes through, and whether middleware
// wraps the registry's dispatch in it.
type chain struct {
	h          Handler
	refuse     Handler // the middleware around a refusal (Refuse) in place of dispatch
	middleware bool
}

type listener struct {
	id int
	fn func([]AnyTool)
}

// toolTimeout is a tool's own timeout, 0 for none.
func toolTimeout(t AnyTool) time.Duration {
	if tt, ok := t.(interface{ Timeout() time.Duration }); ok {
		return tt.Timeout()
	}
	return 0
}

// RegistryOption configures a Registry.
type RegistryOption struct {
	apply func(*Registry)
}

// WithMaxConcurrency bounds how many calls of one CallAll run at once;
// n < 1 means 1.
//
// The bound is per CallAll: two turns running at the same time (two
// conversations on one registry) may each run n calls. The concurrency
// groups (WithGroup, WithGroupLimit, WithSequential) are registry-wide
// instead: their bound holds across every CallAll, Call, runner and MCP
// session of the registry and its views. A call runs when both allow it:
// it takes a slot of its turn's bound, and a call whose group is full gives
// that slot back while it waits for the group, so a full group does not
// hold up the turn's other calls. With n = 16 and a group limited to 2, a
// turn of 10 calls of the group runs 2 at a time; one of 10 calls of other
// tools runs all 10 at once.
func WithMaxConcurrency(n int) RegistryOption {
	return RegistryOption{func(r *Registry) { r.concurrency = max(n, 1) }}
}

// WithDefaultTimeout bounds every call of the registry's tools to d, on
// top of a tool's own WithTimeout (the shorter wins). The middleware runs
// under the same deadline and gets the timeout Output from the tool's
// Handler at the deadline, even from a tool that ignores its context; see
// WithTimeout.
func WithDefaultTimeout(d time.Duration) RegistryOption {
	return RegistryOption{func(r *Registry) { r.timeout = d }}
}

// WithIsolatedCalls runs every call whose context can end on a goroutine
// of its own, so that its caller gets a timeout or cancellation Output as
// soon as the caller's context ends, even from a function that ignores its
// context (which is then abandoned: see WithMaxAbandoned).
//
// Use it when the registry runs tools you cannot trust to honour their
// context (a library that blocks without one) and a caller must never wait
// past its deadline. Without it, a call runs on its caller's goroutine and
// the caller's context reaches the function through ctx, as in any Go call:
// a function that honours it returns as promptly either way, one that
// ignores it holds its caller until it returns. Timeouts the host set on
// the library itself (WithTimeout, WithDefaultTimeout) are enforced either
// way, on a goroutine of the call's own.
//
// A deadline a middleware adds to the call's context is bound the same
// way under WithIsolatedCalls, and only then.
//
// The goroutine costs: a call under a cancellable context takes several
// times as long as on the caller's goroutine (the README's Performance
// section; bench/contexts_test.go), which is why it is not the default.
func WithIsolatedCalls() RegistryOption {
	return RegistryOption{func(r *Registry) { r.isolated = true }}
}

// DefaultMaxAbandoned bounds the calls a registry lets run on after their
// deadline unless WithMaxAbandoned says otherwise.
const DefaultMaxAbandoned = 1000

// WithMaxAbandoned bounds how many calls may still be running after their
// deadline (functions that ignore their context, each holding a goroutine);
// while n are, new calls are refused at once with an Output whose Err
// matches ErrOverloaded. n < 1 means no bound. Read the count with
// Abandoned.
func WithMaxAbandoned(n int) RegistryOption {
	return RegistryOption{func(r *Registry) { r.maxAbandoned = n }}
}

// WithLogger sets where the registry reports what goes wrong on the host's
// side and has no caller to return to (an OnAdd listener that panics).
// The default is slog.Default().
func WithLogger(l *slog.Logger) RegistryOption {
	return RegistryOption{func(r *Registry) { r.logger = l }}
}

// NewRegistry returns an empty registry.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{concurrency: DefaultMaxConcurrency, maxAbandoned: DefaultMaxAbandoned, maxResult: DefaultMaxResultBytes}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(r)
		}
	}
	if r.logger == nil {
		r.logger = slog.Default()
	}
	r.snap.Store(&snapshot{})
	r.chain.Store(&chain{h: HandlerFunc(r.dispatch), refuse: HandlerFunc(refused)})
	return r
}

// Abandoned is the number of the registry's calls still running after
// their deadline, for metrics; see WithMaxAbandoned.
func (r *Registry) Abandoned() int { return int(r.root().abandoned.Load()) }

// Add registers tools. A nil tool, an invalid name or a name already taken
// (in the registry or twice in tools) is an error, and then nothing is
// added. Errors wrap ErrInvalidDeclaration (an invalid name also
// ErrInvalidName) or ErrDuplicateTool. Adding tools one Add at a time
// costs about what adding them in one Add does, in a registry of any size.
func (r *Registry) Add(tools ...AnyTool) error {
	if r.view != nil {
		return fmt.Errorf("%w: a view of a registry cannot add tools; add them to the registry it views", ErrInvalidDeclaration)
	}
	listeners, err := r.add(tools)
	if err != nil {
		return err
	}
	for _, l := range listeners {
		r.notify(l, append([]AnyTool(nil), tools...))
	}
	return nil
}

// notify calls one OnAdd listener; a panic in it is reported, and the
// other listeners are called all the same.
func (r *Registry) notify(l listener, added []AnyTool) {
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("toolreg: an OnAdd listener panicked", "listener", l.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	l.fn(added)
}

// add stores tools and returns the OnAdd listeners to call, outside the
// lock.
func (r *Registry) add(tools []AnyTool) ([]listener, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	names := make([]string, len(tools))
	var given map[string]int // position in tools, by name, for a batch too long to search
	if len(tools) > 8 {
		given = make(map[string]int, len(tools))
	}
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("%w: tool %d of %d is nil", ErrInvalidDeclaration, i+1, len(tools))
		}
		name := t.Name()
		if err := ValidName(name); err != nil {
			return nil, err
		}
		if j, twice := earlier(names[:i], name, given); twice {
			return nil, fmt.Errorf("%w: tools %d and %d of this Add call are both named %q; give each tool its own name", ErrDuplicateTool, j+1, i+1, name)
		}
		if _, dup := old.lookup(name); dup {
			return nil, fmt.Errorf("%w: a tool named %q is already registered", ErrDuplicateTool, name)
		}
		names[i] = name
		if given != nil {
			given[name] = i
		}
	}
	r.snap.Store(old.with(tools, names))
	return slices.Clone(r.onAdd), nil
}

// earlier is the position of the tool named name among before, through
// given when there is one.
func earlier(before []string, name string, given map[string]int) (int, bool) {
	if given != nil {
		j, ok := given[name]
		return j, ok
	}
	j := slices.Index(before, name)
	return j, j >= 0
}

// OnAdd calls fn after every successful Add with the tools it added, on
// the goroutine that called Add and outside the registry's lock (fn may use
// the registry). Listeners are called in the order they were registered; a
// listener that panics is reported to the registry's logger (WithLogger)
// and cannot break Add or keep the others from being called. Use it to
// keep a view of the registry in step: the MCP adapter tells connected
// clients of new tools with it. The returned func removes fn.
func (r *Registry) OnAdd(fn func(added []AnyTool)) (remove func()) {
	if r.view != nil {
		return r.view.onAdd(fn)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.nextID
	r.nextID++
	r.onAdd = append(r.onAdd, listener{id: id, fn: fn})
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.onAdd = slices.DeleteFunc(slices.Clone(r.onAdd), func(l listener) bool { return l.id == id })
	}
}

// MustAdd is Add for set-up code: it panics if Add fails.
func (r *Registry) MustAdd(tools ...AnyTool) {
	if err := r.Add(tools...); err != nil {
		panic("toolreg: " + err.Error())
	}
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (AnyTool, bool) {
	return r.snapshot().lookup(name)
}

// Tools lists the registered tools in registration order, for emitting
// definitions. The slice is the caller's to keep.
func (r *Registry) Tools() []AnyTool {
	return append([]AnyTool(nil), r.snapshot().tools...)
}

// Len is the number of registered tools.
func (r *Registry) Len() int { return len(r.snapshot().tools) }

// Call dispatches one call by name, through the middleware. An unknown
// name is an Output with IsError, an Err wrapping ErrUnknownTool, and a Text
// naming the available tools, closest first: all of them in a registry of
// at most 20 tools, else the 5 nearest and how many there are.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) Output {
	return r.handle(ctx, ToolCall{Name: name, Arguments: args})
}

// handle runs one call through the middleware, within the call's
// deadline: the caller's, the registry's WithDefaultTimeout and the tool's
// WithTimeout, the shortest. The middleware runs on the caller's
// goroutine, and so does the tool unless a timeout of the library or
// WithIsolatedCalls bounds it (see dispatch): at the deadline the
// middleware then sees the timeout Output the caller gets, and logs,
// traces and counts the call as that. A panicking middleware is an Output
// too.
func (r *Registry) handle(ctx context.Context, call ToolCall) (out Output) {
	if r.view != nil {
		return r.view.handle(ctx, call)
	}
	defer func() {
		if p := recover(); p != nil {
			out = internalOutput(call.Name, p, debug.Stack())
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if n := r.abandoned.Load(); r.maxAbandoned > 0 && n >= int64(r.maxAbandoned) {
		return r.Refuse(ctx, call, overloadedOutput(call.Name, n)) // the middleware records the refusal
	}
	if timeout := r.timeoutOf(r.snap.Load(), call.Name); timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	c := r.chain.Load()
	cc := &callContext{Context: ctx, call: call}
	out = c.h.HandleCall(cc, call)
	if c.middleware && out.Text == "" && out.Structured == nil && len(out.Media) == 0 && !out.IsError && out.Err == nil && cc.reached.Load() == nil {
		// A middleware answered with an empty Output without calling the
		// tool: a bug, not an empty success.
		return Output{
			Text:    fmt.Sprintf("tool %q could not handle this call because of an internal error, not caused by your arguments", call.Name),
			IsError: true,
			Err:     fmt.Errorf("%w: tool %q: a middleware returned an empty Output without calling the tool", ErrInternal, call.Name),
		}
	}
	return out
}

// timeoutOf is the registry's timeout of a call of the tool named name:
// the registry's WithDefaultTimeout or the tool's own, the shorter; 0 for
// none.
func (r *Registry) timeoutOf(snap *snapshot, name string) time.Duration {
	timeout := r.timeout
	if snap.timeouts {
		if t, ok := snap.lookup(name); ok {
			if d := toolTimeout(t); d > 0 && (timeout == 0 || d < timeout) {
				timeout = d
			}
		}
	}
	return timeout
}

// dispatch is the innermost Handler: lookup and the tool. The tool runs
// on the caller's goroutine, the caller's context reaching its function
// through ctx, unless the call must end at its deadline whatever the
// function does (a timeout of the library, or WithIsolatedCalls; see
// bounds): then the function runs on a goroutine of its own and dispatch
// returns a timeout or cancellation Output as soon as the context is done
// (see bound). A Tool checks and decodes its arguments on the caller's
// goroutine and bounds only its function (Tool.call), so that a new
// goroutine's stack stays small; any other AnyTool is bounded Invoke and
// all. Every result is then held to its result limit (see limitResult).
func (r *Registry) dispatch(ctx context.Context, call ToolCall) Output {
	snap := r.snap.Load()
	t, ok := snap.lookup(call.Name)
	if c := callContextOf(ctx); c != nil {
		c.reached.Store(r)
	}
	if !ok {
		return r.limitResult(ctx, call, nil, unknownToolOutput(call.Name, snap.names))
	}
	return r.limitResult(ctx, call, t, r.invokeTool(ctx, snap, t, call))
}

// invokeTool runs a call of the tool t, as dispatch says.
func (r *Registry) invokeTool(ctx context.Context, snap *snapshot, t AnyTool, call ToolCall) Output {
	if rt, ok := t.(registered); ok && rt.bare() == t {
		return rt.invokeFrom(ctx, r, call.Arguments)
	}
	if g := groupingOf(t); g.any() {
		return r.grouped(ctx, call.Name, g, func(ctx context.Context) Output { return invoke(ctx, t, call) })
	}
	if ctx.Done() != nil {
		if timeout := r.timeoutOf(snap, call.Name); r.bounds(timeout) {
			return bound(ctx, call.Name, timeout, &r.abandoned, func(ctx context.Context) Output { return invoke(ctx, t, call) })
		}
	}
	return invoke(ctx, t, call)
}

// bounds reports whether a call whose context can end, with the registry's
// timeout timeout (0 for none), runs on a goroutine of its own: when the
// host asked the library to end it on time, with a timeout or with
// WithIsolatedCalls.
func (r *Registry) bounds(timeout time.Duration) bool { return timeout > 0 || r.isolated }

// registered is a Tool: its Invoke turns its own panics into Outputs, and
// the registry that dispatches a call tells it so (invokeFrom), whatever
// the middleware did to the call on the way. A type that embeds a *Tool
// has these methods too but may have an Invoke of its own: bare tells the
// Tool itself from it, which is dispatched as any hand-written tool.
type registered interface {
	AnyTool
	invokeFrom(ctx context.Context, r *Registry, arguments json.RawMessage) Output
	bare() AnyTool
}

// invoke calls a hand-written tool's Invoke, which may panic: the tool's
// failure, not the library's.
func invoke(ctx context.Context, t AnyTool, call ToolCall) (out Output) {
	defer func() {
		if p := recover(); p != nil {
			out = panicOutput(call.Name, p, debug.Stack())
		}
	}()
	return t.Invoke(ctx, call.Arguments)
}

// CallAll runs calls concurrently, at most the registry's concurrency bound
// at once (WithMaxConcurrency), through the middleware, and returns their
// outputs in call order. When ctx is done, calls not yet started return a
// cancellation Output at once; running ones return when their function
// does, as Call's do: at once from a function that honours its context,
// and from any function under WithIsolatedCalls or a timeout of the
// library.
//
// The calls run on the caller's goroutine, one after the other; a turn
// still running after 50 µs (a call that waits, or many calls) goes on on
// as many more goroutines as it takes to keep every call that waits from
// holding up the others, up to the bound. A turn of quick calls thus costs
// about what the calls cost one after the other and starts no goroutine; a
// turn of slow ones about the slowest, plus those 50 µs (more on a loaded
// machine, whose timers run late). A call waiting for its tool's group
// (WithGroup, WithSequential) does not count toward the bound while it
// waits, and starts the next goroutine at once: the turn's other calls run
// beside the group's queue.
func (r *Registry) CallAll(ctx context.Context, calls []ToolCall) []Output {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(calls) == 1 { // a turn of one has nothing to run beside its call
		out := make([]Output, 1)
		if err := ctx.Err(); err != nil {
			out[0] = contextOutput(calls[0].Name, err, 0)
		} else {
			out[0] = r.handle(ctx, calls[0])
		}
		return out
	}
	t := &turn{Context: ctx, r: r, calls: calls, out: make([]Output, len(calls))}
	t.slots.Limit = int32(min(len(calls), r.root().concurrency))
	t.slots.Force() // the caller's
	h := helpers.Get().(*helper)
	h.turn.Store(t)
	t.wg.Add(1) // the timer's, done by fire if it fires
	h.timer.Reset(helpAfter)
	t.work()
	if h.timer.Stop() { // not fired: nothing else can read h
		t.wg.Done()
		h.turn.Store(nil)
		helpers.Put(h)
	}
	t.slots.Release()
	t.wg.Wait()
	return t.out
}

// helpAfter is how long CallAll runs a turn's calls on its caller's
// goroutine alone: a turn still running then is given more goroutines (see
// CallAll). Starting a goroutine and handing calls to it costs more than a
// quick call itself, and a goroutine that has nothing to claim is a cost
// with nothing to show; a call that waits is held up by helpAfter at most
// (a little more on a loaded machine, where the runtime's timers run
// late), not by the call before it.
const helpAfter = 50 * time.Microsecond

// helper is the timer that gives a turn more goroutines at helpAfter.
// Timers are kept for the next turn when stopped in time, since making one
// costs a quick call's worth of allocation; one that fired stays with its
// turn.
type helper struct {
	timer *time.Timer
	turn  atomic.Pointer[turn]
}

var helpers = sync.Pool{New: func() any {
	h := new(helper)
	h.timer = time.AfterFunc(time.Hour, h.fire)
	h.timer.Stop()
	return h
}}

// fire runs on a goroutine of its own: it becomes the turn's second worker.
func (h *helper) fire() {
	t := h.turn.Load() // set: a helper is pooled only when stopped in time
	defer t.wg.Done()
	t.help()
}

// turn is one CallAll: its calls are claimed in order by the goroutines
// working on it, the caller first. Each goroutine holds one of the turn's
// slots, but while its call waits for a group (see Release). The turn is
// the context of its calls (the caller's, and the turn as their
// slot.Holder), which costs no allocation of its own.
type turn struct {
	context.Context // the caller's
	r               *Registry
	calls           []ToolCall
	out             []Output
	next            atomic.Int64   // the next call to claim
	pending         atomic.Bool    // a goroutine was started and has not claimed a call yet
	helped          atomic.Bool    // helpAfter has passed: every call starts a spare goroutine (grow)
	slots           slot.Sema      // the bound: goroutines working on the turn
	wg              sync.WaitGroup // the goroutines working on the turn but the caller's, and its timer
}

// help is the turn's second worker, from helpAfter on.
func (t *turn) help() {
	t.helped.Store(true)
	if int(t.next.Load()) < len(t.calls) && t.slots.TryAcquire() {
		t.work()
		t.slots.Release()
	}
}

// work claims calls and runs them until none is left.
func (t *turn) work() {
	for {
		i := int(t.next.Add(1)) - 1
		if i >= len(t.calls) {
			return
		}
		if err := t.Context.Err(); err != nil {
			t.out[i] = contextOutput(t.calls[i].Name, err, 0)
			continue
		}
		t.grow(i)
		t.out[i] = t.r.handle(t, t.calls[i])
	}
}

// grow starts one more goroutine before call i runs, once the turn has
// run for helpAfter, when calls after it are still unclaimed, the bound
// allows one and no goroutine started earlier is still waiting to claim its
// first call: should call i wait, the next one claims the rest (and starts
// one more itself before its call runs). Quick calls are thus run by the
// goroutines already working, and slow ones each get a goroutine of their
// own, up to the bound.
func (t *turn) grow(i int) {
	if t.helped.Load() && i+1 < len(t.calls) {
		t.spawn()
	}
}

func (t *turn) spawn() {
	if t.pending.Load() || t.slots.Held() >= int(t.slots.Limit) {
		return
	}
	if !t.pending.CompareAndSwap(false, true) {
		return // another goroutine is starting one
	}
	if !t.slots.TryAcquire() {
		t.pending.Store(false)
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.pending.Store(false)
		t.work()
		t.slots.Release()
	}()
}

// Value answers slot.Key with the turn.
func (t *turn) Value(key any) any {
	if key == (slot.Key{}) {
		return t
	}
	return t.Context.Value(key)
}

// Release gives back the slot of a goroutine whose call waits for its
// group, and starts another to claim the calls left, if any; and gives
// back the slot the turn's caller holds of a bound of its own (a run's
// early starts), if it does.
func (t *turn) Release() {
	t.slots.Release()
	if int(t.next.Load()) < len(t.calls) {
		t.spawn()
	}
	if outer := slot.HolderOf(t.Context); outer != nil {
		outer.Release()
	}
}

// Reclaim takes the slots Release gave back again, the outer first, for a
// call that waited for its group.
func (t *turn) Reclaim(ctx context.Context) {
	if outer := slot.HolderOf(t.Context); outer != nil {
		outer.Reclaim(ctx)
	}
	if t.slots.Acquire(ctx) != nil {
		t.slots.Force()
	}
}
