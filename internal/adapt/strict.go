package adapt

import (
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/dialect"
)

// Strictness is what an adapter's strict-mode options chose.
type Strictness struct {
	All      bool            // every tool strict
	Tools    map[string]bool // these tools strict
	Fallback bool            // a tool strict mode cannot express goes non-strict
}

// The strict-mode options of the adapters that have a strict mode; each
// adapter wraps them in its own Option type, with its own documentation.

// StrictAll makes every tool strict.
func StrictAll(s *Strictness) { s.All = true }

// StrictTools makes the named tools strict.
func StrictTools(names []string) func(*Strictness) {
	return func(s *Strictness) {
		if s.Tools == nil {
			s.Tools = map[string]bool{}
		}
		for _, n := range names {
			s.Tools[n] = true
		}
	}
}

// StrictFallback sends a tool strict mode cannot express non-strict
// instead of failing.
func StrictFallback(s *Strictness) { s.Fallback = true }

// Strict is the result of lowering one tool for strict mode; the zero
// Strict is a tool sent non-strict.
type Strict struct {
	Schema json.RawMessage       // the strict schema; nil when the tool goes non-strict
	Strip  *dialect.NullStripper // the nulls the model sends for optional properties
	// Reason says why a tool strict mode was asked for goes non-strict:
	// its schema cannot be made strict. nil otherwise.
	Reason error
}

// errNotStrict marks a tool that strict mode cannot express.
var errNotStrict = Unsupported("tool cannot be sent in strict mode")

// Lower lowers t with the provider's strict dialect when s wants t strict.
// A schema strict mode cannot express is an error matching
// toolreg.ErrUnsupportedSchema, or a zero Strict (non-strict) under
// Fallback.
func (s Strictness) Lower(t toolreg.AnyTool, strict func(json.RawMessage) (json.RawMessage, error)) (Strict, error) {
	if !s.All && !s.Tools[t.Name()] {
		return Strict{}, nil
	}
	lowered, err := strict(t.InputSchema())
	switch {
	case err == nil:
	case s.Fallback || !reflected(t):
		// A schema the tool's author wrote or received (a dynamic tool, an
		// MCP server's) goes non-strict rather than fail every request.
		return Strict{Reason: fmt.Errorf("%w: tool %q: %w", errNotStrict, t.Name(), err)}, nil
	default:
		return Strict{}, fmt.Errorf("%w: tool %q: %w", errNotStrict, t.Name(), err)
	}
	strip, err := dialect.NewNullStripper(t.InputSchema())
	if err != nil {
		return Strict{}, fmt.Errorf("tool %q: %w", t.Name(), err)
	}
	return Strict{Schema: lowered, Strip: strip}, nil
}

// reflected reports a tool whose schema toolreg reflected from Go types,
// which its author can change to fit strict mode.
func reflected(t toolreg.AnyTool) bool {
	d, ok := t.(interface{ Dynamic() bool })
	return ok && !d.Dynamic()
}

// StrictDefs are the definitions of reg's tools for an adapter with a
// strict mode: each tool is lowered with the provider's strict dialect
// when s wants it strict (see Lower), then build makes its definition,
// from st.Schema when the tool is strict.
func StrictDefs[E any](reg *toolreg.Registry, s Strictness, strict func(json.RawMessage) (json.RawMessage, error),
	build func(t toolreg.AnyTool, st Strict) (E, error)) *Defs[E] {
	return NewDefs(reg, func(t toolreg.AnyTool) (E, error) {
		st, err := s.Lower(t, strict)
		if err != nil {
			var zero E
			return zero, err
		}
		return build(t, st)
	})
}

// On reports whether the tool is sent in strict mode.
func (s Strict) On() bool { return s.Schema != nil }

// StripNulls drops from a strict tool's arguments the nulls its model sends
// for the optional properties it leaves out, so that the call validates
// against the canonical schema. Arguments of a tool that is not strict,
// or that the stripper cannot read, stay as they are: the registry then
// says what is wrong with them.
func (s Strict) StripNulls(args []byte) []byte {
	if s.Strip == nil {
		return args
	}
	if stripped, err := s.Strip.Strip(args); err == nil {
		return stripped
	}
	return args
}
