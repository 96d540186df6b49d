package adapttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// ShowArgs are the arguments of the show tool: the media its result
// carries, by name (see Media).
type ShowArgs struct {
	Items []string `json:"items"`
}

// Media are the media the show tool knows by name: small stand-ins for
// what a tool returns, of every kind and of types some providers refuse.
// "png:N" (or any other name and a size) is that media with N bytes of
// data instead.
var Media = map[string]toolreg.Media{
	"png":    {MIMEType: "image/png", Data: []byte("\x89PNG chart"), Name: "chart.png"},
	"jpeg":   {MIMEType: "image/jpeg", Data: []byte("\xff\xd8\xff photo")},
	"gif":    {MIMEType: "image/gif", Data: []byte("GIF89a")},
	"bmp":    {MIMEType: "image/bmp", Data: []byte("BM bitmap"), Name: "old.bmp"},
	"wav":    {MIMEType: "audio/wav", Data: []byte("RIFF wave"), Name: "hello.wav"},
	"pdf":    {MIMEType: "application/pdf", Data: []byte("%PDF-1.7 report"), Name: "report.pdf"},
	"txt":    {MIMEType: "text/plain; charset=utf-8", Data: []byte("plain notes"), Name: "notes.txt"},
	"csv":    {MIMEType: "text/csv", Data: []byte("a,b\n1,2\n")},
	"latin1": {MIMEType: "text/plain; charset=iso-8859-1", Data: []byte("caf\xe9"), Name: "menu.txt"},
	"zip":    {MIMEType: "application/zip", Data: []byte("PK archive"), Name: "all.zip"},
	"empty":  {MIMEType: "image/png", Name: "blank.png"},
}

// MediaRegistry returns a registry of one tool, show, whose result is the
// text "Here they are." and the media its arguments name, in order
// (ShowArgs); an unknown name is the tool's error.
func MediaRegistry(opts ...toolreg.RegistryOption) *toolreg.Registry {
	show := toolreg.MustNew("show", "Shows the named media.", func(_ context.Context, a ShowArgs) (toolreg.Output, error) {
		out := toolreg.Output{Text: "Here they are."}
		for _, name := range a.Items {
			m, err := media(name)
			if err != nil {
				return toolreg.Output{}, err
			}
			out.Media = append(out.Media, m)
		}
		return out, nil
	})
	reg := toolreg.NewRegistry(opts...)
	reg.MustAdd(show)
	return reg
}

func media(name string) (toolreg.Media, error) {
	base, size, sized := strings.Cut(name, ":")
	m, ok := Media[base]
	if !ok {
		return m, fmt.Errorf("no media %q", name)
	}
	if sized {
		n, err := strconv.Atoi(size)
		if err != nil {
			return m, err
		}
		m.Data = bytes.Repeat([]byte{'x'}, n)
	}
	return m, nil
}

// PausedTurns are the calls of show the resume tests make, turn by turn:
// an image, then an image and a PDF, whose call waits for approval under
// PDFsWaitForApproval.
var PausedTurns = [][]string{
	{"show", `{"items":["png"]}`},
	{"show", `{"items":["jpeg"]}`, "show", `{"items":["pdf"]}`},
}

// PDFsWaitForApproval makes calls of show that name a PDF wait for the
// host's approval; the others run at once.
func PDFsWaitForApproval() toolreg.RegistryOption {
	return toolreg.WithApprovalPolicy(func(c toolreg.ToolCall) bool {
		return strings.Contains(string(c.Arguments), "pdf")
	})
}

// ApproveAll sends st through JSON, as a host that keeps it elsewhere
// does, and approves every pending call of the copy it returns.
func ApproveAll(t testing.TB, st *agent.State) *agent.State {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out agent.State
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Pending() {
		if err := out.Approve(c.Key()); err != nil {
			t.Fatal(err)
		}
	}
	return &out
}
