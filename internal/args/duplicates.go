package args

import (
	"bytes"
	"fmt"
	"hash/maphash"

	"github.com/go-json-experiment/json/jsontext"
)

// The fast path reads with jsontext's own check of duplicate names turned
// off: jsontext spends about 160 bytes on each name of a large object,
// more than the value it decodes. The fast path finds duplicates itself
// where it costs nothing (the fields seen of a struct, the keys of the Go
// map it fills) and, in the values it skips or keeps as bytes, with
// checkNames. Either way the call is refused as the reference path refuses
// it: at the first duplicate in document order, naming it.

// errDuplicate is a name met twice in one object.
type errDuplicate struct {
	at   path // the object
	name string
}

func (e *errDuplicate) Error() string { return "duplicate member " + e.name }

func (st *fastState) duplicate(name string) error {
	return &errDuplicate{at: append(path(nil), st.path...), name: name}
}

// duplicateProblem words a name met twice in the object at p.
func duplicateProblem(p path, name string) *Problem {
	return &Problem{Path: joinPath(p.String(), name), Message: fmt.Sprintf("the member %q appears more than once in this object; send each member once", name)}
}

var seed = maphash.MakeSeed()

// skip reads the next value whole, as the reference reader reads it:
// token by token, refusing a name met twice in an object of it at the
// first such name in document order, and returns its bytes. Each object
// keeps the hashes of its names; a hash met twice is settled by comparing
// the names. It allocates a map of hashes per object, nothing per name.
func (st *fastState) skip() ([]byte, error) {
	start := st.dec.InputOffset()
	c := namesChecker{st: st}
	if err := c.value(); err != nil {
		return nil, err
	}
	// From the end of the token before (a name, a comma) to the end of the
	// value: the value, after the separator.
	return bytes.TrimLeft(st.args[start:st.dec.InputOffset()], " \t\r\n:,"), nil
}

type namesChecker struct {
	st  *fastState
	at  []ref  // where the reader is, below st.path
	buf []byte // scratch for unquoted names
}

// ref is a step of a path kept as a view of the bytes: a quoted name, or
// an index.
type ref struct {
	quoted []byte
	index  int
}

func (c *namesChecker) value() error {
	dec := &c.st.dec
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		start := dec.InputOffset() - 1
		seen := make(map[uint64]struct{}, sizeAt(c.st.sizes, start))
		for dec.PeekKind() != '}' {
			quoted, err := dec.ReadValue()
			if err != nil {
				return err
			}
			h := maphash.Bytes(seed, c.unquote(quoted))
			if _, ok := seen[h]; ok && c.seenBefore(start, quoted) {
				return c.duplicate(quoted)
			}
			seen[h] = struct{}{}
			c.at = append(c.at, ref{quoted: quoted})
			if err := c.value(); err != nil {
				return err
			}
			c.at = c.at[:len(c.at)-1]
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			c.at = append(c.at, ref{index: i})
			if err := c.value(); err != nil {
				return err
			}
			c.at = c.at[:len(c.at)-1]
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}

// unquote returns a name's text: a view of raw, or the scratch buffer when
// the name has escapes.
func (c *namesChecker) unquote(quoted []byte) []byte {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted[1 : len(quoted)-1]
	}
	c.buf, _ = jsontext.AppendUnquote(c.buf[:0], quoted)
	return c.buf
}

// duplicate is the error of the name quoted met twice where the reader is.
func (c *namesChecker) duplicate(quoted []byte) error {
	p := append(path(nil), c.st.path...)
	for _, r := range c.at {
		if r.quoted == nil {
			p = append(p, index(r.index))
		} else {
			p = append(p, key(string(c.unquote(r.quoted))))
		}
	}
	return &errDuplicate{at: p, name: string(c.unquote(quoted))}
}

// seenBefore reads the object starting at start again, up to the name just
// read, looking for a name equal to it.
func (c *namesChecker) seenBefore(start int64, quoted []byte) bool {
	name := string(c.unquote(quoted))
	end := c.st.dec.InputOffset() - start - int64(len(quoted)) // where the name just read begins
	dec := jsontext.NewDecoder(bytes.NewReader(c.st.args[start:]), allowDuplicates)
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var buf []byte
	for dec.InputOffset() < end {
		q, err := dec.ReadValue()
		if err != nil || dec.InputOffset() > end {
			return false
		}
		buf, _ = jsontext.AppendUnquote(buf[:0], q)
		if string(buf) == name {
			return true
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
	return false
}
