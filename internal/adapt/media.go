package adapt

import (
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/bytesize"
)

// MediaRules say what one provider takes of the media of tool results
// (toolreg.Output.Media): which kinds and MIME types, how large each, and
// how much in one turn. Each adapter holds its provider's, with the
// documented limits they come from; what falls outside them reaches the
// model as a line of text that says what was left out and why, never as a
// request the provider refuses, and never silently.
//
// The bounds count bytes before base64. The Total of a turn counts only
// that turn's results: the prompt and earlier turns count against the same
// request limit, and only the host sees them. A protocol that answers each
// call in a message of its own (MCP) bounds each result instead: it sets
// PerResult and starts a Turn for each result.
type MediaRules struct {
	// Provider names the provider to the model: "Anthropic".
	Provider string
	// Where says where the media go: "in tool results".
	Where string
	// Kinds holds a rule for each kind the provider takes ("image",
	// "audio", "file", as toolreg.Media.Kind names them); a kind without
	// one is left out.
	Kinds map[string]MediaRule
	// Total bounds the bytes of media in one turn's results, or in one
	// result's with PerResult.
	Total int
	// PerResult says that Total bounds each result on its own, and the
	// line of what is left out says so.
	PerResult bool
}

// MediaRule is what a provider takes of one kind of media.
type MediaRule struct {
	// Types are the MIME types it takes, lower case, without parameters.
	Types []string
	// Max bounds the bytes of one item.
	Max int
}

// Piece is one item of a result's media as a provider gets it: the Media
// to send in its own form (its MIME type reduced to the bare lower-case
// type), or else Note, the line of text that stands in its place.
type Piece struct {
	Media *toolreg.Media
	Note  string
}

// Turn bounds the media of one turn's results: Take each result's media in
// call order, and the Total counts them all.
type Turn struct {
	rules *MediaRules
	used  int
}

// Turn starts the media of one turn's results.
func (r *MediaRules) Turn() *Turn { return &Turn{rules: r} }

// Take sorts the media of one result, in order: each the provider takes is
// a Piece with Media, each it does not a Piece with the Note that says so.
func (t *Turn) Take(media []toolreg.Media) []Piece {
	if len(media) == 0 {
		return nil
	}
	pieces := make([]Piece, len(media))
	for i, m := range media {
		m.MIMEType = BareType(m.MIMEType)
		if why := t.refuse(m); why != "" {
			pieces[i].Note = LeftOut(m, why)
			continue
		}
		t.used += len(m.Data)
		pieces[i].Media = &m
	}
	return pieces
}

// refuse says why the provider cannot take m; "" when it can.
func (t *Turn) refuse(m toolreg.Media) string {
	r := t.rules
	kind := m.Kind()
	rule, ok := r.Kinds[kind]
	switch {
	case !ok:
		return fmt.Sprintf("%s takes no %s %s", r.Provider, plural(kind), r.Where)
	case len(m.Data) == 0:
		return "it is empty"
	case len(rule.Types) > 0 && !slices.Contains(rule.Types, m.MIMEType):
		if len(rule.Types) > 4 { // a list too long to read
			return fmt.Sprintf("%s takes no %s %s %s", r.Provider, m.MIMEType, plural(kind), r.Where)
		}
		return fmt.Sprintf("%s takes %s only as %s", r.Provider, plural(kind), orList(rule.Types))
	case len(m.Data) > rule.Max:
		if Size(len(m.Data)) == Size(rule.Max) { // "3.9 MB" past "3.9 MB": say it in bytes
			return fmt.Sprintf("%s takes %s of up to %d bytes %s, and this one has %d", r.Provider, plural(kind), rule.Max, r.Where, len(m.Data))
		}
		return fmt.Sprintf("%s takes %s of up to %s %s", r.Provider, plural(kind), Size(rule.Max), r.Where)
	case t.used+len(m.Data) > r.Total && r.PerResult:
		return fmt.Sprintf("this result already carries %s of media, and %s takes up to %s in one result", Size(t.used), r.Provider, Size(r.Total))
	case t.used+len(m.Data) > r.Total:
		return fmt.Sprintf("the results of this turn already carry %s of media, and %s takes up to %s in one request", Size(t.used), r.Provider, Size(r.Total))
	}
	return ""
}

// Notes are the notes among pieces, in order.
func Notes(pieces []Piece) []string {
	var notes []string
	for _, p := range pieces {
		if p.Media == nil {
			notes = append(notes, p.Note)
		}
	}
	return notes
}

// LeftOut is the line of text that stands in the place of m, left out for
// the reason why: "[an audio clip (audio/wav, 2.1 MB) was left out: ...]".
func LeftOut(m toolreg.Media, why string) string {
	return "[" + Describe(m) + " was left out: " + why + "]"
}

// Describe names m for the model: `an image "chart.png" (image/png, 1.2 MB)`.
func Describe(m toolreg.Media) string {
	m.MIMEType = BareType(m.MIMEType)
	var b strings.Builder
	switch m.Kind() {
	case "image":
		b.WriteString("an image")
	case "audio":
		b.WriteString("an audio clip")
	default:
		b.WriteString("a file")
	}
	if m.Name != "" {
		fmt.Fprintf(&b, " %q", m.Name)
	}
	fmt.Fprintf(&b, " (%s, %s)", m.MIMEType, Size(len(m.Data)))
	return b.String()
}

// BareType is a MIME type in lower case without its parameters, as the
// providers compare them: "Image/PNG; x=1" is "image/png".
func BareType(mimeType string) string {
	if t, _, err := mime.ParseMediaType(mimeType); err == nil {
		return t
	}
	t, _, _ := strings.Cut(mimeType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// Size writes a number of bytes for a reader: "812 bytes", "2.1 kB",
// "4.0 MB" (decimal units, as the providers state their limits).
func Size(n int) string { return bytesize.String(n) }

func plural(kind string) string {
	switch kind {
	case "image":
		return "images"
	case "audio":
		return "audio"
	}
	return "files"
}

// orList writes "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
