package toolreg

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg/internal/bytesize"
)

// A result's Text goes into the model's context whole, on every later step
// of a run: one call that returns a whole log, a table or a web page can
// crowd out the conversation, or overflow the context and fail the next
// request. So the registry holds the Text of every result to a limit, in
// its dispatch, which every call passes (Call, CallAll, every runner and
// adapter, the MCP server, imported MCP tools): a longer Text keeps its
// start and its end, with a notice between them that tells the model how
// much it does not see and what to do. Media are bounded by each adapter,
// by its provider's own limits, and count in nothing here.

// DefaultMaxResultBytes bounds the Text of every result, in bytes, unless
// the tool (WithMaxResultBytes) or the registry (WithDefaultMaxResultBytes)
// says otherwise. 100 kB is about 25,000 tokens of English and some 33,000
// of JSON: a fifth of a 128k-token context, so that one call cannot crowd
// out the conversation, while a long page or file still fits whole.
const DefaultMaxResultBytes = 100 * 1000

// NoResultLimit, given to WithMaxResultBytes or WithDefaultMaxResultBytes,
// turns the result limit off: every result reaches the model whole.
const NoResultLimit = -1

// maxSpillRef bounds, in bytes, the reference of a spilled result that the
// notice gives the model.
const maxSpillRef = 1000

// WithMaxResultBytes holds the Text of each of the tool's results to n
// bytes, in place of the registry's limit (WithDefaultMaxResultBytes); n < 1
// (NoResultLimit) turns the limit off for the tool. Raise it for a tool whose
// long results the model needs whole (a file it is to edit); lower it for
// a tool whose results are long and seldom read in full (a log). What a cut
// result holds is described at ResultCut.
func WithMaxResultBytes(n int) Option {
	if n < 1 {
		n = NoResultLimit
	}
	return Option{func(o *toolOptions) { o.maxResult = n }}
}

// MaxResultBytes is the tool's own result limit, from WithMaxResultBytes:
// 0 when it has none (the registry's applies), NoResultLimit when it is off.
// A hand-written AnyTool declares its own limit with a method of the same
// name, read the same way.
func (t *Tool[A, R]) MaxResultBytes() int { return t.opts.maxResult }

// WithDefaultMaxResultBytes holds the Text of every result to n bytes, for
// the tools without a limit of their own (WithMaxResultBytes); it is
// DefaultMaxResultBytes unless set, and n < 1 (NoResultLimit) turns it off.
//
// A tool's own limit replaces the registry's, whether larger, smaller or
// off: a tool declared WithMaxResultBytes(400_000) keeps results up to
// 400 kB in a registry whose default is 100 kB, and one declared
// WithMaxResultBytes(NoResultLimit) is never cut. Timeouts combine the
// other way: of a tool's WithTimeout and the registry's
// WithDefaultTimeout, the shorter holds.
func WithDefaultMaxResultBytes(n int) RegistryOption {
	if n < 1 {
		n = NoResultLimit
	}
	return RegistryOption{func(r *Registry) { r.maxResult = n }}
}

// WithResultSpill gives the host the whole of every result that the
// registry cuts (its text, or structured JSON it drops, or both), to store
// it: spill gets the call and its whole Output, and
// returns a reference to what it stored (a key, a path, a URL), which the
// notice gives the model; a tool of the host's can then read it back, a
// page at a time. spill runs on the call's path, with its context, after
// the tool and before the middleware sees the result, so a slow store
// holds the call up.
//
// When spill fails (an error, a panic, or a reference over 1,000 bytes),
// the result is cut all the same, without a reference: the failure is
// logged (WithLogger) and is in the Output's ResultCut.SpillErr, and never
// reaches the model.
func WithResultSpill(spill func(ctx context.Context, call ToolCall, whole Output) (ref string, err error)) RegistryOption {
	return RegistryOption{func(r *Registry) { r.spill = spill }}
}

// ResultCut is in Output.Cut when the registry held a result to its limit
// (WithMaxResultBytes, WithDefaultMaxResultBytes): what the model was not
// given, for the host. A cut result is not a failure: IsError and Err stay
// as the tool left them, and the model reads the start and the end of the
// Text with a notice between them that says how many bytes it does not see
// and that it may ask for less (a narrower query, a page).
//
// The Text is cut between characters, never inside one, and where a line,
// a JSON member or a word ends when one is near the cut (within 512 bytes),
// never inside a JSON escape: the kept start and end are at most Limit bytes
// together, and the notice adds a few hundred. Structured JSON cannot be
// cut and stay valid: when it is longer than Limit it is dropped from the
// Output (adapters that send it to the model, Gemini's and Bedrock's, send
// the Text instead) and kept here.
type ResultCut struct {
	// Limit is the limit the result was held to, in bytes.
	Limit int
	// TextBytes is the length of the whole Text, LeftOut the bytes of it
	// the model does not read (0 when only Structured was dropped).
	TextBytes, LeftOut int
	// Structured is the whole structured result when it was dropped from
	// the Output for being longer than Limit; nil when it was kept or
	// there was none. The MCP server sends it as the structuredContent that
	// a tool's output schema requires.
	Structured json.RawMessage
	// Ref is the reference WithResultSpill's function returned, given to
	// the model in the notice; "" without one.
	Ref string
	// SpillErr is why the spill failed; nil when it did not, or when the
	// registry has no spill.
	SpillErr error
}

// resultLimit is a tool's own result limit, 0 for none.
func resultLimit(t AnyTool) int {
	if l, ok := t.(interface{ MaxResultBytes() int }); ok {
		return l.MaxResultBytes()
	}
	return 0
}

// limitResult holds out, a result of the tool t (nil for a call of no
// tool), to the tool's result limit or else the registry's. A result
// within it is returned as it is, unread.
func (r *Registry) limitResult(ctx context.Context, call ToolCall, t AnyTool, out Output) Output {
	limit := r.maxResult
	if t != nil {
		if own := resultLimit(t); own != 0 {
			limit = own
		}
	}
	if limit <= 0 || len(out.Text) <= limit && len(out.Structured) <= limit {
		return out
	}
	return r.cut(ctx, call, out, limit)
}

// cut holds out, longer than limit, to it: see ResultCut.
func (r *Registry) cut(ctx context.Context, call ToolCall, out Output, limit int) Output {
	c := &ResultCut{Limit: limit, TextBytes: len(out.Text)}
	whole := out
	if len(out.Structured) > limit {
		c.Structured, out.Structured = out.Structured, nil
	}
	// A result whose structured JSON alone was dropped is spilled too: a
	// short text (a summary) beside it is all the model reads of it.
	if r.spill != nil {
		c.Ref, c.SpillErr = r.spillResult(ctx, call, whole)
		if c.SpillErr != nil {
			r.logger.Warn("toolreg: the whole of a cut result could not be stored", "tool", call.Name, "call_id", call.ID, "error", c.SpillErr.Error())
		}
	}
	if len(out.Text) > limit {
		var left int
		out.Text, left = cutText(out.Text, limit, c.Ref)
		c.LeftOut = left
	}
	out.Cut = c
	return out
}

// spillResult calls the registry's spill, whose failures and panics are
// the host's to know, never the call's.
func (r *Registry) spillResult(ctx context.Context, call ToolCall, whole Output) (ref string, err error) {
	defer func() {
		if p := recover(); p != nil {
			ref, err = "", fmt.Errorf("toolreg: the result spill panicked: %v\n%s", p, debug.Stack())
		}
	}()
	ref, err = r.spill(ctx, call, whole)
	switch {
	case err != nil:
		return "", fmt.Errorf("toolreg: the result spill failed: %w", err)
	case len(ref) > maxSpillRef:
		return "", fmt.Errorf("toolreg: the result spill returned a reference of %d bytes; it may have at most %d", len(ref), maxSpillRef)
	}
	return ref, nil
}

// cutText keeps the start (three quarters of limit) and the end (a quarter)
// of text, longer than limit, with the notice between them, and returns it
// with the number of bytes left out.
func cutText(text string, limit int, ref string) (string, int) {
	head := cutBefore(text, limit-limit/4)
	tail := cutAfter(text, len(text)-limit/4)
	left := tail - head
	var b strings.Builder
	b.Grow(head + len(text) - tail + 400 + len(ref))
	b.WriteString(text[:head])
	if head > 0 {
		b.WriteByte('\n') // the notice is a paragraph of its own
	}
	fmt.Fprintf(&b, "[... %s (%d bytes) of this result left out here, of %s in all: only its start and its end are shown. If you need what is missing, call the tool again asking for less, such as a narrower query or one page of the result.",
		bytesize.String(left), left, bytesize.String(len(text)))
	if ref != "" {
		fmt.Fprintf(&b, " The whole result is stored as %q.", ref)
	}
	b.WriteString(" ...]")
	if tail < len(text) {
		b.WriteByte('\n')
	}
	b.WriteString(text[tail:])
	return b.String(), left
}

// cutWindow is how far a cut moves, at most, to fall where a line, a JSON
// member or a word ends.
const cutWindow = 512

// cutBefore is where the kept start of text ends, at most at i: after the
// last line end, else the last comma or space, within cutWindow (and a
// quarter of i) before i; else at i, moved back to a character's start and
// out of a JSON escape.
func cutBefore(text string, i int) int {
	w := min(i/4, cutWindow)
	if j := strings.LastIndexByte(text[i-w:i], '\n'); j >= 0 {
		return i - w + j + 1
	}
	if j := strings.LastIndexAny(text[i-w:i], ", "); j >= 0 {
		return i - w + j + 1
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	if b := escapeAt(text, i); b >= 0 {
		return b
	}
	return i
}

// cutAfter is where the kept end of text starts, at least at i: after the
// first line end, else the first comma or space, within cutWindow (and a
// quarter of what is after i) after i; else at i, moved on to a character's
// start and out of a JSON escape.
func cutAfter(text string, i int) int {
	w := min((len(text)-i)/4, cutWindow)
	if j := strings.IndexByte(text[i:i+w], '\n'); j >= 0 {
		return i + j + 1
	}
	if j := strings.IndexAny(text[i:i+w], ", "); j >= 0 {
		return i + j + 1
	}
	if b := escapeAt(text, i); b >= 0 {
		i = b + 2
		if b+1 < len(text) && text[b+1] == 'u' {
			i = b + 6
		}
		i = min(i, len(text))
	}
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

// escapeAt is the start of the JSON escape (`\"`, `\n`, `\u00e9`) that a
// cut at i would split, -1 for none.
func escapeAt(text string, i int) int {
	for b := i - 1; b >= 0 && b >= i-5; b-- {
		if text[b] != '\\' {
			continue
		}
		run := 0 // the backslashes ending at b: an odd run starts an escape at b
		for k := b; k >= 0 && text[k] == '\\'; k-- {
			run++
		}
		end := b + 2
		if b+1 < len(text) && text[b+1] == 'u' {
			end = b + 6
		}
		if run%2 == 1 && end > i {
			return b
		}
		return -1
	}
	return -1
}
