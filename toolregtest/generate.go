package toolregtest

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// types are the JSON types to try for s, in the order to try them: the
// non-null types in an order the seed picks, then null (null first past
// softDepth, where it ends a recursion). Without "type", the type follows
// from the keywords; a schema with none of them takes a string.
func (g *generator) types(s *jsonvalue.Value, depth int) []string {
	var ts []string
	switch t := s.Get("type"); {
	case t.IsString():
		ts = []string{t.Text}
	case t != nil && t.Kind == jsonvalue.Array:
		for _, v := range t.Items {
			if v.IsString() {
				ts = append(ts, v.Text)
			}
		}
	default:
		ts = []string{inferType(s)}
	}
	var out []string
	null := false
	for _, i := range g.rng.Perm(len(ts)) {
		if ts[i] == "null" {
			null = true
		} else {
			out = append(out, ts[i])
		}
	}
	if null {
		if depth >= softDepth {
			return append([]string{"null"}, out...)
		}
		out = append(out, "null")
	}
	return out
}

// inferType is the type the keywords of a schema without "type" are about.
func inferType(s *jsonvalue.Value) string {
	for _, k := range []struct{ typ, keys string }{
		{"object", "properties required additionalProperties patternProperties propertyNames minProperties maxProperties dependentRequired"},
		{"array", "items prefixItems minItems maxItems uniqueItems contains"},
		{"string", "minLength maxLength pattern format"},
		{"number", "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf"},
	} {
		for _, key := range strings.Fields(k.keys) {
			if s.Get(key) != nil {
				return k.typ
			}
		}
	}
	return "string"
}

// typed makes a value of type t for the node.
func (g *generator) typed(n node, t string, depth int) (*jsonvalue.Value, error) {
	switch t {
	case "null":
		return &jsonvalue.Value{Kind: jsonvalue.Null}, nil
	case "boolean":
		return jsonvalue.NewBool(g.rng.IntN(2) == 0), nil
	case "integer", "number":
		return g.number(n, t == "integer")
	case "string":
		v, err := g.str(n)
		if err == nil {
			g.bytes += len(v.Text)
		}
		return v, err
	case "object":
		return g.object(n, depth)
	case "array":
		return g.array(n, depth)
	}
	return nil, n.fail("unknown type %q", t)
}

// typeAllows says whether v is of a type the schema's "type" names (any
// type when it names none).
func typeAllows(s, v *jsonvalue.Value) bool {
	t := s.Get("type")
	if t == nil {
		return true
	}
	names := []*jsonvalue.Value{t}
	if t.Kind == jsonvalue.Array {
		names = t.Items
	}
	for _, name := range names {
		switch {
		case !name.IsString():
		case v.Kind == jsonvalue.Null && name.Text == "null",
			v.Kind == jsonvalue.Bool && name.Text == "boolean",
			v.Kind == jsonvalue.String && name.Text == "string",
			v.Kind == jsonvalue.Object && name.Text == "object",
			v.Kind == jsonvalue.Array && name.Text == "array",
			v.Kind == jsonvalue.Number && name.Text == "number":
			return true
		case v.Kind == jsonvalue.Number && name.Text == "integer":
			if r, ok := new(big.Rat).SetString(v.Text); ok && r.IsInt() {
				return true
			}
		}
	}
	return false
}

func typeText(s *jsonvalue.Value) string {
	if t := s.Get("type"); t != nil {
		return string(t.Encode())
	}
	return "any"
}

// intAt is the non-negative integer s holds at key (bounded, so that a
// huge maxItems does not make a huge array), or def.
func intAt(s *jsonvalue.Value, key string, def int) int {
	r := ratAt(s, key)
	if r == nil || r.Sign() < 0 {
		return def
	}
	i := new(big.Int).Quo(r.Num(), r.Denom())
	if !i.IsInt64() || i.Int64() > 1<<20 {
		return 1 << 20
	}
	return int(i.Int64())
}

// ratAt is the number s holds at key, exactly, or nil.
func ratAt(s *jsonvalue.Value, key string) *big.Rat {
	v := s.Get(key)
	if v == nil || v.Kind != jsonvalue.Number {
		return nil
	}
	r, ok := new(big.Rat).SetString(v.Text)
	if !ok {
		return nil
	}
	return r
}

// bound is a lower or an upper bound of a number: the inclusive keyword,
// the exclusive one (a number, or draft 4's boolean beside the inclusive
// one), whichever is tighter; upper says which way is tighter.
func bound(s *jsonvalue.Value, inclusive, exclusive string, upper bool) (b *big.Rat, strict bool) {
	b = ratAt(s, inclusive)
	if e := s.Get(exclusive); e != nil && e.Kind == jsonvalue.Bool {
		return b, b != nil && e.Bool
	}
	if e := ratAt(s, exclusive); e != nil {
		if b == nil {
			return e, true
		}
		c := e.Cmp(b)
		if (upper && c <= 0) || (!upper && c >= 0) {
			return e, true
		}
	}
	return b, false
}

// number makes a number (an integer when integer is set) within the
// bounds and a multiple of multipleOf, near a small positive number.
func (g *generator) number(n node, integer bool) (*jsonvalue.Value, error) {
	s := n.s
	lo, loStrict := bound(s, "minimum", "exclusiveMinimum", false)
	hi, hiStrict := bound(s, "maximum", "exclusiveMaximum", true)
	what := "number"
	if integer {
		what = "integer"
	}
	var step *big.Rat
	if m := ratAt(s, "multipleOf"); m != nil {
		if m.Sign() <= 0 {
			return nil, n.fail("multipleOf %s is not positive", m.RatString())
		}
		step = m
		if integer {
			// k*p/q (lowest terms) is an integer when q divides k: the
			// multiples of p.
			step = new(big.Rat).SetInt(m.Num())
		}
	} else if integer {
		step = big.NewRat(1, 1)
	}
	target := big.NewRat(int64(1+g.rng.IntN(10)), 1)
	if lo != nil && target.Cmp(lo) < 0 {
		target = lo
	}
	if hi != nil && target.Cmp(hi) > 0 {
		target = hi
	}
	if step != nil {
		var kmin, kmax *big.Int
		if lo != nil {
			q := new(big.Rat).Quo(lo, step)
			kmin = ceil(q)
			if loStrict && q.IsInt() {
				kmin.Add(kmin, big.NewInt(1))
			}
		}
		if hi != nil {
			q := new(big.Rat).Quo(hi, step)
			kmax = floor(q)
			if hiStrict && q.IsInt() {
				kmax.Sub(kmax, big.NewInt(1))
			}
		}
		if kmin != nil && kmax != nil && kmin.Cmp(kmax) > 0 {
			return nil, n.fail("no %s lies within %s", what, boundsText(s))
		}
		k := floor(new(big.Rat).Add(new(big.Rat).Quo(target, step), big.NewRat(1, 2)))
		if kmin != nil && k.Cmp(kmin) < 0 {
			k = kmin
		}
		if kmax != nil && k.Cmp(kmax) > 0 {
			k = kmax
		}
		return numberValue(new(big.Rat).Mul(new(big.Rat).SetInt(k), step)), nil
	}
	if lo != nil && hi != nil {
		if c := lo.Cmp(hi); c > 0 || (c == 0 && (loStrict || hiStrict)) {
			return nil, n.fail("no %s lies within %s", what, boundsText(s))
		}
	}
	inside := func(x *big.Rat) bool {
		return (lo == nil || x.Cmp(lo) > 0 || (!loStrict && x.Cmp(lo) == 0)) &&
			(hi == nil || x.Cmp(hi) < 0 || (!hiStrict && x.Cmp(hi) == 0))
	}
	if !inside(target) {
		switch {
		case lo != nil && hi != nil:
			target = new(big.Rat).Quo(new(big.Rat).Add(lo, hi), big.NewRat(2, 1))
		case lo != nil:
			target = new(big.Rat).Add(lo, big.NewRat(1, 1))
		default:
			target = new(big.Rat).Sub(hi, big.NewRat(1, 1))
		}
	}
	return numberValue(target), nil
}

func floor(r *big.Rat) *big.Int {
	return new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: rounds down, the denominator being positive
}

func ceil(r *big.Rat) *big.Int {
	q := floor(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// numberValue writes r as a JSON number, exactly when a short decimal
// can.
func numberValue(r *big.Rat) *jsonvalue.Value {
	text := r.FloatString(17)
	if r.IsInt() {
		text = r.Num().String()
	} else {
		for prec := 1; prec <= 30; prec++ {
			t := r.FloatString(prec)
			if back, ok := new(big.Rat).SetString(t); ok && back.Cmp(r) == 0 {
				text = t
				break
			}
		}
	}
	return &jsonvalue.Value{Kind: jsonvalue.Number, Text: text}
}

// boundsText names the keywords that bound a number, for an error.
func boundsText(s *jsonvalue.Value) string {
	var parts []string
	for _, k := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf"} {
		if v := s.Get(k); v != nil {
			parts = append(parts, k+" "+string(v.Encode()))
		}
	}
	return strings.Join(parts, ", ")
}

// sizes reads min and max of x (Length, Items, Properties) from the
// node's schema: an error when they contradict each other or ask for more
// than the generator makes.
func sizes(n node, x, unit string) (lo, hi int, err error) {
	lo, hi = intAt(n.s, "min"+x, 0), intAt(n.s, "max"+x, -1)
	if hi >= 0 && lo > hi {
		return 0, 0, n.fail("min%s %d is more than max%s %d", x, lo, x, hi)
	}
	if lo > maxMade {
		return 0, 0, n.fail("min%s %d is more than the %d %s the generator writes", x, lo, maxMade, unit)
	}
	return lo, hi, nil
}

// str makes a string of the node's length bounds, format and pattern.
func (g *generator) str(n node) (*jsonvalue.Value, error) {
	s := n.s
	minL, maxL, err := sizes(n, "Length", "characters")
	if err != nil {
		return nil, err
	}
	pattern, format := stringAt(s, "pattern"), stringAt(s, "format")
	var re *regexp.Regexp
	if pattern != "" {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return nil, n.fail("pattern %q is not a regular expression the generator reads (RE2 syntax): %v", pattern, err)
		}
	}
	ok := func(x string) bool {
		l := utf8.RuneCountInString(x)
		return l >= minL && (maxL < 0 || l <= maxL) && (re == nil || re.MatchString(x)) && g.accepts(n, jsonvalue.NewString(x))
	}
	formats := g.formatValues(format)
	for _, x := range formats {
		if ok(x) {
			return jsonvalue.NewString(x), nil
		}
	}
	if re != nil {
		if x, found := g.fromPattern(pattern, ok, minL, maxL); found {
			return jsonvalue.NewString(x), nil
		}
		return nil, n.fail("found no string that matches pattern %q%s%s", pattern, lengthText(minL, maxL), formatText(format))
	}
	if formats == nil {
		if x := fit(g.word(), minL, maxL); ok(x) {
			return jsonvalue.NewString(x), nil
		}
	}
	return nil, n.fail("found no string%s%s", lengthText(minL, maxL), formatText(format))
}

func lengthText(minL, maxL int) string {
	switch {
	case maxL >= 0:
		return fmt.Sprintf(" of length %d to %d", minL, maxL)
	case minL > 0:
		return fmt.Sprintf(" of length %d or more", minL)
	}
	return ""
}

func formatText(format string) string {
	if format == "" {
		return ""
	}
	return fmt.Sprintf(" in format %q", format)
}

// fit repeats or cuts w to a length within the bounds.
func fit(w string, minL, maxL int) string {
	for utf8.RuneCountInString(w) < minL {
		w += w
	}
	if maxL >= 0 {
		if r := []rune(w); len(r) > maxL {
			w = string(r[:maxL])
		}
	}
	return w
}

// formatValues are strings of a format the validator asserts, varied by
// the seed; nil for a format it does not know, which it does not check.
func (g *generator) formatValues(format string) []string {
	r := g.rng
	mo, d, h, mi, i := 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), 1+r.IntN(200)
	switch format {
	case "date-time":
		return []string{fmt.Sprintf("2025-%02d-%02dT%02d:%02d:00Z", mo, d, h, mi), "2025-01-01T00:00:00Z"}
	case "date":
		return []string{fmt.Sprintf("2025-%02d-%02d", mo, d)}
	case "time":
		return []string{fmt.Sprintf("%02d:%02d:00Z", h, mi)}
	case "duration":
		return []string{fmt.Sprintf("P%dD", d), fmt.Sprintf("PT%dM", mi+1)}
	case "email", "idn-email":
		return []string{fmt.Sprintf("user%d@example.com", i), "a@b.co"}
	case "hostname", "idn-hostname":
		return []string{fmt.Sprintf("host%d.example.com", i), "h.io"}
	case "ipv4":
		return []string{fmt.Sprintf("192.0.2.%d", i)}
	case "ipv6":
		return []string{fmt.Sprintf("2001:db8::%x", i)}
	case "uri", "iri":
		return []string{fmt.Sprintf("https://example.com/items/%d", i), "http://a.io"}
	case "uri-reference", "iri-reference":
		return []string{fmt.Sprintf("/items/%d", i)}
	case "uri-template":
		return []string{"https://example.com/items/{id}"}
	case "uuid":
		b := make([]byte, 16)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
		return []string{fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])}
	case "json-pointer":
		return []string{fmt.Sprintf("/items/%d", i)}
	case "relative-json-pointer":
		return []string{"0/items"}
	case "regex":
		return []string{"^[a-z]+$"}
	}
	return nil
}

// object makes an object: the required properties, some optional ones
// (none past softDepth), and entries of a map, within min and
// maxProperties.
func (g *generator) object(n node, depth int) (*jsonvalue.Value, error) {
	s := n.s
	props := objectAt(s, "properties")
	var required []string
	for _, r := range arrayAt(s, "required") {
		if r.IsString() && !contains(required, r.Text) {
			required = append(required, r.Text)
		}
	}
	addl := s.Get("additionalProperties")
	closed := isFalse(addl) || isFalse(s.Get("unevaluatedProperties"))
	minP, maxP, err := sizes(n, "Properties", "fields")
	if err != nil {
		return nil, err
	}
	if maxP >= 0 && len(required) > maxP {
		return nil, n.fail("%d fields are required, but maxProperties is %d", len(required), maxP)
	}
	names := append([]string(nil), required...)
	room := func() bool { return maxP < 0 || len(names) < maxP }
	for _, p := range props {
		if !contains(names, p.Key) && room() && (len(names) < minP || (depth < softDepth && g.rng.IntN(2) == 0)) {
			names = append(names, p.Key)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, dep := range objectAt(s, "dependentRequired") {
			if !contains(names, dep.Key) {
				continue
			}
			for _, r := range dep.Val.Items {
				if r.IsString() && !contains(names, r.Text) {
					names, changed = append(names, r.Text), true
				}
			}
		}
	}
	out := jsonvalue.NewObject()
	add := func(name string) error {
		c, err := g.property(n, name, props, addl, closed)
		if err != nil {
			return err
		}
		v, err := g.value(c, depth+1)
		if err != nil {
			return err
		}
		out.Set(name, v)
		return nil
	}
	// Properties in the order of the schema, as a model writes them.
	for _, p := range props {
		if contains(names, p.Key) {
			if err := add(p.Key); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range names {
		if out.Get(name) == nil {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	entries := 0
	if len(props) == 0 && addl != nil && addl.Kind == jsonvalue.Object && depth < softDepth {
		entries = 1 // a map: one entry shows it is read
	}
	entries = max(entries, minP-len(out.Members))
	if maxP >= 0 {
		entries = min(entries, maxP-len(out.Members))
	}
	for i := 0; entries > 0 && i < 16+minP; i++ {
		if closed {
			return nil, n.fail("minProperties is %d, but additionalProperties is false and the properties are %d", minP, len(props))
		}
		key := fmt.Sprintf("key%d", i+1)
		if pn := s.Get("propertyNames"); pn != nil {
			k, err := g.value(n.child("/propertyNames", n.path+"{}", pn), depth+1)
			if err != nil {
				return nil, err
			}
			if !k.IsString() {
				return nil, n.fail("propertyNames allows no string")
			}
			key = k.Text
		}
		if out.Get(key) != nil || hasMember(props, key) {
			continue
		}
		if err := add(key); err != nil {
			return nil, err
		}
		entries--
	}
	if len(out.Members) < minP {
		return nil, n.fail("found %d distinct fields, minProperties is %d", len(out.Members), minP)
	}
	return out, nil
}

// property is the node of the named property: from properties, a
// matching patternProperties, or additionalProperties.
func (g *generator) property(n node, name string, props []jsonvalue.Member, addl *jsonvalue.Value, closed bool) (node, error) {
	path := joinPath(n.path, name)
	for _, p := range props {
		if p.Key == name {
			return n.child("/properties/"+escapeToken(name), path, p.Val), nil
		}
	}
	for _, p := range objectAt(n.s, "patternProperties") {
		if re, err := regexp.Compile(p.Key); err == nil && re.MatchString(name) {
			return n.child("/patternProperties/"+escapeToken(p.Key), path, p.Val), nil
		}
	}
	if closed {
		return node{}, n.fail("field %q is required, but it is not among the properties and additionalProperties is false", name)
	}
	if addl != nil && addl.Kind == jsonvalue.Object {
		return n.child("/additionalProperties", path, addl), nil
	}
	return node{path: path, merged: true}, nil
}

// array makes an array within minItems and maxItems (one or two items
// before softDepth, minItems after), of distinct items when uniqueItems
// is set.
func (g *generator) array(n node, depth int) (*jsonvalue.Value, error) {
	s := n.s
	minI, maxI, err := sizes(n, "Items", "items")
	if err != nil {
		return nil, err
	}
	prefix := arrayAt(s, "prefixItems")
	items := s.Get("items")
	want := minI
	if depth < softDepth {
		want = max(minI, 1+g.rng.IntN(2))
	}
	if maxI >= 0 {
		want = min(want, maxI)
	}
	if isFalse(items) && want > len(prefix) {
		if want = len(prefix); want < minI {
			return nil, n.fail("minItems is %d, but items is false after %d prefixItems", minI, len(prefix))
		}
	}
	unique := s.Get("uniqueItems") != nil && s.Get("uniqueItems").Bool
	out := jsonvalue.NewArray()
	var seen []*jsonvalue.Value
	push := func(v *jsonvalue.Value) bool {
		for _, old := range seen {
			if unique && jsonvalue.Equal(old, v) {
				return false
			}
		}
		seen = append(seen, v)
		out.Items = append(out.Items, v)
		return true
	}
	if c := s.Get("contains"); c != nil && want > 0 {
		v, err := g.value(n.child("/contains", n.path+"[]", c), depth+1)
		if err != nil {
			return nil, err
		}
		push(v)
	}
	for i := len(out.Items); i < want; i++ {
		c := n.child("/items", n.path+"[]", items)
		if i < len(prefix) {
			c = n.child("/prefixItems/"+strconv.Itoa(i), fmt.Sprintf("%s[%d]", n.path, i), prefix[i])
		} else if items == nil {
			c = node{path: n.path + "[]", merged: true}
		}
		pushed := false
		for try := 0; try < 16 && !pushed; try++ {
			c.fresh = try > 0
			v, err := g.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			pushed = push(v)
		}
		if !pushed {
			if len(out.Items) >= minI {
				break
			}
			return nil, n.fail("uniqueItems is set and minItems is %d, but the item schema gave only %d distinct values", minI, len(out.Items))
		}
	}
	return out, nil
}

func isFalse(v *jsonvalue.Value) bool { return v != nil && v.Kind == jsonvalue.Bool && !v.Bool }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasMember(ms []jsonvalue.Member, key string) bool {
	for _, m := range ms {
		if m.Key == key {
			return true
		}
	}
	return false
}

// merge is one schema that asks what both a and b ask, as far as the
// generator needs: properties and required joined, types and enums
// intersected, the tighter of two bounds. Of two other keywords that
// differ, a's is kept: the validator then has the last word on the value.
func (g *generator) merge(n node, a, b *jsonvalue.Value) (*jsonvalue.Value, error) {
	for _, x := range []*jsonvalue.Value{a, b} {
		if isFalse(x) {
			return nil, n.fail("a branch of allOf is false: no value is allowed")
		}
	}
	if a.Kind != jsonvalue.Object {
		return b, nil
	}
	if b.Kind != jsonvalue.Object {
		return a, nil
	}
	out := jsonvalue.NewObject(append([]jsonvalue.Member(nil), a.Members...)...)
	for _, m := range b.Members {
		old := out.Get(m.Key)
		if old == nil {
			out.Set(m.Key, m.Val)
			continue
		}
		switch m.Key {
		case "properties":
			props := jsonvalue.NewObject(append([]jsonvalue.Member(nil), old.Members...)...)
			for _, p := range m.Val.Members {
				if q := props.Get(p.Key); q != nil {
					props.Set(p.Key, jsonvalue.NewObject(jsonvalue.Member{Key: "allOf", Val: jsonvalue.NewArray(q, p.Val)}))
				} else {
					props.Set(p.Key, p.Val)
				}
			}
			out.Set(m.Key, props)
		case "required", "allOf":
			out.Set(m.Key, jsonvalue.NewArray(append(append([]*jsonvalue.Value(nil), old.Items...), m.Val.Items...)...))
		case "type":
			t := intersectTypes(old, m.Val)
			if len(t.Items) == 0 {
				return nil, n.fail("type %s and type %s have no value in common", old.Encode(), m.Val.Encode())
			}
			out.Set(m.Key, t)
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
			if r, o := ratAt(b, m.Key), ratAt(a, m.Key); r != nil && o != nil && r.Cmp(o) > 0 {
				out.Set(m.Key, m.Val)
			}
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
			if r, o := ratAt(b, m.Key), ratAt(a, m.Key); r != nil && o != nil && r.Cmp(o) < 0 {
				out.Set(m.Key, m.Val)
			}
		case "enum":
			var both []*jsonvalue.Value
			for _, v := range old.Items {
				for _, w := range m.Val.Items {
					if jsonvalue.Equal(v, w) {
						both = append(both, v)
						break
					}
				}
			}
			if len(both) == 0 {
				return nil, n.fail("two enums, %s and %s, have no value in common", old.Encode(), m.Val.Encode())
			}
			out.Set(m.Key, jsonvalue.NewArray(both...))
		case "const":
			if !jsonvalue.Equal(old, m.Val) {
				return nil, n.fail("two consts, %s and %s, differ", old.Encode(), m.Val.Encode())
			}
		case "items", "additionalProperties", "propertyNames", "contains":
			if isFalse(old) || isFalse(m.Val) {
				out.Set(m.Key, jsonvalue.NewBool(false))
			} else {
				out.Set(m.Key, jsonvalue.NewObject(jsonvalue.Member{Key: "allOf", Val: jsonvalue.NewArray(old, m.Val)}))
			}
		}
	}
	return out, nil
}

// intersectTypes is the types both "type" keywords allow, integer being a
// number.
func intersectTypes(a, b *jsonvalue.Value) *jsonvalue.Value {
	list := func(t *jsonvalue.Value) []string {
		if t.IsString() {
			return []string{t.Text}
		}
		var out []string
		for _, v := range t.Items {
			if v.IsString() {
				out = append(out, v.Text)
			}
		}
		return out
	}
	lb := list(b)
	out := jsonvalue.NewArray()
	for _, x := range list(a) {
		switch {
		case contains(lb, x):
			out.Items = append(out.Items, jsonvalue.NewString(x))
		case x == "integer" && contains(lb, "number"), x == "number" && contains(lb, "integer"):
			out.Items = append(out.Items, jsonvalue.NewString("integer"))
		}
	}
	return out
}
