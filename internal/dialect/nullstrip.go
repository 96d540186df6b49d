package dialect

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// NullStripper removes the nulls a strict-mode model sends for optional
// properties, so that the call validates against the canonical schema
// again. OpenAIStrict makes every property required and lets the ones that
// were optional take null; the model then writes {"days":null} for "no
// days", which the canonical schema refuses. Build one per tool from its
// canonical schema, with NewNullStripper, and run Strip on every call
// before validating it.
//
// Only a property that is optional in the canonical schema and does not
// accept null there loses its null: a null the canonical schema allows is
// data and stays. A NullStripper is immutable and safe for concurrent use.
type NullStripper struct {
	root *stripPlan // nil when no property anywhere can be stripped
}

// stripPlan says, for one position of the arguments, which members of an
// object lose a null and how to read what lies below.
type stripPlan struct {
	props map[string]propPlan
	items *stripPlan // array elements
	extra *stripPlan // members not in props (map values)
	same  *stripPlan // while building: this position reads as another plan
}

type propPlan struct {
	strip bool       // a null here was added by strict lowering
	plan  *stripPlan // what lies below
}

// NewNullStripper reads a canonical schema once and returns the stripper
// for its calls. It fails only if the schema is not valid JSON.
func NewNullStripper(canonical json.RawMessage) (*NullStripper, error) {
	root, err := parseSchema(canonical)
	if err != nil {
		return nil, err
	}
	b := &planBuilder{doc: newDoc(root), defs: map[string]*stripPlan{}}
	p := b.node()
	b.defs["#"] = p // a "#" $ref reads as the root
	if root.Kind == jsonvalue.Object {
		b.fill(p, root, 0)
	}
	b.finish()
	if !b.useful[p] {
		p = nil
	}
	return &NullStripper{root: p}, nil
}

type planBuilder struct {
	doc    *doc
	defs   map[string]*stripPlan // by definition name ("#" for the root): recursion shares plans
	all    []*stripPlan
	useful map[*stripPlan]bool
}

// plan reads the plan of the values of schema s, or nil when they cannot
// hold an object or array the schema describes.
func (b *planBuilder) plan(s *value, depth int) *stripPlan {
	if s == nil || s.Kind != jsonvalue.Object || depth > jsonvalue.MaxDepth {
		return nil
	}
	if ref := s.Get("$ref"); ref.IsString() {
		name, target, err := b.doc.resolve(ref.Text, "")
		if err != nil {
			return nil
		}
		rest := &value{Kind: jsonvalue.Object}
		for _, m := range s.Members {
			if m.Key != "$ref" {
				rest.Members = append(rest.Members, m)
			}
		}
		if b.plan(rest, depth+1) != nil {
			return nil // structure on both sides of the $ref: keep every null below
		}
		if p, ok := b.defs[name]; ok {
			return p
		}
		p := b.node()
		b.defs[name] = p
		p.same = b.plan(target, depth+1)
		return p
	}
	if s.Get("properties") == nil && s.Get("items") == nil && s.Get("additionalProperties") == nil &&
		s.Get("anyOf") == nil && s.Get("oneOf") == nil && s.Get("allOf") == nil {
		return nil
	}
	p := b.node()
	b.fill(p, s, depth)
	return p
}

func (b *planBuilder) node() *stripPlan {
	p := &stripPlan{}
	b.all = append(b.all, p)
	return p
}

// fill sets p from the schema s.
func (b *planBuilder) fill(p *stripPlan, s *value, depth int) {
	req := map[string]bool{}
	if r := s.Get("required"); r != nil {
		for _, n := range r.Items {
			req[n.Text] = true
		}
	}
	if props := s.Get("properties"); props != nil && props.Kind == jsonvalue.Object {
		p.props = make(map[string]propPlan, len(props.Members))
		for _, m := range props.Members {
			p.props[m.Key] = propPlan{
				strip: !req[m.Key] && !b.doc.acceptsNull(m.Val),
				plan:  b.plan(m.Val, depth+1),
			}
		}
	}
	p.items = b.plan(s.Get("items"), depth+1)
	if ap := s.Get("additionalProperties"); ap != nil {
		p.extra = b.plan(ap, depth+1)
	}
	// Alternatives: follow the one branch with structure, if only one has
	// any (a nullable object is anyOf:[X,{"type":"null"}]). With several,
	// or with structure beside them, a member's null might be data in one
	// branch and padding in another: keep every null.
	var alt *stripPlan
	n := 0
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if bs := s.Get(k); bs != nil && bs.Kind == jsonvalue.Array {
			for _, br := range bs.Items {
				if q := b.plan(br, depth+1); q != nil {
					alt, n = q, n+1
				}
			}
		}
	}
	switch {
	case n == 1 && p.props == nil && p.items == nil && p.extra == nil:
		p.same = alt
	case n > 0:
		*p = stripPlan{}
	}
}

// finish resolves the plans that read as others, now that every plan is
// built, and drops the ones below which nothing can be stripped.
func (b *planBuilder) finish() {
	for _, p := range b.all {
		q := p
		for i := 0; q.same != nil && i <= len(b.all); i++ {
			q = q.same
		}
		if q.same != nil {
			q = &stripPlan{} // a loop of aliases describes nothing
		}
		if q != p {
			p.props, p.items, p.extra = q.props, q.items, q.extra
		}
	}
	for _, p := range b.all {
		p.same = nil
	}
	b.useful = map[*stripPlan]bool{}
	for changed := true; changed; {
		changed = false
		for _, p := range b.all {
			if b.useful[p] {
				continue
			}
			u := b.useful[p.items] || b.useful[p.extra]
			for _, pp := range p.props {
				u = u || pp.strip || b.useful[pp.plan]
			}
			if u {
				b.useful[p], changed = true, true
			}
		}
	}
	for _, p := range b.all {
		if !b.useful[p.items] {
			p.items = nil
		}
		if !b.useful[p.extra] {
			p.extra = nil
		}
		for k, pp := range p.props {
			if pp.plan != nil && !b.useful[pp.plan] {
				p.props[k] = propPlan{strip: pp.strip}
			}
		}
	}
}

var nullToken = []byte("null")

// errFound stops the read-only pass at the first null to strip.
var errFound = errors.New("found")

// Strip returns args without the nulls of optional properties. When args
// hold no null to strip it returns args itself, and when they hold no
// "null" at all it returns at once, without reading them or allocating.
// It reports malformed JSON only where it has to read it: validation
// against the canonical schema catches the rest.
func (s *NullStripper) Strip(args []byte) ([]byte, error) {
	if s.root == nil || !bytes.Contains(args, nullToken) {
		return args, nil
	}
	if !json.Valid(args) {
		return nil, errors.New("dialect: the arguments are not valid JSON")
	}
	sc := scanner{in: args}
	switch err := sc.value(s.root, 0); err {
	case nil:
		return args, nil
	case errFound:
	default:
		return nil, err
	}
	sc = scanner{in: args, out: make([]byte, 0, len(args)), emit: true}
	if err := sc.value(s.root, 0); err != nil {
		return nil, err
	}
	return sc.out, nil
}

// scanner walks valid JSON along a plan. Without emit it only looks for a
// null to strip; with emit it writes the arguments without them.
type scanner struct {
	in   []byte
	pos  int
	out  []byte
	emit bool
}

// maxArgsDepth bounds the recursion of a scan along a recursive plan.
const maxArgsDepth = 10_000

var errDeep = errors.New("dialect: the arguments nest too deeply")

func (sc *scanner) value(p *stripPlan, depth int) error {
	sc.space()
	if depth > maxArgsDepth {
		return errDeep
	}
	if p == nil {
		sc.skip()
		return nil
	}
	switch sc.in[sc.pos] {
	case '{':
		return sc.object(p, depth)
	case '[':
		return sc.array(p, depth)
	}
	sc.skip()
	return nil
}

func (sc *scanner) object(p *stripPlan, depth int) error {
	sc.pos++
	sc.put('{')
	first := true
	for {
		sc.space()
		switch sc.in[sc.pos] {
		case '}':
			sc.pos++
			sc.put('}')
			return nil
		case ',':
			sc.pos++
			sc.space()
		}
		keyStart := sc.pos
		escaped := sc.string()
		key := sc.in[keyStart:sc.pos]
		sc.space()
		sc.pos++ // ':'
		sc.space()
		var pp propPlan
		var ok bool
		if escaped {
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				return err
			}
			pp, ok = p.props[k]
		} else {
			pp, ok = p.props[string(key[1:len(key)-1])]
		}
		if ok && pp.strip && sc.in[sc.pos] == 'n' {
			if !sc.emit {
				return errFound
			}
			sc.pos += len(nullToken)
			continue
		}
		if !first {
			sc.put(',')
		}
		first = false
		if sc.emit {
			sc.out = append(sc.out, key...)
			sc.out = append(sc.out, ':')
		}
		child := p.extra
		if ok {
			child = pp.plan
		}
		if err := sc.value(child, depth+1); err != nil {
			return err
		}
	}
}

func (sc *scanner) array(p *stripPlan, depth int) error {
	sc.pos++
	sc.put('[')
	first := true
	for {
		sc.space()
		switch sc.in[sc.pos] {
		case ']':
			sc.pos++
			sc.put(']')
			return nil
		case ',':
			sc.pos++
		}
		if !first {
			sc.put(',')
		}
		first = false
		if err := sc.value(p.items, depth+1); err != nil {
			return err
		}
	}
}

func (sc *scanner) put(c byte) {
	if sc.emit {
		sc.out = append(sc.out, c)
	}
}

func (sc *scanner) space() {
	for sc.pos < len(sc.in) {
		switch sc.in[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// string moves past the string at sc.pos and reports whether it holds an
// escape.
func (sc *scanner) string() (escaped bool) {
	sc.pos++
	for {
		switch sc.in[sc.pos] {
		case '"':
			sc.pos++
			return escaped
		case '\\':
			escaped = true
			sc.pos++
		}
		sc.pos++
	}
}

// skip moves past the value at sc.pos, copying it when emitting.
func (sc *scanner) skip() {
	start := sc.pos
	switch sc.in[sc.pos] {
	case '"':
		sc.string()
	case '{', '[':
		depth := 0
	loop:
		for {
			switch sc.in[sc.pos] {
			case '"':
				sc.string()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					sc.pos++
					break loop
				}
			}
			sc.pos++
		}
	default:
		for sc.pos < len(sc.in) && !delimiter(sc.in[sc.pos]) {
			sc.pos++
		}
	}
	if sc.emit {
		sc.out = append(sc.out, sc.in[start:sc.pos]...)
	}
}

// delimiter reports whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
