package jsonvalue

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoundTrip parses and encodes again: member order, number literals
// and duplicate names as documented, strings escaped as little as JSON
// allows.
func TestRoundTrip(t *testing.T) {
	var large []string
	for i := range 40 {
		large = append(large, `"k`+strconv.Itoa(i)+`":`+strconv.Itoa(i))
	}
	largeDup := `{` + strings.Join(append(large, `"k3":"last"`, `"k39":"last"`), ",") + `}`
	largeWant := strings.NewReplacer(`"k3":3,`, `"k3":"last",`, `"k39":39`, `"k39":"last"`).Replace(`{` + strings.Join(large, ",") + `}`)

	tests := []struct {
		name, in, want string
	}{
		{"member order kept", `{"z":1,"a":2,"m":{"y":true,"b":null}}`, `{"z":1,"a":2,"m":{"y":true,"b":null}}`},
		{"number literals kept", `[18446744073709551615,-9223372036854775808,1.7976931348623157e308,1.0,1e2,-0]`,
			`[18446744073709551615,-9223372036854775808,1.7976931348623157e308,1.0,1e2,-0]`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\":{ } } ", `{"a":[1,2],"b":{}}`},
		{"duplicate keeps first position, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"duplicate in a large object", largeDup, largeWant},
		{"strings", `["<a&b>","é","\u2028","\u0001","tab\there","\"q\"\\","\ud800","\u00e9"]`,
			// A lone surrogate decodes to U+FFFD, written out as itself.
			`["<a&b>","é","\u2028","\u0001","tab\there","\"q\"\\","` + "\uFFFD" + `","é"]`},
		{"invalid UTF-8 becomes U+FFFD", "[\"a\xffb\"]", "[\"a\uFFFDb\"]"},
		{"scalars", `"s"`, `"s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got := string(v.Encode())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var a, b any
			if json.Unmarshal([]byte(tt.in), &a) == nil {
				if err := json.Unmarshal([]byte(got), &b); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(a, b); diff != "" {
					t.Errorf("the round trip changed the values (-in +out):\n%s", diff)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		tooDeep  bool
	}{
		{"empty", ``, false},
		{"truncated", `{"a":`, false},
		{"trailing data", `{} {}`, false},
		{"trailing comma", `[1,]`, false},
		{"bare word", `nope`, false},
		{"too deep", strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("no error; got %s", v.Encode())
			}
			if errors.Is(err, ErrTooDeep) != tt.tooDeep {
				t.Errorf("error %v: errors.Is(err, ErrTooDeep) = %v, want %v", err, !tt.tooDeep, tt.tooDeep)
			}
		})
	}
	deepest := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Parse([]byte(deepest)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"b":2}`, `{"a":1,"c":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`1`, `1.0`, false},
		{`"1"`, `1`, false},
		{`{"a":{"x":1,"y":2}}`, `{"a":{"y":2,"x":1}}`, true},
	}
	for _, tt := range tests {
		a, err := Parse([]byte(tt.a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse([]byte(tt.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := Equal(a, b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Equal(b, a); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestEdit(t *testing.T) {
	v, err := Parse([]byte(`{"a":1,"b":2,"c":3}`))
	if err != nil {
		t.Fatal(err)
	}
	shared := v.Members
	v.Set("b", NewString("two"))
	v.Set("d", NewArray(NewBool(true), NewObject()))
	v.Delete("a")
	v.Delete("nope")
	if diff := cmp.Diff(`{"b":"two","c":3,"d":[true,{}]}`, string(v.Encode())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if shared[0].Key != "a" {
		t.Errorf("Delete wrote into the members it was given: %v", shared)
	}
	if v.Get("c").Text != "3" || v.Get("a") != nil || (*Value)(nil).Get("a") != nil || NewString("x").Get("a") != nil {
		t.Error("Get found the wrong members")
	}
}
