package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// parseTree reads the arguments as I-JSON into the tree the validator
// judges and the reference decoder reads: objects as map[string]any,
// arrays as []any, numbers as json.Number (exact), strings, booleans and
// nil. The bytes of the values whose Go type keeps or reads its own bytes
// (json.RawMessage, a type with its own JSONSchema()) are kept in raws, by
// location, so that the decoder hands over the very bytes the model sent.
//
// Without a shape (a dynamic tool, whose arguments reach its function as
// bytes), every number is held to the limits, as in an any.
func parseTree(args []byte, shape *rs.Shape, dynamic bool) (tree any, raws map[string][]byte, p *Problem) {
	t := &treeParser{args: args, dec: jsontext.NewDecoder(bytes.NewReader(args))}
	tree, err := t.value(shape, dynamic, false)
	if err == nil {
		err = atEnd(t.dec, args)
	}
	switch {
	case err != nil:
		return nil, nil, syntaxProblem(err, t.path, args)
	case t.number != nil:
		return nil, nil, t.number
	}
	return tree, t.raws, nil
}

// errTrailing is data after the one JSON value of the arguments.
type errTrailing int64

func (e errTrailing) Error() string {
	return fmt.Sprintf("unexpected data after the JSON value at offset %d", int64(e))
}

// atEnd checks that nothing but white space follows the value dec has read.
func atEnd(dec *jsontext.Decoder, args []byte) error {
	off := dec.InputOffset()
	for off < int64(len(args)) && (args[off] == ' ' || args[off] == '\t' || args[off] == '\r' || args[off] == '\n') {
		off++
	}
	if off < int64(len(args)) {
		return errTrailing(off)
	}
	return nil
}

type treeParser struct {
	args   []byte
	dec    *jsontext.Decoder
	path   path
	raws   map[string][]byte
	number *Problem // the first number beyond the limits
}

// value reads one value at shape; numbers are checked against the limits
// where a Go number or an any (every number below it: inAny) holds them,
// and never in bytes kept as they are (inRaw).
func (t *treeParser) value(shape *rs.Shape, inAny, inRaw bool) (any, error) {
	s := deref(shape)
	inAny = inAny || s != nil && s.Kind == rs.Any
	if s != nil && (s.Kind == rs.Raw || s.Kind == rs.Hook) {
		start := t.dec.InputOffset()
		v, err := t.value(nil, false, true)
		if err != nil {
			return nil, err
		}
		if t.raws == nil {
			t.raws = map[string][]byte{}
		}
		// From the end of the token before (a name, or the comma of an
		// array) to the end of the value: the value, after the separator.
		raw := bytes.TrimLeft(t.args[start:t.dec.InputOffset()], " \t\r\n:,")
		t.raws[rawKey(t.path)] = bytes.Clone(raw)
		return v, nil
	}
	switch t.dec.PeekKind() {
	case '{':
		if _, err := t.dec.ReadToken(); err != nil {
			return nil, err
		}
		obj := map[string]any{}
		for t.dec.PeekKind() != '}' {
			tok, err := t.dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			var child *rs.Shape
			switch {
			case s == nil:
			case s.Kind == rs.Struct:
				if f := s.Field(name); f != nil {
					child = f.Shape
				}
			case s.Kind == rs.Map:
				child = s.Elem
			}
			t.path = append(t.path, key(name))
			v, err := t.value(child, inAny, inRaw)
			if err != nil {
				return nil, err // the path stays where the reader stopped
			}
			t.path = t.path[:len(t.path)-1]
			obj[name] = v
		}
		_, err := t.dec.ReadToken()
		return obj, err
	case '[':
		if _, err := t.dec.ReadToken(); err != nil {
			return nil, err
		}
		var child *rs.Shape
		if s != nil && (s.Kind == rs.Slice || s.Kind == rs.Array) {
			child = s.Elem
		}
		arr := []any{}
		for t.dec.PeekKind() != ']' {
			t.path = append(t.path, index(len(arr)))
			v, err := t.value(child, inAny, inRaw)
			if err != nil {
				return nil, err
			}
			t.path = t.path[:len(t.path)-1]
			arr = append(arr, v)
		}
		_, err := t.dec.ReadToken()
		return arr, err
	}
	tok, err := t.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case '0':
		lit := tok.String()
		if t.number == nil && !inRaw && (inAny || s != nil && (s.Kind == rs.Int || s.Kind == rs.Uint || s.Kind == rs.Float)) {
			if msg := numberProblem([]byte(lit)); msg != "" {
				t.number = &Problem{Path: t.path.String(), Message: snippet(json.Number(lit)) + " " + msg}
			}
		}
		return json.Number(lit), nil
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil
}

// rawKey is the key of a location in raws.
func rawKey(p path) string {
	var b strings.Builder
	for _, s := range p {
		if s.isIndex {
			b.WriteString("\x01" + strconv.Itoa(s.index))
		} else {
			b.WriteString("\x02" + s.name)
		}
	}
	return b.String()
}

// syntaxProblem words why the arguments are not I-JSON: err is what the
// reader met at p. A name twice in an object is named where it is; any
// other error is worded as one plain read of the whole arguments words it,
// so that the model reads the same whichever path met it first.
func syntaxProblem(err error, p path, args []byte) *Problem {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
		return duplicateProblem(p, se.JSONPointer.LastToken())
	}
	dec := jsontext.NewDecoder(bytes.NewReader(args), jsontext.AllowDuplicateNames(true))
	_, plain := dec.ReadValue()
	if plain == nil {
		plain = atEnd(dec, args)
	}
	if plain != nil {
		err = plain
	}
	return syntaxWords(err, len(args))
}

func syntaxWords(err error, n int) *Problem {
	var se *jsontext.SyntacticError
	errors.As(err, &se)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return &Problem{Message: fmt.Sprintf("not valid JSON: the input ends early (%d bytes); send one complete JSON object", n)}
	case se != nil && strings.Contains(se.Err.Error(), "UTF-8"):
		return &Problem{Message: fmt.Sprintf("not valid JSON: a string holds bytes that are not UTF-8 (at offset %d); send UTF-8 text", se.ByteOffset)}
	case se != nil:
		return &Problem{Message: fmt.Sprintf("not valid JSON: %s (at offset %d)", se.Err, se.ByteOffset)}
	}
	return &Problem{Message: "not valid JSON: " + err.Error()}
}

// Limits on JSON numbers where a Go number or an any will hold them (a
// json.Number or json.RawMessage keeps any literal): no Go number type
// holds a value beyond float64's range, and exact arithmetic on a literal
// with a huge exponent or thousands of digits would let one call burn
// seconds of CPU in the validator. Both paths apply them alike.
const (
	maxNumberLen      = 400
	maxNumberExponent = 400
)

// maxPlainDigits is the longest literal without an exponent that is
// surely below the largest float64 (1.8e308).
const maxPlainDigits = 308

// hasExponent reports whether a number literal has an exponent.
func hasExponent(lit []byte) bool {
	for _, c := range lit {
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// numberProblem says why a number literal is beyond the limits, or "".
func numberProblem(lit []byte) string {
	if len(lit) <= maxPlainDigits && !hasExponent(lit) {
		return "" // no more than 308 digits: finite, the common case
	}
	if len(lit) > maxNumberLen {
		return fmt.Sprintf("has more than %d characters; send a shorter number", maxNumberLen)
	}
	if i := bytes.IndexAny(lit, "eE"); i >= 0 {
		exp := bytes.TrimPrefix(lit[i+1:], []byte("+"))
		if e, err := strconv.Atoi(string(exp)); err != nil || e > maxNumberExponent || e < -maxNumberExponent {
			return fmt.Sprintf("has an exponent beyond ±%d", maxNumberExponent)
		}
	}
	if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
		return "is beyond the range of a 64-bit float (±1.8e308)"
	}
	return ""
}
