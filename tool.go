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
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// AnyTool is a tool with its types erased: what a Registry stores and what
// adapters read. *Tool implements it; implement it yourself for tools whose
// schema is only known at run time.
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

	input  json.RawMessage
	output json.RawMessage

	// The reference validator, compiled on first use: valid calls take the
	// fast path and never need it, so declaring many tools stays cheap.
	compileOnce  sync.Once
	validator    *jsonschema.Schema
	validatorErr error
	plan         *node
	fast         *fnode // nil when the schema is beyond the fast path
	text         bool   // Result is string: the text verbatim, no structured result
}

// Option configures a tool at declaration.
type Option func(*toolOptions)

type toolOptions struct {
	title    string
	timeout  time.Duration
	maxBytes int
	maxDepth int
}

// Default limits on a call's arguments, changed per tool with
// WithMaxArgumentBytes and WithMaxDepth.
const (
	DefaultMaxArgumentBytes = 1 << 20 // 1 MiB
	DefaultMaxDepth         = 64      // nesting of objects and arrays
)

// WithTimeout bounds each call of the tool to d. The function's context is
// done at d; a function that ignores it still yields a timeout result on
// time (errors.Is ErrTimeout): its goroutine is abandoned, runs on until the
// function returns, and its result is dropped. So prefer functions that
// honour their context. The same holds for any deadline of the caller's
// context or the registry's WithDefaultTimeout; a call under a deadline
// runs the function on a goroutine of its own (about 1µs more).
func WithTimeout(d time.Duration) Option {
	return func(o *toolOptions) { o.timeout = d }
}

// WithMaxArgumentBytes refuses calls whose arguments are larger than n
// bytes (DefaultMaxArgumentBytes unless set), before reading them.
func WithMaxArgumentBytes(n int) Option {
	return func(o *toolOptions) { o.maxBytes = n }
}

// WithMaxDepth refuses calls whose arguments nest objects and arrays deeper
// than n levels (DefaultMaxDepth unless set).
func WithMaxDepth(n int) Option {
	return func(o *toolOptions) { o.maxDepth = n }
}

// WithTitle sets a human-readable title, shown by clients that have one
// (MCP). The model-facing text stays the description.
func WithTitle(title string) Option {
	return func(o *toolOptions) { o.title = title }
}

// New declares a tool. The name must follow ValidName; the description
// tells the model when to use the tool (and when not to). Args must be a
// struct type (struct{} for a tool without arguments).
//
// New reflects the JSON Schema of Args and Result once, and compiles the
// validator used for every call. Every problem with the types is reported
// here, as an error wrapping ErrInvalidDeclaration that names the field,
// its Go type and the fix: never later, at call time.
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
	o := toolOptions{maxBytes: DefaultMaxArgumentBytes, maxDepth: DefaultMaxDepth}
	for _, opt := range opts {
		opt(&o)
	}
	t := &Tool[Args, Result]{name: name, description: description, fn: fn, opts: o}

	at := reflect.TypeFor[Args]()
	if at.Kind() != reflect.Struct || hasSchemaHook(at) {
		return nil, fmt.Errorf("tool %q: %w", name, &DeclarationError{Type: at.String(),
			Why: "the arguments must be a plain struct type: every provider wants a JSON object",
			Fix: "wrap the value in a struct field, or use struct{} for a tool without arguments"})
	}
	plan, err := newAnalyzer(false).analyze(at, "")
	if err != nil {
		return nil, fmt.Errorf("tool %q: arguments: %w", name, err)
	}
	if t.input, err = schemaOf(at, plan, false); err != nil {
		return nil, fmt.Errorf("tool %q: arguments: %w", name, err)
	}
	markDefaults(plan)
	t.plan = plan
	t.fast = fastPlan(plan, t.input)
	if t.fast == nil {
		// Every call needs the validator: compile it now, and report here.
		if _, err := t.compiled(); err != nil {
			return nil, err
		}
	}

	rt := reflect.TypeFor[Result]()
	if t.text = rt == reflect.TypeFor[string](); !t.text {
		oplan, err := newAnalyzer(true).analyze(rt, "")
		if err != nil {
			return nil, fmt.Errorf("tool %q: result: %w", name, err)
		}
		if t.output, err = schemaOf(rt, oplan, true); err != nil {
			return nil, fmt.Errorf("tool %q: result: %w", name, err)
		}
		if hasHook(oplan, map[*node]bool{}) {
			// A type's own JSONSchema() may write anything; the reflected
			// rest is checked by the package's tests.
			if _, err := compileSchema(t.output); err != nil {
				return nil, fmt.Errorf("%w: tool %q: the result schema does not compile: %v", ErrInvalidDeclaration, name, err)
			}
		}
	}
	return t, nil
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

// InputSchema is the canonical JSON Schema of Args, reflected once at
// declaration. Callers must not modify the returned bytes.
func (t *Tool[A, R]) InputSchema() json.RawMessage { return t.input }

// OutputSchema is the JSON Schema of the structured result, or nil when
// Result is string. Callers must not modify the returned bytes.
func (t *Tool[A, R]) OutputSchema() json.RawMessage { return t.output }

// Call runs the tool's function directly: the typed path, for tests and
// Go callers. It neither validates nor applies defaults, and a panic in
// the function propagates as it would from any Go call.
func (t *Tool[A, R]) Call(ctx context.Context, args A) (R, error) {
	return t.fn(ctx, args)
}

// Invoke runs one call from a model: it validates args against the input
// schema, decodes them strictly (exact-case keys, no unknown fields,
// defaults filled in), calls the function and encodes its result. Empty,
// blank or null args mean {}. Invoke never panics; every failure is an
// Output with IsError set, a message for the model and Err for the host.
func (t *Tool[A, R]) Invoke(ctx context.Context, args json.RawMessage) (out Output) {
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
	if len(args) > t.opts.maxBytes {
		return invalidOutput(t.name, []Problem{{Message: fmt.Sprintf("the arguments are %d bytes long; the limit is %d: send less", len(args), t.opts.maxBytes)}})
	}
	if tooDeep(args, t.opts.maxDepth) {
		return invalidOutput(t.name, []Problem{{Message: fmt.Sprintf("the arguments nest objects and arrays deeper than %d levels", t.opts.maxDepth)}})
	}
	if t.fast != nil {
		var a A
		if fastDecode(t.fast, args, reflect.ValueOf(&a).Elem()) {
			return t.call(ctx, a)
		}
	}
	tree, err := parseArguments(args)
	if err != nil {
		return invalidOutput(t.name, []Problem{{Message: err.Error()}})
	}
	if err := checkNumbers(t.plan, tree, ""); err != nil {
		de := err.(*decodeError)
		return invalidOutput(t.name, []Problem{{Path: de.path, Message: de.msg}})
	}
	validator, err := t.compiled()
	if err != nil {
		return Output{Text: fmt.Sprintf("tool %q cannot check its arguments (an internal error, not caused by your arguments)", t.name), IsError: true, Err: err}
	}
	if err := validator.Validate(tree); err != nil {
		return invalidOutput(t.name, problems(err, tree, t.plan))
	}
	var a A
	if err := decodeValidated(t.plan, args, tree, reflect.ValueOf(&a).Elem()); err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			return invalidOutput(t.name, []Problem{{Path: de.path, Message: de.msg}})
		}
		return invalidOutput(t.name, []Problem{{Message: err.Error()}})
	}
	return t.call(ctx, a)
}

// call runs the function within the tool's timeout and its caller's
// context.
func (t *Tool[A, R]) call(ctx context.Context, a A) Output {
	if t.opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.opts.timeout)
		defer cancel()
	}
	if _, ok := ctx.Deadline(); !ok {
		// No deadline: run on this goroutine. A cancellation still reaches
		// the function through ctx, and CallAll returns without waiting.
		return t.run(ctx, a)
	}
	return boundByContext(ctx, t.name, t.opts.timeout, func(ctx context.Context) Output { return t.run(ctx, a) })
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

// contextBound marks the tools whose Invoke returns when its context is
// done, whatever the function does.
type contextBound interface{ boundByContext() }

func (t *Tool[A, R]) boundByContext() {}

// boundByContext runs fn and returns its Output, or a timeout or
// cancellation Output as soon as ctx is done. fn's goroutine is then
// abandoned: it runs on until fn returns, and its Output is dropped.
func boundByContext(ctx context.Context, tool string, timeout time.Duration, fn func(context.Context) Output) Output {
	done := make(chan Output, 1) // buffered: an abandoned fn never blocks
	go func() {
		defer func() {
			if r := recover(); r != nil { // a hand-written Invoke may panic
				done <- panicOutput(tool, r, debug.Stack())
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case out := <-done:
		return out
	case <-ctx.Done():
		select {
		case out := <-done: // finished just in time
			return out
		default:
			return contextOutput(tool, ctx.Err(), timeout)
		}
	}
}

// tooDeep reports whether JSON b nests objects and arrays deeper than max.
// It only counts brackets outside strings: the parser refuses what is not
// JSON.
func tooDeep(b []byte, max int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// compiled returns the reference validator, compiling it on first use.
func (t *Tool[A, R]) compiled() (*jsonschema.Schema, error) {
	t.compileOnce.Do(func() {
		t.validator, t.validatorErr = compileSchema(t.input)
		if t.validatorErr != nil {
			t.validatorErr = fmt.Errorf("%w: tool %q: the arguments schema does not compile: %v", ErrInvalidDeclaration, t.name, t.validatorErr)
		}
	})
	return t.validator, t.validatorErr
}

func (t *Tool[A, R]) encode(res R) Output {
	if t.text {
		return Output{Text: any(res).(string)}
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
	text := err.Error()
	if text == "" {
		text = fmt.Sprintf("tool %q failed without saying why", tool)
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
		Err:     fmt.Errorf("%w: tool %q: %v\n%s", ErrInternal, tool, r, stack),
	}
}

// contextOutput reports a call ended by its context: a timeout (of the
// tool, the registry or the caller) or a cancellation.
func contextOutput(tool string, err error, timeout time.Duration) Output {
	if errors.Is(err, context.DeadlineExceeded) {
		text := fmt.Sprintf("tool %q did not finish before its deadline; try again later, perhaps with a smaller request, or go on without it", tool)
		if timeout > 0 {
			text = fmt.Sprintf("tool %q did not finish within %v; try again later, perhaps with a smaller request, or go on without it", tool, timeout)
		}
		return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: tool %q: %w", ErrTimeout, tool, err)}
	}
	return Output{
		Text:    fmt.Sprintf("the call to tool %q was cancelled", tool),
		IsError: true,
		Err:     fmt.Errorf("tool %q: %w", tool, err),
	}
}
