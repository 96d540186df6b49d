package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// partialJSON writes in to a PartialArguments in one piece and returns
// its JSON, "<nil>" for none.
func partialJSON(in string) string {
	var a agent.PartialArguments
	a.WriteString(in)
	b := a.JSON()
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

func TestPartialArgumentsJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `<nil>`},
		{` `, `<nil>`},
		{`{`, `{}`},
		{`{"pa`, `{}`},
		{`{"path"`, `{}`},
		{`{"path":`, `{}`},
		{`{"path":"`, `{"path":""}`},
		{`{"path":"a.t`, `{"path":"a.t"}`},
		{`{"path":"a.txt",`, `{"path":"a.txt"}`},
		{`{"path":"a.txt","content":"line\`, `{"path":"a.txt","content":"line"}`},
		{`{"path":"a.txt","content":"line\n`, `{"path":"a.txt","content":"line\n"}`},
		{`{"c":"\u00e`, `{"c":""}`},
		{`{"c":"x\u00e9`, `{"c":"x\u00e9"}`},
		{`{"c":"x\ud83d`, `{"c":"x"}`}, // half a surrogate pair waits for its other half
		{`{"c":"x\ud83d\ude00`, `{"c":"x\ud83d\ude00"}`},
		{"{\"c\":\"x\xe2\x82", `{"c":"x"}`}, // half a UTF-8 character
		{"{\"c\":\"x\xe2\x82\xac", "{\"c\":\"x\xe2\x82\xac\"}"},
		{`{"n":12`, `{}`}, // a number may go on
		{`{"n":12,`, `{"n":12}`},
		{`{"n":12 `, `{"n":12}`},
		{`{"n":-1.5e+3}`, `{"n":-1.5e+3}`},
		{`{"b":tr`, `{}`},
		{`{"b":true`, `{"b":true}`},
		{`{"a":[1,{"b`, `{"a":[1,{}]}`},
		{`{"a":[1,[`, `{"a":[1,[]]}`},
		{`{"a":[null,`, `{"a":[null]}`},
		{`[`, `[]`},
		{`"ab`, `"ab"`},
		{`12`, `12`}, // a number at the top shows as it is
		{`12.`, `<nil>`},
		{` {} `, ` {} `},
		// Not JSON: shown as nothing, for good.
		{`{]`, `<nil>`},
		{`{"a" 1`, `<nil>`},
		{`[1]]`, `<nil>`},
		{`{} x`, `<nil>`},
		{`{"a":01`, `<nil>`},
		{"{\"a\":\"\x01", `<nil>`},
		{"{\"a\":\"\xff", "{\"a\":\"\xff\"}"}, // not UTF-8, as encoding/json lets by
		{"{\"a\":\"\xe2x", "{\"a\":\"\xe2x\"}"},
		{`{"a":\`, `<nil>`},
		{`{"a":"\x`, `<nil>`},
		{`{"a":"\u12g`, `<nil>`},
		{strings.Repeat("[", agent.MaxPartialDepth+1), `<nil>`},
	} {
		if got := partialJSON(tc.in); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestPartialArgumentsPieces: every prefix, written byte by byte and
// asked after each, gives what it gives written whole; the JSON is valid.
func TestPartialArgumentsPieces(t *testing.T) {
	in := `{"path":"notes/ü.txt","content":"a\"b\\c\ud83d\ude00€ end","mode":420,"append":false,"tags":["x",{"k":[]}],"n":null}`
	var a agent.PartialArguments
	for i := range len(in) {
		if _, err := a.WriteString(in[i : i+1]); err != nil {
			t.Fatal(err)
		}
		got, want := a.JSON(), partialJSON(in[:i+1])
		if got == nil && want == "<nil>" {
			continue
		}
		if string(got) != want || !json.Valid(got) {
			t.Fatalf("after %q: got %s, want %s", in[:i+1], got, want)
		}
	}
	if got := string(a.JSON()); got != in {
		t.Errorf("whole: got %s", got)
	}
}

func TestPartialArgumentsErr(t *testing.T) {
	var a agent.PartialArguments
	a.WriteString(`{"a":1`)
	if _, err := a.WriteString(`]`); !errors.Is(err, agent.ErrPartialJSON) {
		t.Fatalf("err %v", err)
	}
	if _, err := a.WriteString(`}`); !errors.Is(err, agent.ErrPartialJSON) || !errors.Is(a.Err(), agent.ErrPartialJSON) {
		t.Fatalf("err %v", err)
	}
	var v map[string]any
	if err := a.Decode(&v); !errors.Is(err, agent.ErrPartialJSON) || v != nil {
		t.Errorf("decode %v %v", v, err)
	}
}

// TestPartialCalls: two calls of a step kept apart by id, calls without
// id by position; a new step starts afresh.
func TestPartialCalls(t *testing.T) {
	type args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	var c agent.PartialCalls
	ev := func(step int, kind agent.EventKind, id, delta string) *agent.PartialArguments {
		return c.Add(agent.Event{Kind: kind, Step: step, Call: toolreg.ToolCall{ID: id, Name: "write_file"}, Delta: delta})
	}
	decode := func(a *agent.PartialArguments) args {
		var v args
		if err := a.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ev(1, agent.CallStarted, "a", "")
	ev(1, agent.CallStarted, "b", "")
	ev(1, agent.ArgumentsDelta, "a", `{"path":"a.txt","con`)
	b := ev(1, agent.ArgumentsDelta, "b", `{"path":"b.txt","content":"hel`)
	a := ev(1, agent.ArgumentsDelta, "a", `tent":"wor`)
	if diff := cmp.Diff([]args{{"a.txt", "wor"}, {"b.txt", "hel"}}, []args{decode(a), decode(b)}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := ev(1, agent.CallReady, "a", ""); got != nil {
		t.Errorf("CallReady gave %v", got)
	}
	if got := ev(1, agent.ArgumentsDelta, "a", `ld`); got != nil {
		t.Errorf("a forgotten call gave %s", got.JSON())
	}
	ev(2, agent.CallStarted, "", "")
	ev(2, agent.ArgumentsDelta, "", `{"path":"x`)
	ev(2, agent.CallStarted, "", "")
	y := ev(2, agent.ArgumentsDelta, "", `{"path":"y`)
	if got := decode(y); got.Path != "y" {
		t.Errorf("second call without id: %+v", got)
	}
	if got := ev(2, agent.ArgumentsDelta, "b", `lo`); got != nil {
		t.Errorf("a call of an earlier step gave %s", got.JSON())
	}
}

// FuzzPartialArguments: any prefix of a JSON text, written in any pieces,
// gives valid JSON or nil; the whole text gives itself.
func FuzzPartialArguments(f *testing.F) {
	for _, s := range []string{`{"path":"a.txt","content":"x\ny\u00e9\ud83d\ude00"}`, `[1,-2.5e3,true,false,null,{}]`, `"s"`, `0`, ` {"a" : [ ] } `} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, in string, step uint8) {
		if !json.Valid([]byte(in)) {
			return
		}
		n := int(step%16) + 1
		var a agent.PartialArguments
		for i := 0; i < len(in); i += n {
			if _, err := a.WriteString(in[i:min(i+n, len(in))]); err != nil {
				t.Fatalf("%q after %d: %v", in, i, err)
			}
			if b := a.JSON(); b != nil && !json.Valid(b) {
				t.Fatalf("%q after %d: %q is not JSON", in, i+n, b)
			}
		}
		if got := a.JSON(); string(got) != in {
			t.Fatalf("whole %q gave %q", in, got)
		}
	})
}

// BenchmarkPartialArguments: a 1 MB write_file content in 1,000 and
// 100,000 deltas, the JSON asked after each.
func BenchmarkPartialArguments(b *testing.B) {
	content, _ := json.Marshal(strings.Repeat("hello, wörld\n", 1<<20/14))
	args := `{"path":"big.txt","content":` + string(content) + `}`
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("%d_deltas", n), func(b *testing.B) {
			size := (len(args) + n - 1) / n
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				var a agent.PartialArguments
				for i := 0; i < len(args); i += size {
					a.WriteString(args[i:min(i+size, len(args))])
					if a.JSON() == nil && i > 0 {
						b.Fatal("no JSON")
					}
				}
			}
		})
	}
}
