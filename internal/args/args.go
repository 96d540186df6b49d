// Package args checks a model's call arguments against a tool's canonical
// schema and decodes them into the tool's Args value, in one entry: Compile
// once at declaration, then Decode bytes into a value or get the problems,
// worded for the model.
//
// Two paths give the same verdict and the same values:
//
//   - The fast path reads the bytes once, checking the keywords of the
//     schema as it decodes. It has two readers: the byte scanner
//     (bytescan.go) walks the bytes itself and only accepts, the common
//     case, at the cost of a plain decoder; what it does not accept, the
//     token reader (fast.go) reads with jsontext and decides, valid or
//     not, wording the problems. Together they decide every call they
//     fully understand at a cost proportional to the value the function
//     receives.
//   - The reference path (tree.go, validate.go, decode.go) parses the
//     arguments into a JSON tree, validates the tree with the compiled JSON
//     Schema (santhosh-tekuri/jsonschema) and decodes the Args value from
//     that very tree. It decides what the fast path does not understand (a
//     type's own JSONSchema(), keywords it does not check) and words the
//     problems of small invalid calls, where the validator is the
//     reference; the fast path words large ones, whose tree the validator
//     would need hundreds of bytes per value to walk.
//
// Both read JSON as I-JSON (RFC 7493): a member name twice in one object and
// invalid UTF-8 are refused, so no reader can see a value another missed.
// The tests and a fuzz target check that the paths agree.
package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg/internal/reflectschema"
)

// Limits bound what one call may cost, checked before anything is parsed.
type Limits struct {
	MaxBytes  int // the arguments' length
	MaxDepth  int // nesting of objects and arrays
	MaxValues int // array items and object members, at every depth

	// MaxSchemaNodes bounds the Size of a schema given at run time
	// (CompileDynamic, CompileSchema), checked at declaration: the
	// validator walks it on every call. 0 is no bound.
	MaxSchemaNodes int
}

// Problem is one thing wrong with a call's arguments.
type Problem struct {
	Path    string // "city", "stops[2].name", "" for the arguments object
	Message string // what was expected, what was given, what is allowed
}

// Checker checks and decodes the arguments of one tool. It is immutable
// after Compile and safe for concurrent use.
type Checker struct {
	shape   *reflectschema.Shape // nil for a dynamic tool
	schema  json.RawMessage
	fast    *fnode
	limits  Limits
	dynamic bool

	// The reference validator, compiled on first use unless the schema
	// holds text a person wrote (a type's own JSONSchema()): calls the fast
	// path decides never need it, so declaring many tools stays cheap. Every
	// part of a reflected schema that could fail to compile (a pattern) is
	// checked by Compile.
	compileOnce  sync.Once
	validator    *jsonschema.Schema
	validatorErr error
}

// Compile prepares the checker of a tool whose Args have shape and whose
// canonical schema is schema.
func Compile(shape *reflectschema.Shape, schema json.RawMessage, limits Limits) (*Checker, error) {
	c := &Checker{shape: shape, schema: schema, limits: limits}
	fast, err := fastPlan(shape, schema)
	if err != nil {
		return nil, err
	}
	c.fast = fast
	if shape.HasHook() {
		if _, err := c.compiled(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// CompileDynamic prepares the checker of a tool whose arguments are known
// only by their schema (written by hand, or another server's): the schema
// must compile as draft 2020-12 as a closed document (NewCompiler), expand
// to no more than limits.MaxSchemaNodes subschemas (Size) and describe an
// object. Its calls take the reference path, and Decode stores the
// arguments' bytes into a json.RawMessage.
func CompileDynamic(schema json.RawMessage, limits Limits) (*Checker, error) {
	v, err := CompileSchema(schema, limits.MaxSchemaNodes)
	if err != nil {
		return nil, fmt.Errorf("the schema %w", err)
	}
	if err := checkWork(v, limits.MaxDepth, limits.MaxSchemaNodes); err != nil {
		return nil, fmt.Errorf("the schema %w", err)
	}
	if v.Types == nil || v.Types.IsEmpty() || len(v.Types.ToStrings()) != 1 || v.Types.ToStrings()[0] != "object" {
		return nil, fmt.Errorf(`the schema must describe an object ("type": "object"): every provider passes arguments as one JSON object`)
	}
	c := &Checker{schema: schema, limits: limits, dynamic: true, validator: v}
	c.compileOnce.Do(func() {})
	return c, nil
}

// referenceWords is the size of call, in values, up to which the problems
// of an invalid call are worded from the validator's own errors, as most
// invalid calls are. Beyond it the fast path's problems are used (the
// tests hold the two to the same words): the validator spends about a
// kilobyte on each value it walks, which would make a call cost a hundred
// times its size.
const referenceWords = 16

// Decode checks args and decodes them into dst, a settable value of the
// Args type. Empty, blank and null arguments mean {}. On problems, dst may
// hold part of the arguments and must not be used. An error is the
// library's own failure (the validator did not compile), not the call's.
func (c *Checker) Decode(args []byte, dst reflect.Value) ([]Problem, error) {
	args = trimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if len(args) > c.limits.MaxBytes {
		return []Problem{{Message: fmt.Sprintf("the arguments are %d bytes long; the limit is %d: send less", len(args), c.limits.MaxBytes)}}, nil
	}
	if c.fast != nil {
		// Most calls are valid: the byte scanner accepts them in one pass,
		// limits included, and leaves any other to the readers below.
		if c.fast.accept(args, c.limits, dst) {
			return nil, nil
		}
		dst.SetZero()
	}
	if c.fast != nil && withinLimits(args, c.limits) {
		// Short arguments: the fast path first, and scan only for what it
		// does not accept (what it accepts is JSON, within the limits).
		verdict, problems := c.fast.run(args, nil, dst)
		if verdict == accepted {
			return nil, nil
		}
		return c.settle(args, dst, verdict, problems)
	}
	return c.settle(args, dst, pending, nil)
}

// settle measures args with scan, runs the fast path unless it has
// already given its verdict, and leaves to the reference path what the
// fast path does not decide.
func (c *Checker) settle(args []byte, dst reflect.Value, verdict verdict, problems []Problem) ([]Problem, error) {
	values, sizes, p := scan(args, c.limits)
	if p != nil {
		return []Problem{*p}, nil
	}
	if c.fast != nil {
		if verdict == pending {
			verdict, problems = c.fast.run(args, sizes, dst)
		}
		switch {
		case verdict == accepted:
			return nil, nil
		case verdict == rejected && values > referenceWords:
			return problems, nil
		}
		dst.SetZero()
	}
	return c.reference(args, dst)
}

// reference is the reference path: parse, validate, decode the tree.
func (c *Checker) reference(args []byte, dst reflect.Value) ([]Problem, error) {
	tree, raws, p := parseTree(args, c.shape, c.dynamic)
	if p != nil {
		return []Problem{*p}, nil
	}
	validator, err := c.compiled()
	if err != nil {
		return nil, err
	}
	if err := validator.Validate(tree); err != nil {
		return capProblems(problems(err, tree, c.shape, validator)), nil
	}
	if c.dynamic {
		dst.SetBytes(bytes.Clone(args))
		return nil, nil
	}
	if p := decodeTree(c.shape, dst, tree, raws); p != nil {
		return []Problem{*p}, nil
	}
	return nil, nil
}

// compiled returns the reference validator, compiling it on first use.
func (c *Checker) compiled() (*jsonschema.Schema, error) {
	c.compileOnce.Do(func() {
		c.validator, c.validatorErr = compileSchema(c.schema)
		if c.validatorErr != nil {
			c.validatorErr = fmt.Errorf("the arguments schema does not compile: %v", c.validatorErr)
		}
	})
	return c.validator, c.validatorErr
}

// CompileSchema compiles a schema as the reference validator does: draft
// 2020-12, formats asserted, a closed document (NewCompiler). Use it to
// check a schema written by hand. A schema that expands to more than
// maxNodes subschemas (Size) is refused; maxNodes 0 is no bound. The
// error is worded to follow the schema's name: "the output schema " + err.
func CompileSchema(schema json.RawMessage, maxNodes int) (*jsonschema.Schema, error) {
	v, err := compileSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("does not compile as draft 2020-12: %w", err)
	}
	if err := checkSize(v, maxNodes); err != nil {
		return nil, err
	}
	return v, nil
}
