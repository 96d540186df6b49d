package agent

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ErrPartialJSON: the arguments written to a PartialArguments are not the
// beginning of any JSON text, or nest deeper than MaxPartialDepth. Once
// it is reported, JSON returns nil for good.
var ErrPartialJSON = errors.New("the arguments so far are not the beginning of a JSON text")

// MaxPartialDepth is how deep the arguments a PartialArguments shows may
// nest (the limit encoding/json keeps): the closing brackets are written
// on every JSON, so a stream of "[[[[" must not make each of them long.
const MaxPartialDepth = 10000

// PartialArguments is the arguments of one streamed call as the model has
// written them so far, for a host that shows a call while it streams (a
// long write_file as its content grows). Write it each ArgumentsDelta of
// the call (PartialCalls does that for a run's events); JSON and Decode
// give the arguments so far.
//
// What they give is PARTIAL: never validated, best effort, and not what the
// tool will be called with. A string still open is cut after its last
// complete character and closed; open objects and arrays are closed; a key
// without its value, and a number or literal not yet complete, are left
// out. Only CallReady carries the arguments the tool runs with.
//
// The cost is linear over a stream: each byte is scanned once, when it is
// written, and JSON copies only the bytes that became showable since the
// last call, plus the closing brackets. A 1 MB write_file content in 1,000
// deltas, with JSON asked after each, took 15 to 34 ms; in 100,000 deltas
// 19 to 27 ms, over five runs on 2 busy shared cores (go test ./agent/
// -run '^$' -bench PartialArguments -benchtime 20x -count 5): the same
// time whatever the number of deltas. Decode is a json.Unmarshal of the
// JSON so far,
// linear in its size: a host that decodes a long argument on every delta
// pays for it again each time, and should decode every so many bytes, or
// on a timer, instead.
//
// The zero value is ready to use. It is not safe for concurrent use.
type PartialArguments struct {
	buf   []byte // everything written
	out   []byte // buf[:safe], then the closing bytes of the last JSON
	outN  int    // how much of buf is copied into out
	stack []byte // the open objects and arrays: '{' or '['
	err   error

	st    scanState
	key   bool // the string being scanned is an object's key
	hex   int  // \u escape: hex digits still to come
	cp    rune // \u escape: its code point so far
	high  bool // a \u escape of a high surrogate waits for its pair
	rn    int  // start of the multi-byte UTF-8 character being scanned
	inRn  bool // one is being scanned
	lit   string
	start int // where the number being scanned begins

	safe     int  // buf[:safe] ends where the JSON may be cut
	safeOpen bool // the cut is inside a string, which needs its quote
}

type scanState uint8

const (
	sValue      scanState = iota // a value comes next (']' too after '[')
	sKeyOrEnd                    // after '{': a key or '}'
	sKey                         // after ',' in an object: a key
	sColon                       // after a key
	sAfter                       // after a value: ',' or a closer; at the top, only space
	sString                      // in a string
	sEscape                      // after a backslash
	sLiteral                     // in true, false or null: lit is what remains
	sNumMinus                    // after '-'
	sNumZero                     // after a leading 0
	sNumInt                      // in the integer digits
	sNumDot                      // after '.'
	sNumFrac                     // in the fraction digits
	sNumE                        // after 'e'
	sNumESign                    // after the exponent's sign
	sNumExp                      // in the exponent digits
	sArrayStart                  // after '[': a value or ']'
)

// WriteString adds the next piece of the arguments (an ArgumentsDelta's
// Delta). It reports ErrPartialJSON when the arguments so far cannot begin
// a JSON text.
func (a *PartialArguments) WriteString(s string) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n := len(a.buf)
	a.buf = append(a.buf, s...)
	for i := n; i < len(a.buf); i++ {
		if a.st == sString && !a.inRn && !a.high {
			// The bulk of a long string: plain characters, cut after
			// the last of them at once.
			j := i
			for j < len(a.buf) && a.buf[j] >= 0x20 && a.buf[j] < 0x80 && a.buf[j] != '"' && a.buf[j] != '\\' {
				j++
			}
			if j > i {
				if !a.key {
					a.cut(j, true)
				}
				if i = j; i == len(a.buf) {
					break
				}
			}
		}
		if err := a.scan(i, a.buf[i]); err != nil {
			a.err = err
			a.buf, a.out = nil, nil
			return 0, err
		}
	}
	return len(s), nil
}

// Write is WriteString of p, so that a PartialArguments is an io.Writer.
func (a *PartialArguments) Write(p []byte) (int, error) { return a.WriteString(string(p)) }

// Err reports why the arguments stopped being shown, nil while they are.
func (a *PartialArguments) Err() error { return a.err }

// JSON returns the arguments so far closed into valid JSON (see the type's
// doc), or nil when there is nothing to show yet or they are not JSON. The
// slice is valid until the next Write, JSON or Decode; copy it to keep it.
func (a *PartialArguments) JSON() []byte {
	if a.err != nil {
		return nil
	}
	if len(a.stack) == 0 && a.st >= sNumMinus && a.st <= sNumExp {
		// A number at the top has no delimiter to wait for: the bytes so
		// far are shown if they are one.
		if a.st == sNumZero || a.st == sNumInt || a.st == sNumFrac || a.st == sNumExp {
			return a.buf
		}
		return nil
	}
	if a.safe == 0 {
		return nil
	}
	a.out = append(a.out[:a.outN], a.buf[a.outN:a.safe]...)
	a.outN = a.safe
	if a.safeOpen {
		a.out = append(a.out, '"')
	}
	for i := len(a.stack) - 1; i >= 0; i-- {
		a.out = append(a.out, a.stack[i]+2) // '{'+2 is '}', '['+2 is ']'
	}
	return a.out
}

// Decode decodes the arguments so far (JSON) into v, as json.Unmarshal
// does. With nothing to show yet it leaves v as it is and returns nil.
func (a *PartialArguments) Decode(v any) error {
	if a.err != nil {
		return a.err
	}
	b := a.JSON()
	if b == nil {
		return nil
	}
	return json.Unmarshal(b, v)
}

// cut marks buf[:i] as a place the JSON may end.
func (a *PartialArguments) cut(i int, open bool) { a.safe, a.safeOpen = i, open }

// valueDone moves on after a value that ended at buf[:end].
func (a *PartialArguments) valueDone(end int) {
	a.cut(end, false)
	a.st = sAfter
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scan takes in the byte c at buf[i]. jsontext and encoding/json read a
// token only whole, and a string still open is just what a host wants to
// see, so the scan is done here, byte by byte, once; the fuzz test holds
// its JSON to json.Valid.
func (a *PartialArguments) scan(i int, c byte) error {
	switch a.st {
	case sValue, sArrayStart:
		switch {
		case isSpace(c):
		case c == ']' && a.st == sArrayStart:
			return a.close(i, c)
		case c == '{' || c == '[':
			if len(a.stack) >= MaxPartialDepth {
				return ErrPartialJSON
			}
			a.stack = append(a.stack, c)
			a.cut(i+1, false)
			a.st = sKeyOrEnd
			if c == '[' {
				a.st = sArrayStart
			}
		case c == '"':
			a.key = false
			a.st = sString
			a.cut(i+1, true)
		case c == 't':
			a.st, a.lit = sLiteral, "rue"
		case c == 'f':
			a.st, a.lit = sLiteral, "alse"
		case c == 'n':
			a.st, a.lit = sLiteral, "ull"
		case c == '-':
			a.st, a.start = sNumMinus, i
		case c == '0':
			a.st, a.start = sNumZero, i
		case c >= '1' && c <= '9':
			a.st, a.start = sNumInt, i
		default:
			return ErrPartialJSON
		}
	case sKeyOrEnd, sKey:
		switch {
		case isSpace(c):
		case c == '}' && a.st == sKeyOrEnd:
			return a.close(i, c)
		case c == '"':
			a.key = true
			a.st = sString
		default:
			return ErrPartialJSON
		}
	case sColon:
		switch {
		case isSpace(c):
		case c == ':':
			a.st = sValue
		default:
			return ErrPartialJSON
		}
	case sAfter:
		switch {
		case isSpace(c) && len(a.stack) == 0:
			a.cut(i+1, false) // a whole text shows as it came
		case isSpace(c):
		case len(a.stack) == 0:
			return ErrPartialJSON
		case c == ',':
			a.st = sValue
			if a.stack[len(a.stack)-1] == '{' {
				a.st = sKey
			}
		case c == '}' || c == ']':
			return a.close(i, c)
		default:
			return ErrPartialJSON
		}
	case sString:
		switch {
		case a.inRn && c&0xC0 == 0x80:
			// In a multi-byte character: shown once it is whole.
			if utf8.FullRune(a.buf[a.rn : i+1]) {
				a.inRn = false
				a.char(i)
			}
		case a.inRn:
			// Not UTF-8, which encoding/json lets by: the bytes so far
			// are characters of their own, and c is scanned anew.
			a.inRn = false
			a.char(i - 1)
			return a.scan(i, c)
		case c == '"':
			a.inRn = false
			if a.key {
				a.st = sColon
				return nil
			}
			a.valueDone(i + 1)
		case c == '\\':
			a.st = sEscape
		case c < 0x20:
			return ErrPartialJSON
		case c >= 0xC2 && c <= 0xF4:
			a.rn, a.inRn = i, true
		default:
			a.char(i)
		}
	case sEscape:
		if a.hex > 0 {
			var d rune
			switch {
			case c >= '0' && c <= '9':
				d = rune(c - '0')
			case c >= 'a' && c <= 'f':
				d = rune(c-'a') + 10
			case c >= 'A' && c <= 'F':
				d = rune(c-'A') + 10
			default:
				return ErrPartialJSON
			}
			a.cp = a.cp<<4 | d
			a.hex--
			if a.hex > 0 {
				return nil
			}
			a.st = sString
			if a.cp >= 0xD800 && a.cp < 0xDC00 && !a.high {
				// Half of a surrogate pair: shown with its other half.
				a.high = true
				return nil
			}
			a.char(i)
			return nil
		}
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			a.st = sString
			a.char(i)
		case 'u':
			a.hex, a.cp = 4, 0
		default:
			return ErrPartialJSON
		}
	case sLiteral:
		if c != a.lit[0] {
			return ErrPartialJSON
		}
		a.lit = a.lit[1:]
		if a.lit == "" {
			a.valueDone(i + 1)
		}
	default:
		return a.number(i, c)
	}
	return nil
}

// char: a character of a string ends at buf[i].
func (a *PartialArguments) char(i int) {
	a.high = false
	if !a.key {
		a.cut(i+1, true)
	}
}

// close takes in the closer c at buf[i], which the state allows.
func (a *PartialArguments) close(i int, c byte) error {
	if len(a.stack) == 0 || a.stack[len(a.stack)-1]+2 != c {
		return ErrPartialJSON
	}
	a.stack = a.stack[:len(a.stack)-1]
	a.valueDone(i + 1)
	return nil
}

// number takes in c at buf[i] inside a number: a digit goes on, anything
// else ends the number, if it may end here, and is scanned as what comes
// after it.
func (a *PartialArguments) number(i int, c byte) error {
	digit := c >= '0' && c <= '9'
	switch a.st {
	case sNumMinus:
		switch {
		case c == '0':
			a.st = sNumZero
		case digit:
			a.st = sNumInt
		default:
			return ErrPartialJSON
		}
		return nil
	case sNumZero, sNumInt:
		switch {
		case digit && a.st == sNumInt:
			return nil
		case c == '.':
			a.st = sNumDot
			return nil
		case c == 'e' || c == 'E':
			a.st = sNumE
			return nil
		}
	case sNumDot:
		if !digit {
			return ErrPartialJSON
		}
		a.st = sNumFrac
		return nil
	case sNumFrac:
		switch {
		case digit:
			return nil
		case c == 'e' || c == 'E':
			a.st = sNumE
			return nil
		}
	case sNumE:
		switch {
		case c == '+' || c == '-':
			a.st = sNumESign
		case digit:
			a.st = sNumExp
		default:
			return ErrPartialJSON
		}
		return nil
	case sNumESign:
		if !digit {
			return ErrPartialJSON
		}
		a.st = sNumExp
		return nil
	case sNumExp:
		if digit {
			return nil
		}
	}
	// The number is whole: what ends it is scanned as what follows.
	a.valueDone(i)
	return a.scan(i, c)
}

// PartialCalls keeps the PartialArguments of the calls of a run as its
// events come, for a host's Options.OnEvent. The calls are told apart by
// step and Call.ID, or by position in the step for a provider that gives
// no id.
//
// The zero value is ready to use. It is not safe for concurrent use (an
// OnEvent is called from one goroutine at a time).
type PartialCalls struct {
	calls map[partialKey]*PartialArguments
	step  int
	n     int // calls started in step
}

type partialKey struct {
	step int
	id   string
	n    int
}

// Add takes in one event of a run. For a CallStarted or ArgumentsDelta it
// returns the call's PartialArguments, the delta written; for a CallReady,
// which the loop sends for every call before it runs or is refused, it
// forgets the call (its arguments are whole in the event; a call without
// an id is forgotten when its step ends) and returns nil, as for any other
// event.
func (c *PartialCalls) Add(e Event) *PartialArguments {
	if e.Step != c.step {
		c.step, c.n, c.calls = e.Step, 0, nil
	}
	k := partialKey{step: e.Step, id: e.Call.ID}
	switch e.Kind {
	case CallStarted:
		c.n++
		if k.id == "" {
			k.n = c.n
		}
		if c.calls == nil {
			c.calls = map[partialKey]*PartialArguments{}
		}
		a := &PartialArguments{}
		c.calls[k] = a
		return a
	case ArgumentsDelta:
		if k.id == "" {
			k.n = c.n
		}
		a := c.calls[k]
		if a == nil {
			return nil
		}
		a.WriteString(e.Delta) // an error is kept in a, and shown as nil JSON
		return a
	case CallReady:
		delete(c.calls, k) // a call without id stays until its step ends
	}
	return nil
}
