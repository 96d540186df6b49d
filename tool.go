package toolreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/toolreg/toolreg/internal/args"
	"github.com/toolreg/toolreg/internal/reflectschema"
)

// AnyTool is a tool with its types erased: what a Registry stores and what
// adapters read. *Tool implements it; implement it yourself for tools whose
// schema is only known at run time. A Registry bounds the calls of a tool
// that also has a method Timeout() time.Duration (as *Tool does) by the
// duration it returns, when positive, and holds its results to the limit a
// method MaxResultBytes() int returns, as *Tool's does (see
// WithMaxResultBytes).
type AnyTool interface {
	Name() string
	Description() string
	// InputSchema is the JSON Schema of the arguments. Callers must not
	// modify the returned bytes.
	InputSchema() json.RawMessage
	// OutputSchema is the JSON Schema of Output.Structured, nil when the
	// result is plain text. Callers must not modify the returned bytes.
	OutputSchema() json.RawMessage
	// Invoke runs one call from a model. It must not panic: every failure
	// is an Output with IsError set.
	Invoke(ctx context.Context, args json.RawMessage) Output
}

// Tool is a typed function the model can call. Declare one with New or
// MustNew, usually as a package-level variable; test it with Call as a
// plain Go function; hand it to a Registry to serve models.
//
// A Tool is immutable and safe for concurrent use.
type Tool[Args, Result any] struct {
	name        string
	description string
	fn          func(context.Context, Args) (Result, error)
	opts        toolOptions

	input    json.RawMessage
	output   json.RawMessage
	check    *args.Checker     // checks and decodes a model's arguments
	examples []json.RawMessage // WithExamples, checked against the schema
	text     bool              // Result is string: the text verbatim, no structured result
	whole    bool              // Result is Output: the function words its result itself
	dynamic  bool              // declared with NewDynamic
}

// Option configures a tool at declaration.
type Option struct {
	apply func(*toolOptions)
}

type toolOptions struct {
	title     string
	timeout   time.Duration
	limits    args.Limits
	approval  bool
	approveIf any // WithApprovalIf's func(context.Context, Args) bool
	tags      []string
	output    json.RawMessage // NewDynamic's WithOutputSchema
	maxResult int             // WithMaxResultBytes; 0 for the registry's
	examples  []any           // WithExamples, as given
	deferred  bool            // WithDeferred

	group      string // WithGroup
	grouped    bool   // WithGroup was given, with any name
	sequential bool   // WithSequential
}

// Default limits on a call's arguments, changed per tool with
// WithMaxArgumentBytes, WithMaxDepth and WithMaxValues.
const (
	DefaultMaxArgumentBytes = 1 << 20 // 1 MiB
	DefaultMaxDepth         = 64      // nesting of objects and arrays
	DefaultMaxValues        = 10_000  // array items and object members
)

// WithTimeout bounds each call of the tool to d. The function's context is
// done at d; a function that ignores it still yields a timeout result on
// time (errors.Is ErrTimeout): its goroutine is abandoned, runs on until the
// function returns, and its result is dropped. So prefer functions that
// honour their context. The same holds for the registry's
// WithDefaultTimeout, and for the caller's own context under a registry's
// WithIsolatedCalls; otherwise the caller's context reaches the function
// through ctx, as in any Go call. A call bounded so runs the function on a
// goroutine of its own, which costs a few microseconds (the README's
// Performance section). An abandoned call of a tool in a concurrency group
// (WithGroup, WithSequential) holds its group's slot until the function
// returns.
func WithTimeout(d time.Duration) Option {
	return Option{func(o *toolOptions) { o.timeout = d }}
}

// WithMaxArgumentBytes refuses calls whose arguments are larger than n
// bytes (DefaultMaxArgumentBytes unless set), before reading them.
func WithMaxArgumentBytes(n int) Option {
	return Option{func(o *toolOptions) { o.limits.MaxBytes = n }}
}

// WithMaxDepth refuses calls whose arguments nest objects and arrays deeper
// than n levels (DefaultMaxDepth unless set).
func WithMaxDepth(n int) Option {
	return Option{func(o *toolOptions) { o.limits.MaxDepth = n }}
}

// WithMaxValues refuses calls whose arguments hold more than n values
// (array items and object members, at every depth; DefaultMaxValues unless
// set), before reading them. With the byte limit it bounds what one call
// costs: see the README's Limits.
func WithMaxValues(n int) Option {
	return Option{func(o *toolOptions) { o.limits.MaxValues = n }}
}

// WithApproval makes every call of the tool wait for the host's approval:
// a runner pauses the run with the call pending (see package agent), and
// runs it only once the host approves. Use it for tools with effects a
// person should confirm (send, pay, delete).
func WithApproval() Option {
	return Option{func(o *toolOptions) { o.approval = true }}
}

// WithTags labels the tool, for choosing which tools a step of a run offers
// (agent.Step) and for views of a registry (Registry.Select with Tagged).
func WithTags(tags ...string) Option {
	return Option{func(o *toolOptions) { o.tags = append(o.tags, tags...) }}
}

// WithExamples gives example arguments of the tool, as values of its Args
// type (json.RawMessage for a NewDynamic tool): a model shown a few good
// calls makes fewer bad ones. Each is checked against the tool's own schema
// at declaration; one it refuses is an error. Adapters send them where the
// provider takes them (Anthropic's input_examples), and toolregtest checks
// that each dispatches.
func WithExamples[A any](examples ...A) Option {
	return Option{func(o *toolOptions) {
		for _, ex := range examples {
			o.examples = append(o.examples, ex)
		}
	}}
}

// WithTitle sets a human-readable title, shown by clients that have one
// (MCP). The model-facing text stays the description.
func WithTitle(title string) Option {
	return Option{func(o *toolOptions) { o.title = title }}
}

// New declares a tool. The name must follow ValidName; the description
// tells the model when to use the tool (and when not to). Args must be a
// struct type (struct{} for a tool without arguments).
//
// New reflects the JSON Schema of Args and Result once and prepares the
// checker of every call's arguments. Every problem with the types is
// reported here, as an error wrapping ErrInvalidDeclaration that names the
// field, its Go type and the fix: never later, at call time. (The reference
// validator is compiled on the first call that needs it, so that declaring
// many tools stays cheap; whatever could keep it from compiling, a pattern
// or a type's own JSONSchema(), is compiled here.)
//
// The function's error reaches the model verbatim: the Output's Text is
// err.Error(), the text of the errors it wraps included, and its Err wraps
// ErrToolFailed and err. Write errors the model may read, saying what to
// do; keep errors from below (a driver's, a client's), which may hold
// secrets, from reaching it with ErrorText on the registry. Retry,
// StopRun and Interrupt say more than an error; see them.
//
// Schema rules: a field is required unless it is a pointer, has omitempty
// or omitzero, or has a default (jsonschema:"default=..."), which is
// applied when the model leaves the field out. Descriptions come from
// jsonschema:"description=..." or jsonschema_description; enum, minimum,
// maximum, pattern, format, minLength, maxLength, minItems and maxItems from
// the jsonschema tag.
func New[Args, Result any](name, description string, fn func(context.Context, Args) (Result, error), opts ...Option) (*Tool[Args, Result], error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if strings.TrimSpace(description) == "" {
		return nil, fmt.Errorf("%w: tool %q has an empty description; say when the model should use it", ErrInvalidDeclaration, name)
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %q has a nil function", ErrInvalidDeclaration, name)
	}
	o := toolOptions{limits: args.Limits{MaxBytes: DefaultMaxArgumentBytes, MaxDepth: DefaultMaxDepth, MaxValues: DefaultMaxValues}}
	for _, opt := range opts {
		if opt.apply != nil { // the zero Option does nothing
			opt.apply(&o)
		}
	}
	if o.grouped && o.group == "" {
		return nil, fmt.Errorf("%w: tool %q: WithGroup has an empty group name; name the group its tools share", ErrInvalidDeclaration, name)
	}
	t := &Tool[Args, Result]{name: name, description: description, fn: fn, opts: o}

	shape, input, err := reflectschema.Args(reflect.TypeFor[Args]())
	if err != nil {
		return nil, declarationError(name, "arguments", err)
	}
	t.input = input
	if t.check, err = args.Compile(shape, input, o.limits); err != nil {
		return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidDeclaration, name, err)
	}

	if o.output != nil {
		return nil, fmt.Errorf("%w: tool %q: WithOutputSchema is for NewDynamic; a typed tool's output schema is reflected from its Result", ErrInvalidDeclaration, name)
	}
	if err := t.result(); err != nil {
		return nil, err
	}
	if err := t.checkExamples(); err != nil {
		return nil, err
	}
	if err := t.checkApproveIf(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkExamples encodes the WithExamples values and checks each against
// the tool's own schema, as a model's call would be: an example the schema
// refuses would teach the model a call that fails.
func (t *Tool[A, R]) checkExamples() error {
	for i, ex := range t.opts.examples {
		a, ok := ex.(A)
		if !ok {
			return fmt.Errorf("%w: tool %q: example %d is a %T; the tool's arguments are a %v", ErrInvalidDeclaration, t.name, i+1, ex, reflect.TypeFor[A]())
		}
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("%w: tool %q: example %d does not encode as JSON: %v", ErrInvalidDeclaration, t.name, i+1, err)
		}
		var back A
		problems, err := t.check.Decode(b, reflect.ValueOf(&back).Elem())
		if err != nil {
			return fmt.Errorf("%w: tool %q: %v", ErrInvalidDeclaration, t.name, err)
		}
		if problems != nil {
			ps := make([]Problem, len(problems))
			for i, p := range problems {
				ps[i] = Problem(p)
			}
			return fmt.Errorf("%w: tool %q: example %d is refused by the tool's own schema: %v", ErrInvalidDeclaration, t.name, i+1, &ArgumentError{Tool: t.name, Problems: ps})
		}
		t.examples = append(t.examples, b)
	}
	return nil
}

// result describes the tool's Result: text, a whole Output, or JSON with
// an output schema.
func (t *Tool[A, R]) result() error {
	rt := reflect.TypeFor[R]()
	switch rt {
	case reflect.TypeFor[string]():
		t.text = true
		return nil
	case reflect.TypeFor[Output]():
		t.whole, t.output = true, t.opts.output
		return nil
	}
	oshape, output, err := reflectschema.Result(rt)
	if err != nil {
		return declarationError(t.name, "result", err)
	}
	t.output = output
	if oshape.HasHook() {
		// A type's own JSONSchema() may write anything; the reflected
		// rest is checked by the package's tests.
		if _, err := args.CompileSchema(t.output, 0); err != nil {
			return fmt.Errorf("%w: tool %q: the result schema %v", ErrInvalidDeclaration, t.name, err)
		}
	}
	return nil
}

// declarationError words a type the reflector refused.
func declarationError(tool, what string, err error) error {
	var re *reflectschema.Error
	if errors.As(err, &re) {
		err = &DeclarationError{Path: re.Path, Type: re.Type, Why: re.Why, Fix: re.Fix}
	} else {
		err = fmt.Errorf("%w: %v", ErrInvalidDeclaration, err)
	}
	if what == "arguments" && re != nil && re.Path == "" {
		return fmt.Errorf("tool %q: %w", tool, err)
	}
	return fmt.Errorf("tool %q: %s: %w", tool, what, err)
}

// MustNew is New for package-level declarations: it panics if New fails,
// which a test of the package then reports at once.
func MustNew[Args, Result any](name, description string, fn func(context.Context, Args) (Result, error), opts ...Option) *Tool[Args, Result] {
	t, err := New(name, description, fn, opts...)
	if err != nil {
		panic("toolreg: " + err.Error())
	}
	return t
}

// Name is the tool's name, as the model calls it.
func (t *Tool[A, R]) Name() string { return t.name }

// Description tells the model when to use the tool.
func (t *Tool[A, R]) Description() string { return t.description }

// Title is the human-readable title set with WithTitle, or "".
func (t *Tool[A, R]) Title() string { return t.opts.title }

// Dynamic reports whether the tool was declared with NewDynamic, from a
// schema rather than a Go type. Adapters send a dynamic tool whose schema
// their strict mode cannot express non-strict, rather than fail.
func (t *Tool[A, R]) Dynamic() bool { return t.dynamic }

// Examples are the tool's example arguments (WithExamples) as JSON, each
// valid under its input schema. Callers must not modify them.
func (t *Tool[A, R]) Examples() []json.RawMessage { return t.examples }

// NeedsApproval reports whether every call of the tool waits for approval
// (WithApproval); NeedsApprovalFor also applies WithApprovalIf's rule.
func (t *Tool[A, R]) NeedsApproval() bool { return t.opts.approval }

// Tags are the tool's labels, from WithTags. Callers must not modify the
// returned slice.
func (t *Tool[A, R]) Tags() []string { return t.opts.tags }

// InputSchema is the canonical JSON Schema of Args, reflected once at
// declaration. Callers must not modify the returned bytes.
func (t *Tool[A, R]) InputSchema() json.RawMessage { return t.input }

// OutputSchema is the JSON Schema of the structured result, or nil when
// Result is string. Callers must not modify the returned bytes.
func (t *Tool[A, R]) OutputSchema() json.RawMessage { return t.output }

// Call runs the tool's function directly with args and returns what it
// returns: the typed path, for tests and Go callers. It is the function
// and nothing else; the model's path (Invoke, and Registry.Call, which
// runs Invoke through the registry) does more, and Call skips all of it:
//
//   - validation: args are not checked against the input schema (enum,
//     minimum, pattern, required fields...) nor against the argument
//     limits (WithMaxArgumentBytes, WithMaxDepth, WithMaxValues);
//   - defaults: a jsonschema:"default=..." is not applied to a field
//     left at its zero value;
//   - middleware: the registry's middleware (Registry.Use), which
//     Registry.Call runs around Invoke, does not see the call (no
//     Logging, no ErrorText);
//   - timeouts: neither WithTimeout (Invoke's) nor the registry's
//     WithDefaultTimeout bounds it; only ctx's own deadline, which the
//     function must honour itself (as under Invoke and Registry.Call
//     without those timeouts or WithIsolatedCalls);
//   - panic recovery: a panic in the function propagates as it would
//     from any Go call, not as an Output wrapping a *PanicError;
//   - result encoding: the result is not encoded as JSON into an Output,
//     and the error is returned as the function returned it, not wrapped
//     in ErrToolFailed;
//   - a done context: Invoke refuses to start a call whose ctx is already
//     cancelled or past its deadline; Call runs the function anyway;
//   - the registry's own checks: Registry.Call looks the tool up by name,
//     refuses calls with ErrOverloaded while too many abandoned calls
//     still run (WithMaxAbandoned), and gives the function the call's
//     information (Info(ctx): id, run, step, attempt), which Call does
//     not set: under Call, Info(ctx) is what ctx already carries, the
//     zero CallInfo for a context of the caller's own.
//
// Approval is not checked either: WithApproval and WithApprovalIf are
// asked by runners (Registry.NeedsApproval) before a model's call runs,
// never by Invoke or Registry.Call, so Call runs at once.
func (t *Tool[A, R]) Call(ctx context.Context, args A) (R, error) {
	return t.fn(ctx, args)
}

// Invoke runs one call from a model, the model's path without the
// registry: it validates arguments against the input schema and the
// argument limits, decodes them strictly (exact-case keys, no unknown
// fields, defaults filled in), calls the function under the tool's timeout
// (WithTimeout) and encodes its result. The function runs on the caller's
// goroutine unless the tool has a timeout of its own. Empty, blank or null
// arguments mean {}. Use it to test a tool as a model meets it; a host
// dispatches through Registry.Call, which adds the registry's middleware
// and bounds. Invoke never panics; every failure is an Output with IsError
// set, a message for the model and Err for the host.
func (t *Tool[A, R]) Invoke(ctx context.Context, arguments json.RawMessage) Output {
	return t.invokeFrom(ctx, nil, arguments)
}

// bare is the Tool itself, not a type that embeds it (see registered).
func (t *Tool[A, R]) bare() AnyTool { return t }

// invokeFrom is Invoke, for the registry r whose dispatch called it (nil
// for none): see call.
func (t *Tool[A, R]) invokeFrom(ctx context.Context, r *Registry, arguments json.RawMessage) (out Output) {
	defer func() {
		if r := recover(); r != nil {
			out = internalOutput(t.name, r, debug.Stack())
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return contextOutput(t.name, err, 0)
	}
	var a A
	if out, ok := t.decode(arguments, &a); !ok {
		return out
	}
	return t.call(ctx, r, a)
}

// decode checks arguments and decodes them into a, as Invoke, Check and
// NeedsApprovalFor do: ok, or the Output the model reads.
func (t *Tool[A, R]) decode(arguments json.RawMessage, a *A) (Output, bool) {
	problems, err := t.check.Decode(arguments, reflect.ValueOf(a).Elem())
	if err != nil {
		return Output{Text: fmt.Sprintf("tool %q cannot check its arguments (an internal error, not caused by your arguments)", t.name), IsError: true,
			Err: fmt.Errorf("%w: tool %q: %v", ErrInternal, t.name, err)}, false
	}
	if problems != nil {
		ps := make([]Problem, len(problems))
		for i, p := range problems {
			ps[i] = Problem(p)
		}
		return invalidOutput(t.name, ps), false
	}
	return Output{}, true
}

// call runs the function within the tool's timeout and its caller's
// context. Under a registry, a call of a tool in a group first takes its
// group's slot (see grouped), and the registry's deadline (its timeout and the
// tool's, already applied) bounds it when the registry bounds calls (see
// Registry.dispatch), and abandoned functions count toward the registry's
// WithMaxAbandoned. Otherwise the function runs on this goroutine, and a
// cancellation or a deadline of the caller reaches it through ctx; only the
// tool's own timeout is enforced whatever the function does.
func (t *Tool[A, R]) call(ctx context.Context, r *Registry, a A) Output {
	if r != nil {
		if t.opts.sequential || t.opts.group != "" {
			return r.grouped(ctx, t.name, grouping{group: t.opts.group, sequential: t.opts.sequential}, func(ctx context.Context) Output { return t.run(ctx, a) })
		}
		if ctx.Done() != nil {
			if timeout := r.timeoutOf(r.snap.Load(), t.name); r.bounds(timeout) {
				return bound(ctx, t.name, timeout, &r.abandoned, func(ctx context.Context) Output { return t.run(ctx, a) })
			}
		}
		return t.run(ctx, a)
	}
	if t.opts.timeout == 0 {
		return t.run(ctx, a)
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.timeout)
	defer cancel()
	return bound(ctx, t.name, t.opts.timeout, nil, func(ctx context.Context) Output { return t.run(ctx, a) })
}

func (t *Tool[A, R]) run(ctx context.Context, a A) (out Output) {
	defer func() {
		if r := recover(); r != nil {
			out = panicOutput(t.name, r, debug.Stack())
		}
	}()
	res, err := t.fn(ctx, a)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return contextOutput(t.name, cerr, t.opts.timeout)
		}
		return errorOutput(t.name, err)
	}
	return t.encode(res)
}

// Timeout returns the tool's own timeout (WithTimeout), 0 for none. A
// registry applies it to the whole call, the middleware's context
// included; a host that runs calls elsewhere (a durable workflow's
// activities) bounds them with it.
func (t *Tool[A, R]) Timeout() time.Duration { return t.opts.timeout }

func (t *Tool[A, R]) encode(res R) Output {
	switch {
	case t.text:
		return Output{Text: any(res).(string)}
	case t.whole:
		out := any(res).(Output)
		if out.IsError && out.Err == nil {
			out.Err = fmt.Errorf("%w: tool %q: %s", ErrToolFailed, t.name, out.Text)
		}
		return out
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the model reads "<" better than "\u003c"
	if err := enc.Encode(res); err != nil {
		return Output{
			Text:    fmt.Sprintf("tool %q produced a result that could not be encoded; this is a bug in the tool, not in your arguments", t.name),
			IsError: true,
			Err:     fmt.Errorf("%w: tool %q: %v", ErrInvalidResult, t.name, err),
		}
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return Output{Text: string(b), Structured: b}
}

func invalidOutput(tool string, ps []Problem) Output {
	err := &ArgumentError{Tool: tool, Problems: ps}
	return Output{Text: err.Error() + "\nFix the arguments and call the tool again.", IsError: true, Err: err}
}

func errorOutput(tool string, err error) Output {
	var ie *InterruptError
	if errors.As(err, &ie) {
		return Output{
			Text:    fmt.Sprintf("tool %q is waiting for an answer from the host, which this call cannot give", tool),
			IsError: true,
			Err:     fmt.Errorf("tool %q: %w", tool, err),
		}
	}
	text := err.Error()
	if text == "" {
		text = fmt.Sprintf("tool %q failed without saying why", tool)
	}
	if errors.Is(err, ErrRetry) {
		text += "\nFix this and call the tool again."
	}
	return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: tool %q: %w", ErrToolFailed, tool, err)}
}

func panicOutput(tool string, r any, stack []byte) Output {
	return Output{
		Text:    fmt.Sprintf("tool %q failed unexpectedly (an internal error, not caused by your arguments); do not retry the same call", tool),
		IsError: true,
		Err:     &PanicError{Tool: tool, Value: r, Stack: stack},
	}
}

// internalOutput reports a panic of the library itself, outside the tool.
func internalOutput(tool string, r any, stack []byte) Output {
	return Output{
		Text:    fmt.Sprintf("tool %q could not handle this call because of an internal error, not caused by your arguments", tool),
		IsError: true,
		Err:     &PanicError{Tool: tool, Value: r, Stack: stack, Internal: true},
	}
}
