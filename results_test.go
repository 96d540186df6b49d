package toolreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/internal/bytesize"
)

// splitCut splits a cut text into its kept start, the notice and its kept
// end, failing the test when there is no notice.
func splitCut(t *testing.T, cut string) (head, notice, tail string) {
	t.Helper()
	i := strings.Index(cut, "[... ")
	j := strings.Index(cut, " ...]")
	if i < 0 || j < i {
		t.Fatalf("no notice in %.200q", cut)
	}
	head, notice, tail = cut[:i], cut[i:j+len(" ...]")], cut[j+len(" ...]"):]
	// The notice is on a line of its own.
	if head != "" {
		head = strings.TrimSuffix(head, "\n")
		if !strings.HasSuffix(cut[:i], "\n") {
			t.Errorf("the notice does not start a line: %.100q", cut[:i])
		}
	}
	if tail != "" {
		if !strings.HasPrefix(tail, "\n") {
			t.Errorf("the notice does not end a line: %.100q", tail)
		}
		tail = tail[1:]
	}
	return head, notice, tail
}

// TestCutTextKeepsStartAndEnd: whatever the text and the limit, the cut
// keeps a start and an end of the text, at most limit bytes together, never
// splits a character, and says how much it left out of how much.
func TestCutTextKeepsStartAndEnd(t *testing.T) {
	texts := map[string]string{
		"ascii":        strings.Repeat("abcdefghij", 300),
		"two bytes":    strings.Repeat("é", 1500),
		"three bytes":  strings.Repeat("日本語", 500),
		"four bytes":   strings.Repeat("🙂", 800),
		"mixed":        strings.Repeat("aé日🙂", 400),
		"lines":        strings.Repeat("a line of the log\n", 200),
		"JSON":         `{"rows":[` + strings.Repeat(`{"id":1,"name":"né"},`, 200) + `{"id":2}]}`,
		"JSON escapes": `{"s":"` + strings.Repeat(`\u00e9\"\\\n`, 300) + `"}`,
	}
	for name, text := range texts {
		for _, limit := range []int{1, 2, 3, 4, 5, 7, 10, 33, 100, 999, len(text) - 1} {
			got, left := cutText(text, limit, "")
			if !utf8.ValidString(got) {
				t.Errorf("%s, limit %d: not UTF-8: %q", name, limit, got)
			}
			head, notice, tail := splitCut(t, got)
			if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
				t.Errorf("%s, limit %d: %q ... %q is not the start and the end of the text", name, limit, head, tail)
			}
			if len(head)+len(tail) > limit {
				t.Errorf("%s, limit %d: kept %d + %d bytes", name, limit, len(head), len(tail))
			}
			if left != len(text)-len(head)-len(tail) {
				t.Errorf("%s, limit %d: left out %d, kept %d of %d", name, limit, left, len(head)+len(tail), len(text))
			}
			if want := fmt.Sprintf("(%d bytes) of this result left out here, of %s in all", left, bytesize.String(len(text))); !strings.Contains(notice, want) {
				t.Errorf("%s, limit %d: notice %q, want %q", name, limit, notice, want)
			}
		}
	}
}

// TestCutTextWhereItCuts: a cut falls where a line, a JSON member or a word
// ends when one is near, and never inside a JSON escape.
func TestCutTextWhereItCuts(t *testing.T) {
	log := "started\n" + strings.Repeat("a line of the log\n", 1000) + "stopped: out of disk"
	head, _, tail := splitCut(t, first(cutText(log, 2000, "")))
	if !strings.HasPrefix(head, "started\n") || !strings.HasSuffix(head, "a line of the log\n") || !strings.HasPrefix(tail, "a line of the log\n") || !strings.HasSuffix(tail, "stopped: out of disk") {
		t.Errorf("a log is not cut at line ends: %q ... %q", head[len(head)-30:], tail[:30])
	}

	rows := `[` + strings.Repeat(`{"id":12345,"name":"a"},`, 1000) + `{"id":0}]`
	head, _, tail = splitCut(t, first(cutText(rows, 1000, "")))
	if !strings.HasSuffix(head, ",") || !strings.HasPrefix(tail, `"name":"a"}`) && !strings.HasPrefix(tail, `{"id"`) {
		t.Errorf("JSON is not cut after a member: %q ... %q", head[len(head)-20:], tail[:20])
	}

	// One long string of escapes, with nowhere better to cut: each part
	// holds whole escapes.
	for _, escape := range []string{`\u00e9`, `\"`, `\\`, `\n`, `é\u0041\\\"`} {
		s := strings.Repeat(escape, 1000)
		for limit := 1; limit < 40; limit++ {
			head, _, tail := splitCut(t, first(cutText(`"`+s+`"`, limit, "")))
			for _, part := range []string{strings.TrimPrefix(head, `"`), strings.TrimSuffix(tail, `"`)} {
				var v string
				if err := json.Unmarshal([]byte(`"`+part+`"`), &v); err != nil {
					t.Errorf("%s, limit %d: the cut splits an escape: %q: %v", escape, limit, part, err)
				}
			}
		}
	}
}

func first(s string, _ int) string { return s }

func TestCutNotice(t *testing.T) {
	text := strings.Repeat("x", 100_000) + strings.Repeat("y", 100_000)
	got, left := cutText(text, 4000, "spill/42")
	if left != 196_000 {
		t.Errorf("left out %d", left)
	}
	want := strings.Repeat("x", 3000) + "\n" +
		`[... 196.0 kB (196000 bytes) of this result left out here, of 200.0 kB in all: only its start and its end are shown. ` +
		`If you need what is missing, call the tool again asking for less, such as a narrower query or one page of the result. ` +
		`The whole result is stored as "spill/42". ...]` + "\n" + strings.Repeat("y", 1000)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cut (-want +got):\n%s", diff)
	}
}

type page struct {
	Rows []string `json:"rows"`
}

// rawTool is a hand-written tool that returns out and may declare a limit.
type rawTool struct {
	name string
	out  Output
}

func (r rawTool) Name() string                                   { return r.name }
func (r rawTool) Description() string                            { return "A hand-written tool." }
func (r rawTool) InputSchema() json.RawMessage                   { return json.RawMessage(`{"type":"object"}`) }
func (r rawTool) OutputSchema() json.RawMessage                  { return nil }
func (r rawTool) Invoke(context.Context, json.RawMessage) Output { return r.out }

type limitedTool struct {
	rawTool
	limit int
}

func (l limitedTool) MaxResultBytes() int { return l.limit }

// TestResultLimit: which limit holds a result, on every kind of tool, and
// what the Output says of the cut.
func TestResultLimit(t *testing.T) {
	long := strings.Repeat("a", 5000)
	text := func(n int) func(context.Context, struct{}) (string, error) {
		return func(context.Context, struct{}) (string, error) { return strings.Repeat("a", n), nil }
	}
	rows := make([]string, 500)
	for i := range rows {
		rows[i] = fmt.Sprintf("row %d", i)
	}
	dynamic := MustNewDynamic("dynamic", "A dynamic tool.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, json.RawMessage) (string, error) { return long, nil }, WithMaxResultBytes(1500))

	reg := NewRegistry(WithDefaultMaxResultBytes(1000))
	reg.MustAdd(
		MustNew("at_limit", "Returns 1000 bytes.", text(1000)),
		MustNew("over_limit", "Returns 1001 bytes.", text(1001)),
		MustNew("own_limit", "Has a larger limit.", text(5000), WithMaxResultBytes(4000)),
		MustNew("no_limit", "Has none.", text(5000), WithMaxResultBytes(NoResultLimit)),
		MustNew("rows", "Returns rows.", func(context.Context, struct{}) (page, error) { return page{rows}, nil }),
		MustNew("fails", "Fails at length.", func(context.Context, struct{}) (string, error) { return "", errors.New(long) }),
		MustNew("summary", "A short text and long structured JSON.", func(context.Context, struct{}) (Output, error) {
			return Output{Text: "500 rows", Structured: json.RawMessage(`{"s":"` + long + `"}`)}, nil
		}),
		dynamic,
		rawTool{"raw", Output{Text: long}},
		limitedTool{rawTool{"raw_limited", Output{Text: long}}, 2000},
		limitedTool{rawTool{"raw_unlimited", Output{Text: long}}, NoResultLimit},
	)
	tests := []struct {
		tool      string
		limit     int // 0: not cut
		isError   bool
		structure bool // Structured dropped
	}{
		{tool: "at_limit"},
		{tool: "over_limit", limit: 1000},
		{tool: "own_limit", limit: 4000},
		{tool: "no_limit"},
		{tool: "rows", limit: 1000, structure: true},
		{tool: "fails", limit: 1000, isError: true},
		{tool: "dynamic", limit: 1500},
		{tool: "raw", limit: 1000},
		{tool: "raw_limited", limit: 2000},
		{tool: "raw_unlimited"},
	}
	for _, tt := range tests {
		out := reg.Call(context.Background(), tt.tool, nil)
		if out.IsError != tt.isError {
			t.Errorf("%s: IsError %v: %.200s", tt.tool, out.IsError, out.Text)
		}
		if tt.isError && !errors.Is(out.Err, ErrToolFailed) || !tt.isError && out.Err != nil {
			t.Errorf("%s: Err %v", tt.tool, out.Err)
		}
		if tt.limit == 0 {
			if out.Cut != nil || strings.Contains(out.Text, "left out") {
				t.Errorf("%s: cut: %+v", tt.tool, out.Cut)
			}
			continue
		}
		if out.Cut == nil {
			t.Errorf("%s: not cut: %d bytes", tt.tool, len(out.Text))
			continue
		}
		head, _, tail := splitCut(t, out.Text)
		kept := len(head) + len(tail)
		want := ResultCut{Limit: tt.limit, TextBytes: out.Cut.TextBytes, LeftOut: out.Cut.TextBytes - kept}
		if tt.structure {
			want.Structured = out.Cut.Structured
			if out.Structured != nil || !json.Valid(out.Cut.Structured) || len(out.Cut.Structured) != out.Cut.TextBytes {
				t.Errorf("%s: Structured %d bytes, the cut's %d", tt.tool, len(out.Structured), len(out.Cut.Structured))
			}
		}
		if diff := cmp.Diff(want, *out.Cut); diff != "" || kept > tt.limit || out.Cut.TextBytes <= tt.limit {
			t.Errorf("%s: kept %d bytes; cut (-want +got):\n%s", tt.tool, kept, diff)
		}
	}

	// A long structured result beside a short text: the text is whole,
	// the JSON dropped, and nothing is left out of what the model reads.
	out := reg.Call(context.Background(), "summary", nil)
	if out.Text != "500 rows" || out.Structured != nil || out.Cut == nil || out.Cut.LeftOut != 0 || len(out.Cut.Structured) != 5008 {
		t.Errorf("summary: %q, structured %d, cut %+v", out.Text, len(out.Structured), out.Cut)
	}
	// An unknown tool's text is held to the registry's limit.
	many := NewRegistry(WithDefaultMaxResultBytes(100))
	for i := range 200 {
		many.MustAdd(MustNew(fmt.Sprintf("tool_with_a_long_name_%d", i), "A tool.", text(1)))
	}
	if out := many.Call(context.Background(), "nope", nil); !errors.Is(out.Err, ErrUnknownTool) || out.Cut == nil || !strings.HasPrefix(out.Text, `there is no tool named "nope"`) {
		t.Errorf("unknown tool: %+v: %.200q", out.Cut, out.Text)
	}
	all := many.Select(func(AnyTool) bool { return true })
	if out := all.Call(context.Background(), "nope", nil); !errors.Is(out.Err, ErrUnknownTool) || out.Cut == nil {
		t.Errorf("unknown tool of a view: %+v: %.200q", out.Cut, out.Text)
	}
}

// TestResultLimitOnEveryPath: CallAll, a view and the middleware see the
// same cut result as Call; the limit is off when the registry says so.
func TestResultLimitOnEveryPath(t *testing.T) {
	long := strings.Repeat("é", 3000)
	tool := MustNew("long", "Returns a long text.", func(context.Context, struct{}) (string, error) { return long, nil }, WithTags("read"))
	reg := NewRegistry(WithDefaultMaxResultBytes(1000))
	reg.MustAdd(tool)
	var seen []*ResultCut
	reg.Use(func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			out := next.HandleCall(ctx, call)
			seen = append(seen, out.Cut)
			return out
		})
	})
	want := reg.Call(context.Background(), "long", nil)
	if want.Cut == nil || len(want.Text) > 1500 {
		t.Fatalf("not cut: %d bytes", len(want.Text))
	}
	all := reg.CallAll(context.Background(), []ToolCall{{Name: "long"}, {Name: "long"}})
	view := reg.Select(Tagged("read")).Call(context.Background(), "long", nil)
	for _, got := range append(all, view) {
		if diff := cmp.Diff(want.Text, got.Text); diff != "" || got.Cut == nil {
			t.Errorf("another path (-want +got):\n%s", diff)
		}
	}
	if len(seen) != 4 || seen[0] == nil || seen[3] == nil {
		t.Errorf("the middleware saw %v", seen)
	}

	off := NewRegistry(WithDefaultMaxResultBytes(NoResultLimit))
	off.MustAdd(tool)
	if out := off.Call(context.Background(), "long", nil); out.Text != long || out.Cut != nil {
		t.Errorf("limit off: cut to %d bytes", len(out.Text))
	}
	zero := NewRegistry(WithDefaultMaxResultBytes(0))
	zero.MustAdd(tool)
	if out := zero.Call(context.Background(), "long", nil); out.Text != long {
		t.Errorf("WithDefaultMaxResultBytes(0) is not off")
	}
}

// TestResultWithinLimitIsNotCopied: the check reads a result's length,
// not its bytes: a result within the limit is the tool's own string.
func TestResultWithinLimitIsNotCopied(t *testing.T) {
	long := strings.Repeat("a", DefaultMaxResultBytes)
	reg := NewRegistry()
	reg.MustAdd(MustNew("long", "Returns a long text.", func(context.Context, struct{}) (string, error) { return long, nil }))
	out := reg.Call(context.Background(), "long", nil)
	if unsafe.StringData(out.Text) != unsafe.StringData(long) || out.Cut != nil {
		t.Errorf("a result within the default limit was copied or cut")
	}
}

// TestResultSpill: the host's spill gets the whole result and its
// reference reaches the model; a spill that fails, panics or answers with
// a reference too long leaves the cut as it is and is logged, never read by
// the model.
func TestResultSpill(t *testing.T) {
	long := strings.Repeat("a", 5000)
	var logged bytes.Buffer
	var spilled []Output
	var spillErr error
	var ref string
	var panics bool
	reg := NewRegistry(WithDefaultMaxResultBytes(1000), WithLogger(slog.New(slog.NewTextHandler(&logged, nil))),
		WithResultSpill(func(ctx context.Context, call ToolCall, whole Output) (string, error) {
			if panics {
				panic("the store is gone")
			}
			spilled = append(spilled, whole)
			return ref, spillErr
		}))
	reg.MustAdd(MustNew("long", "Returns a long text.", func(context.Context, struct{}) (string, error) { return long, nil }),
		MustNew("short", "Returns a short text.", func(context.Context, struct{}) (string, error) { return "ok", nil }),
		MustNew("summary", "Returns a summary and long JSON.", func(context.Context, struct{}) (Output, error) {
			return Output{Text: "5000 bytes", Structured: json.RawMessage(`"` + long + `"`)}, nil
		}))

	ref = "results/1"
	out := reg.Call(context.Background(), "long", json.RawMessage(`{}`))
	if len(spilled) != 1 || spilled[0].Text != long || spilled[0].Cut != nil {
		t.Fatalf("spilled %d", len(spilled))
	}
	if out.Cut.Ref != ref || out.Cut.SpillErr != nil || !strings.Contains(out.Text, `The whole result is stored as "results/1".`) {
		t.Errorf("cut %+v: %q", out.Cut, out.Text)
	}
	reg.Call(context.Background(), "short", nil)
	if len(spilled) != 1 {
		t.Errorf("a result within the limit was spilled")
	}
	// Only its structured JSON dropped: the host gets it whole all the same.
	out = reg.Call(context.Background(), "summary", nil)
	if len(spilled) != 2 || len(spilled[1].Structured) != len(long)+2 || out.Text != "5000 bytes" || out.Structured != nil || out.Cut.Ref != ref {
		t.Errorf("a result whose structured JSON was dropped: %d spilled, cut %+v, text %q", len(spilled), out.Cut, out.Text)
	}
	spilled = spilled[:1]

	for _, tt := range []struct {
		name   string
		set    func()
		reason string
	}{
		{"an error", func() { ref, spillErr = "results/2", errors.New("disk full") }, "the result spill failed: disk full"},
		{"a panic", func() { panics = true }, "the result spill panicked: the store is gone"},
		{"a long reference", func() { ref, spillErr = strings.Repeat("r", 1001), nil }, "a reference of 1001 bytes; it may have at most 1000"},
	} {
		ref, spillErr, panics = "", nil, false
		tt.set()
		logged.Reset()
		out := reg.Call(context.Background(), "long", nil)
		if out.IsError || out.Cut == nil || out.Cut.Ref != "" || out.Cut.SpillErr == nil || !strings.Contains(out.Cut.SpillErr.Error(), tt.reason) {
			t.Errorf("%s: %+v", tt.name, out.Cut)
			continue
		}
		if strings.Contains(out.Text, "stored as") || strings.Contains(out.Text, "spill") || len(out.Text) > 1400 {
			t.Errorf("%s: the model reads %q", tt.name, out.Text)
		}
		if !strings.Contains(logged.String(), "could not be stored") || !strings.Contains(logged.String(), tt.reason) {
			t.Errorf("%s: logged %q", tt.name, logged.String())
		}
	}
	ref, spillErr, panics = "", errors.New("disk full"), false
	if out := reg.Call(context.Background(), "long", nil); !errors.Is(out.Cut.SpillErr, spillErr) {
		t.Errorf("SpillErr %v does not wrap the spill's error", out.Cut.SpillErr)
	}
}

// TestLoggingACutResult: Logging says how much of a result was left out.
func TestLoggingACutResult(t *testing.T) {
	var logged bytes.Buffer
	reg := NewRegistry(WithDefaultMaxResultBytes(1000))
	reg.Use(Logging(slog.New(slog.NewTextHandler(&logged, nil))))
	reg.MustAdd(MustNew("long", "Returns a long text.", func(context.Context, struct{}) (string, error) { return strings.Repeat("a", 5000), nil }))
	reg.Call(context.Background(), "long", nil)
	if !strings.Contains(logged.String(), "result_bytes=5000 left_out_bytes=4000") {
		t.Errorf("logged %q", logged.String())
	}
}
