package toolreg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg/internal/reflectschema"
)

// Sentinel errors. Every error the library returns or puts in Output.Err
// wraps one of them, so hosts branch with errors.Is.
var (
	// ErrInvalidDeclaration: New refused a tool (bad description, Args type
	// or tag). The error is a *DeclarationError when a type is at fault.
	ErrInvalidDeclaration = errors.New("invalid tool declaration")
	// ErrInvalidName: a tool name breaks the naming rule (see ValidName).
	// Such an error matches ErrInvalidDeclaration too.
	ErrInvalidName = errors.New("invalid tool name")
	// ErrDuplicateTool: a registry already holds a tool of that name, or
	// one Registry.Add call names two tools alike.
	ErrDuplicateTool = errors.New("duplicate tool")
	// ErrUnknownTool: a call named a tool the registry does not hold.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArguments: the call's arguments are not valid JSON or do
	// not match the tool's input schema. The error is an *ArgumentError.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrToolPanic: the tool panicked. The error is a *PanicError.
	ErrToolPanic = errors.New("tool panicked")
	// ErrInvalidResult: the tool's result could not be encoded as JSON.
	ErrInvalidResult = errors.New("invalid tool result")
	// ErrToolFailed: the tool's function returned an error; Output.Err
	// also wraps that error.
	ErrToolFailed = errors.New("tool failed")
	// ErrTimeout: the call did not finish before its deadline (the tool's
	// WithTimeout, the registry's WithDefaultTimeout or the caller's).
	ErrTimeout = errors.New("tool call timed out")
	// ErrInternal: the library itself failed on a call (a bug to report);
	// the model is told the failure is not its fault.
	ErrInternal = errors.New("toolreg internal error")
	// ErrUnsupportedSchema: an adapter cannot express a tool's schema in
	// its provider's dialect (an open map in OpenAI strict mode, a
	// recursive type in Anthropic strict mode or Gemini's legacy form). The
	// error names the tool and the field; adapters never send a weaker
	// schema instead.
	ErrUnsupportedSchema = errors.New("tool schema cannot be expressed in the provider's dialect")
	// ErrNotOffered: a runner refused a call of a tool the step did not
	// offer the model (agent.ErrNotOffered is the same error).
	ErrNotOffered = errors.New("the tool is not offered in this step")
	// ErrRepeatedCall: a runner refused a call that had already run in its
	// turn (agent.ErrRepeatedCall is the same error).
	ErrRepeatedCall = errors.New("the call has already run")
)

// DeclarationError says why New refused an Args or Result type: the field
// path, its Go type, what would go wrong, and what to write instead.
type DeclarationError struct {
	Path string // JSON path of the field, "" for the type itself
	Type string // the Go type at fault
	Why  string
	Fix  string
}

func (e *DeclarationError) Error() string {
	return (&reflectschema.Error{Path: e.Path, Type: e.Type, Why: e.Why, Fix: e.Fix}).Error()
}

// Unwrap makes a DeclarationError match ErrInvalidDeclaration.
func (e *DeclarationError) Unwrap() error { return ErrInvalidDeclaration }

// Problem is one thing wrong with a call's arguments.
type Problem struct {
	// Path locates the offending value: "city", "stops[2].name", or "" for
	// the arguments object itself.
	Path string
	// Message says what was expected, what was given and what is allowed.
	Message string
}

// ArgumentError is the host-facing error of a call whose arguments were
// refused. Its Error text is the same text the model reads, and like it
// quotes the values the model sent (`user: "sk-..." is not allowed`).
// Arguments may hold secrets, such as a token the model was given, so
// where logs must not hold them, log the Problems' paths instead of the
// text, as Logging does. A path holds names, not values: the schema's
// field names and array indexes, and a key the schema does not declare (an
// unknown field, a map's key) as the model wrote it.
type ArgumentError struct {
	Tool     string
	Problems []Problem
}

func (e *ArgumentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid arguments for tool %q:", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("\n- ")
		if p.Path != "" {
			b.WriteString(p.Path)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Unwrap makes an ArgumentError match ErrInvalidArguments.
func (e *ArgumentError) Unwrap() error { return ErrInvalidArguments }

// PanicError carries a panic on a call for the host. None of it reaches
// the model. Its Error text is the tool and the panic value only; the
// stack is in Stack, for a host that logs it.
type PanicError struct {
	Tool  string
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack at the panic
	// Internal says the panic was not the tool function's but the call
	// path's around it (a middleware's, or the library's own): the error
	// then matches ErrInternal instead of ErrToolPanic.
	Internal bool
}

func (e *PanicError) Error() string {
	if e.Internal {
		return fmt.Sprintf("%v: tool %q: panic: %v", ErrInternal, e.Tool, e.Value)
	}
	return fmt.Sprintf("tool %q panicked: %v", e.Tool, e.Value)
}

// Unwrap makes a PanicError match ErrToolPanic (ErrInternal when Internal),
// and the panic value when it is an error.
func (e *PanicError) Unwrap() []error {
	kind := ErrToolPanic
	if e.Internal {
		kind = ErrInternal
	}
	if err, ok := e.Value.(error); ok {
		return []error{kind, err}
	}
	return []error{kind}
}
