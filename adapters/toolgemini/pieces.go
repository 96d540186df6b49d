package toolgemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// errPieces: the pieces of a call streamed with Vertex AI's
// streamFunctionCallArguments do not make one JSON object.
var errPieces = errors.New("the pieces of a streamed function call do not fit together")

// isPiece reports whether fc is a piece of a call streamed with
// streamFunctionCallArguments rather than a call whole: one that says it
// will continue, or brings partialArgs.
func isPiece(fc *genai.FunctionCall) bool {
	return (fc.WillContinue != nil && *fc.WillContinue) || len(fc.PartialArgs) > 0
}

// pieces puts together the arguments of one call that Vertex AI streams
// in pieces (streamFunctionCallArguments): the first functionCall part
// names the call and says it will continue; the next bring partialArgs,
// each a value at a JSON path of the arguments (a string in pieces while
// the partialArg says it will continue); the last one says nothing more
// will come (often an empty functionCall). The arguments are written as
// a JSON text that only grows, so that each part adds a delta as the other
// providers' streams do: a path must therefore go on from where the text
// is. A member already written, an array index that is not the next one,
// or a path that treats a value as a container of another kind is refused,
// as are more pieces after the call was complete.
type pieces struct {
	id, name string
	text     []byte
	frames   []frame // the open objects and arrays; frames[0] is the arguments
	open     []seg   // the path of the string still being written, if any
	done     bool
}

// frame is an open object or array of the arguments.
type frame struct {
	array bool
	n     int             // members written
	keys  map[string]bool // an object's keys written
	at    seg             // the member of it that is open (the next frame), if any
}

// seg is one segment of a JSON path: a member name, or an array index
// when key is "" and index >= 0.
type seg struct {
	key   string
	index int
}

func (s seg) String() string {
	if s.index >= 0 {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return "." + s.key
}

func newPieces(fc *genai.FunctionCall) *pieces {
	return &pieces{id: fc.ID, name: fc.Name, text: []byte("{"), frames: []frame{{}}}
}

// add takes in the next functionCall part of the call and returns what it
// adds to the arguments' text; complete says the call is whole, its
// arguments p.text.
func (p *pieces) add(fc *genai.FunctionCall) (delta []byte, complete bool, err error) {
	if p.done {
		return nil, false, fmt.Errorf("%w: a part of call %q after it was complete", errPieces, p.name)
	}
	if (fc.ID != "" && p.id != "" && fc.ID != p.id) || (fc.Name != "" && fc.Name != p.name) {
		return nil, false, fmt.Errorf("%w: a piece of call %s %q came while call %s %q was being written", errPieces, fc.ID, fc.Name, p.id, p.name)
	}
	if len(fc.Args) > 0 {
		return nil, false, fmt.Errorf("%w: call %q brings both args and partialArgs", errPieces, p.name)
	}
	n := len(p.text)
	for _, pa := range fc.PartialArgs {
		if pa == nil {
			continue
		}
		if err := p.write(pa); err != nil {
			return nil, false, fmt.Errorf("%w: call %q, path %q: %w", errPieces, p.name, pa.JsonPath, err)
		}
	}
	if fc.WillContinue == nil || !*fc.WillContinue {
		if p.open != nil {
			return nil, false, fmt.Errorf("%w: call %q ended while its string at %s was said to continue", errPieces, p.name, path(p.open))
		}
		p.closeTo(0)
		p.text = append(p.text, '}')
		p.frames, p.done = nil, true
	}
	return p.text[n:], p.done, nil
}

func path(segs []seg) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range segs {
		b.WriteString(s.String())
	}
	return b.String()
}

// write adds one partialArg to the text.
func (p *pieces) write(pa *genai.PartialArg) error {
	segs, err := parsePath(pa.JsonPath)
	if err != nil {
		return err
	}
	var value []byte
	str := false
	switch {
	case pa.NumberValue != nil:
		if value, err = json.Marshal(*pa.NumberValue); err != nil {
			return err
		}
	case pa.BoolValue != nil:
		value = strconv.AppendBool(nil, *pa.BoolValue)
	case pa.NULLValue != "":
		value = []byte("null")
	default:
		str = true
		if value, err = json.Marshal(pa.StringValue); err != nil {
			return err
		}
	}
	more := pa.WillContinue != nil && *pa.WillContinue
	if p.open != nil {
		if !str || !equalSegs(p.open, segs) {
			return fmt.Errorf("the string at %s was said to continue", path(p.open))
		}
		value = value[1 : len(value)-1] // more of the open string
	} else {
		if err := p.member(segs); err != nil {
			return err
		}
		if str {
			value = value[:len(value)-1] // the string stays open until its last piece
		}
	}
	p.text = append(p.text, value...)
	p.open = nil
	if str && more {
		p.open = segs
	} else if str {
		p.text = append(p.text, '"')
	}
	return nil
}

func equalSegs(a, b []seg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// member opens the path of a new value: it closes the containers the path
// leaves, opens those it enters, and writes the value's key.
func (p *pieces) member(segs []seg) error {
	i := 0
	for i < len(p.frames)-1 && i < len(segs)-1 && p.frames[i].at == segs[i] {
		i++
	}
	p.closeTo(i)
	for j := i; j < len(segs); j++ {
		f := &p.frames[len(p.frames)-1]
		s := segs[j]
		switch {
		case f.array && s.index < 0:
			return fmt.Errorf("%s is an array, not an object", path(segs[:j]))
		case !f.array && s.index >= 0:
			return fmt.Errorf("%s is an object, not an array", path(segs[:j]))
		case f.array && s.index != f.n:
			return fmt.Errorf("index %d of %s comes where index %d is next", s.index, path(segs[:j]), f.n)
		case !f.array && f.keys[s.key]:
			return fmt.Errorf("%s is written already", path(segs[:j+1]))
		}
		if f.n > 0 {
			p.text = append(p.text, ',')
		}
		f.n++
		if !f.array {
			if f.keys == nil {
				f.keys = map[string]bool{}
			}
			f.keys[s.key] = true
			k, _ := json.Marshal(s.key)
			p.text = append(append(p.text, k...), ':')
		}
		if j == len(segs)-1 {
			break
		}
		f.at = segs[j]
		next := frame{array: segs[j+1].index >= 0}
		if next.array {
			p.text = append(p.text, '[')
		} else {
			p.text = append(p.text, '{')
		}
		p.frames = append(p.frames, next)
	}
	return nil
}

// closeTo closes the open containers above frames[i].
func (p *pieces) closeTo(i int) {
	for len(p.frames) > i+1 {
		if p.frames[len(p.frames)-1].array {
			p.text = append(p.text, ']')
		} else {
			p.text = append(p.text, '}')
		}
		p.frames = p.frames[:len(p.frames)-1]
	}
	p.frames[i].at = seg{index: -1, key: "\x00"} // no member of it is open
}

// maxIndex bounds an array index of a path: an index is refused unless it
// is the next one anyway, and this keeps its parse from overflowing.
const maxIndex = 1 << 30

// parsePath reads the JSON path (RFC 9535) of a partialArg: "$" followed
// by member names (.name, ['name'] or ["name"]) and array indexes ([0]),
// the singular queries a value's place is written with. At least one
// segment: the arguments are an object.
func parsePath(s string) ([]seg, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, errors.New(`a path begins with "$"`)
	}
	var segs []seg
	for i := 1; i < len(s); {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, errors.New("an empty member name")
			}
			segs = append(segs, seg{key: s[i+1 : j], index: -1})
			i = j
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, errors.New("a [ without its ]")
			}
			in := s[i+1 : i+end]
			switch {
			case len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0]:
				name := in[1 : len(in)-1]
				if strings.ContainsAny(name, `\'"`) {
					return nil, errors.New("a quoted member name with escapes or quotes, which this runner does not read")
				}
				segs = append(segs, seg{key: name, index: -1})
			default:
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 || n > maxIndex || (len(in) > 1 && in[0] == '0') || in[0] < '0' || in[0] > '9' {
					return nil, fmt.Errorf("%q is not an array index", in)
				}
				segs = append(segs, seg{index: n})
			}
			i += end + 1
		default:
			return nil, fmt.Errorf("%q where . or [ was expected", s[i:])
		}
	}
	if len(segs) == 0 {
		return nil, errors.New("the path names the arguments whole, not a member of them")
	}
	return segs, nil
}
