package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/bytedance/sonic"
	goccy "github.com/goccy/go-json"
)

// The floor rows: how fast the bytes can become the Args value at all,
// with no schema checked. toolreg validates; none of these does. They
// say how far toolreg's per-call cost is from the decoders it could not
// beat without giving validation up.

// floors lists the floor rows, in the order of the table.
func floors[A any]() []path[A] {
	return []path[A]{
		{"floor_json_v2", decodeWith[A](func(b []byte, a *A) error { return jsonv2.Unmarshal(b, a) })},
		{"floor_goccy", decodeWith[A](func(b []byte, a *A) error { return goccy.Unmarshal(b, a) })},
		{"floor_sonic", decodeWith[A](func(b []byte, a *A) error { return sonic.Unmarshal(b, a) })},
		{"floor_handwritten", decodeWith[A](handwritten[A])},
		{"floor_jsontext_tokens", jsontextTokens[A]},
	}
}

// decodeWith is a floor row that decodes with unmarshal, then calls the
// function.
func decodeWith[A any](unmarshal func([]byte, *A) error) func(testing.TB, shape[A]) call {
	return func(_ testing.TB, sh shape[A]) call {
		return func(ctx context.Context) (string, error) {
			var a A
			if err := unmarshal(sh.args, &a); err != nil {
				return "", err
			}
			return sh.fn(ctx, a)
		}
	}
}

// jsontextTokens reads every token of the arguments with jsontext, which
// checks that they are JSON (I-JSON: names once, UTF-8) and decodes
// nothing: the cost of validating the bytes alone. It returns the
// expected result, which it cannot compute.
func jsontextTokens[A any](_ testing.TB, sh shape[A]) call {
	var rd bytes.Reader
	dec := jsontext.NewDecoder(&rd)
	return func(context.Context) (string, error) {
		rd.Reset(sh.args)
		dec.Reset(&rd)
		for {
			if _, err := dec.ReadToken(); err != nil {
				return "", err
			}
			if dec.StackDepth() == 0 {
				return sh.want, nil
			}
		}
	}
}

// handwritten decodes the benchmarks' own Args types with a decoder
// written for each: no reflection, no validation, no I-JSON checks; it
// reads the arguments these benchmarks send and refuses what it does not
// expect. The floor of floors.
func handwritten[A any](b []byte, a *A) error {
	r := &reader{b: b}
	var err error
	switch a := any(a).(type) {
	case *SmallArgs:
		err = r.object(func(name []byte) error {
			switch string(name) {
			case "city":
				a.City, err = r.str()
			case "count":
				a.Count, err = r.int()
			default:
				return fmt.Errorf("unknown field %q", name)
			}
			return err
		})
	case *RichArgs:
		err = r.object(func(name []byte) error {
			switch string(name) {
			case "city":
				a.City, err = r.str()
			case "units":
				a.Units, err = r.str()
			case "days":
				err = r.array(func() error {
					d, err := r.int()
					a.Days = append(a.Days, d)
					return err
				})
			case "filter":
				err = r.object(func(name []byte) error {
					switch string(name) {
					case "min":
						a.Filter.Min, err = r.int()
					case "max":
						a.Filter.Max, err = r.int()
					default:
						return fmt.Errorf("unknown field %q", name)
					}
					return err
				})
			default:
				return fmt.Errorf("unknown field %q", name)
			}
			return err
		})
	case *LargeArgs:
		err = r.object(func(name []byte) error {
			switch string(name) {
			case "text":
				a.Text, err = r.str()
			case "tags":
				err = r.array(func() error {
					s, err := r.str()
					a.Tags = append(a.Tags, s)
					return err
				})
			case "items":
				err = r.array(func() error {
					var it LargeItem
					err := r.object(func(name []byte) error {
						switch string(name) {
						case "name":
							it.Name, err = r.str()
						case "qty":
							it.Qty, err = r.int()
						case "note":
							it.Note, err = r.str()
						default:
							return fmt.Errorf("unknown field %q", name)
						}
						return err
					})
					a.Items = append(a.Items, it)
					return err
				})
			default:
				return fmt.Errorf("unknown field %q", name)
			}
			return err
		})
	default:
		return fmt.Errorf("no hand-written decoder for %T", a)
	}
	return err
}

// reader is the hand-written decoder's cursor.
type reader struct {
	b []byte
	i int
}

var errUnexpected = errors.New("unexpected input")

func (r *reader) skip() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\n' || r.b[r.i] == '\t' || r.b[r.i] == '\r') {
		r.i++
	}
}

func (r *reader) expect(c byte) error {
	r.skip()
	if r.i >= len(r.b) || r.b[r.i] != c {
		return errUnexpected
	}
	r.i++
	return nil
}

// raw reads a string's bytes, escapes left as they are but for \" and
// \\ skipped over: the floor does not unescape.
func (r *reader) raw() ([]byte, error) {
	if err := r.expect('"'); err != nil {
		return nil, err
	}
	start := r.i
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case '\\':
			r.i += 2
			continue
		case '"':
			r.i++
			return r.b[start : r.i-1], nil
		}
		r.i++
	}
	return nil, errUnexpected
}

func (r *reader) str() (string, error) {
	b, err := r.raw()
	return string(b), err
}

func (r *reader) int() (int, error) {
	r.skip()
	start := r.i
	for r.i < len(r.b) && (r.b[r.i] == '-' || r.b[r.i] >= '0' && r.b[r.i] <= '9') {
		r.i++
	}
	n, err := strconv.Atoi(string(r.b[start:r.i]))
	return n, err
}

// list reads items separated by commas up to closing.
func (r *reader) list(closing byte, item func() error) error {
	r.skip()
	if r.i < len(r.b) && r.b[r.i] == closing {
		r.i++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		r.skip()
		if r.i >= len(r.b) {
			return errUnexpected
		}
		r.i++
		switch r.b[r.i-1] {
		case ',':
		case closing:
			return nil
		default:
			return errUnexpected
		}
	}
}

func (r *reader) object(member func(name []byte) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	return r.list('}', func() error {
		name, err := r.raw()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		return member(name)
	})
}

func (r *reader) array(item func() error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	return r.list(']', item)
}
