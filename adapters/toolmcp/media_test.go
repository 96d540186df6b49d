package toolmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// returns is a tool that returns out, declared with opts.
func returns(t testing.TB, name string, out toolreg.Output, opts ...toolreg.Option) toolreg.AnyTool {
	t.Helper()
	tool, err := toolreg.NewDynamic(name, "Returns a result with media.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, json.RawMessage) (toolreg.Output, error) { return out, nil }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestServeMedia calls tools whose results carry media through the go-sdk
// client, for each revision: the text comes first, then each medium as
// the client reads it (images and audio as their content, files as
// embedded resources), or the line that says why it was left out;
// structuredContent is as without media.
func TestServeMedia(t *testing.T) {
	png := adapttest.Media["png"]
	reg := adapttest.MediaRegistry()
	reg.MustAdd(
		returns(t, "structured", toolreg.Output{Text: `{"n":1}`, Structured: json.RawMessage(`{"n":1}`), Media: []toolreg.Media{png}},
			toolreg.WithOutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`))),
		returns(t, "only_media", toolreg.Output{Media: []toolreg.Media{png}}),
		returns(t, "failed", toolreg.Output{Text: "the page did not load", IsError: true, Media: []toolreg.Media{png}}),
		returns(t, "named", toolreg.Output{Text: "Saved.", Media: []toolreg.Media{{MIMEType: "application/pdf", Data: []byte("%PDF-1.7 report"), Name: "my report/v2.pdf"}}}),
	)
	text := func(s string) mcp.Content { return &mcp.TextContent{Text: s} }
	image := &mcp.ImageContent{MIMEType: "image/png", Data: png.Data}
	resource := func(r mcp.ResourceContents) mcp.Content { return &mcp.EmbeddedResource{Resource: &r} }
	for _, tc := range []struct {
		name       string
		tool       string
		args       any
		content    []mcp.Content
		structured any
		isError    bool
	}{
		{name: "an image", tool: "show", args: map[string]any{"items": []string{"png"}},
			content: []mcp.Content{text("Here they are."), image}},
		{name: "any image type", tool: "show", args: map[string]any{"items": []string{"bmp", "gif"}},
			content: []mcp.Content{text("Here they are."), &mcp.ImageContent{MIMEType: "image/bmp", Data: []byte("BM bitmap")}, &mcp.ImageContent{MIMEType: "image/gif", Data: []byte("GIF89a")}}},
		{name: "audio", tool: "show", args: map[string]any{"items": []string{"wav"}},
			content: []mcp.Content{text("Here they are."), &mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF wave")}}},
		{name: "a binary file", tool: "show", args: map[string]any{"items": []string{"pdf", "zip"}},
			content: []mcp.Content{text("Here they are."),
				resource(mcp.ResourceContents{URI: "toolreg://show/336276927fc27d28/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 report")}),
				resource(mcp.ResourceContents{URI: "toolreg://show/daf4efcd181f4966/all.zip", MIMEType: "application/zip", Blob: []byte("PK archive")})}},
		{name: "text files", tool: "show", args: map[string]any{"items": []string{"txt", "csv"}},
			content: []mcp.Content{text("Here they are."),
				resource(mcp.ResourceContents{URI: "toolreg://show/44eff743ca3bef7f/notes.txt", MIMEType: "text/plain; charset=utf-8", Text: "plain notes"}),
				resource(mcp.ResourceContents{URI: "toolreg://show/492d5ea496056f1a", MIMEType: "text/csv", Text: "a,b\n1,2\n"})}},
		{name: "a text file in another charset", tool: "show", args: map[string]any{"items": []string{"latin1"}},
			content: []mcp.Content{text("Here they are."),
				resource(mcp.ResourceContents{URI: "toolreg://show/dafd66c0b98965e6/menu.txt", MIMEType: "text/plain; charset=iso-8859-1", Blob: []byte("caf\xe9")})}},
		{name: "empty", tool: "show", args: map[string]any{"items": []string{"empty", "png"}},
			content: []mcp.Content{text("Here they are."), text(`[an image "blank.png" (image/png, 0 bytes) was left out: it is empty]`), image}},
		{name: "renamed", tool: "media.show", args: map[string]any{"items": []string{"pdf"}},
			content: []mcp.Content{text("Here they are."),
				resource(mcp.ResourceContents{URI: "toolreg://media.show/336276927fc27d28/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 report")})}},
		{name: "a name to escape", tool: "named",
			content: []mcp.Content{text("Saved."),
				resource(mcp.ResourceContents{URI: "toolreg://named/336276927fc27d28/my%20report%2Fv2.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 report")})}},
		{name: "structured", tool: "structured",
			content: []mcp.Content{text(`{"n":1}`), image}, structured: map[string]any{"n": float64(1)}},
		{name: "media alone", tool: "only_media",
			content: []mcp.Content{image}},
		{name: "an error", tool: "failed",
			content: []mcp.Content{text("the page did not load"), image}, isError: true},
	} {
		for _, v := range versions {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				var opts []Option
				if tc.tool == "media.show" {
					opts = append(opts, Rename("show", "media.show"))
				}
				srv, _ := newServer(t, reg, opts...)
				cs, _ := connect(t, srv, v, nil)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.content, res.Content); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.structured, res.StructuredContent); diff != "" {
					t.Errorf("structuredContent (-want +got):\n%s", diff)
				}
				if res.IsError != tc.isError {
					t.Errorf("isError = %v, want %v", res.IsError, tc.isError)
				}
			})
		}
	}
}

// TestServeMediaBound: the media of one result are held to maxResultBytes,
// each and in all; what is past it is a line of text in its place, and
// each result has the bound to itself.
func TestServeMediaBound(t *testing.T) {
	sized := func(kind string, n int) toolreg.Media {
		m := adapttest.Media[kind]
		m.Data = bytes.Repeat([]byte{'x'}, n)
		return m
	}
	const (
		over = `[an image "chart.png" (image/png, 10.0 MB) was left out: this MCP server takes images of up to 10000000 bytes in a tool result, and this one has 10000001]`
		full = `[a file "report.pdf" (application/pdf, 4.0 MB) was left out: this result already carries 6.0 MB of media, and this MCP server takes up to 10.0 MB in one result]`
	)
	for _, tc := range []struct {
		name    string
		results [][]toolreg.Media
		want    [][]string // per result, per medium: its type, or the line in its place
	}{
		{"at the bound", [][]toolreg.Media{{sized("png", maxResultBytes)}}, [][]string{{"image/png"}}},
		{"over the bound", [][]toolreg.Media{{sized("png", maxResultBytes+1)}}, [][]string{{over}}},
		{"the bound in all", [][]toolreg.Media{{sized("wav", 6e6), sized("pdf", 4e6+1), sized("pdf", 4e6)}},
			[][]string{{"audio/wav", full, "application/pdf"}}},
		{"each result its own", [][]toolreg.Media{{sized("pdf", 6e6)}, {sized("pdf", 6e6)}},
			[][]string{{"application/pdf"}, {"application/pdf"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			for _, media := range tc.results {
				var kinds []string
				for _, c := range mediaContent("show", media) {
					switch c := c.(type) {
					case *mcp.TextContent:
						kinds = append(kinds, c.Text)
					case *mcp.ImageContent:
						kinds = append(kinds, c.MIMEType)
					case *mcp.AudioContent:
						kinds = append(kinds, c.MIMEType)
					case *mcp.EmbeddedResource:
						kinds = append(kinds, c.Resource.MIMEType)
					}
				}
				got = append(got, kinds)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeMediaFitsClients: a result with media at the bound and 3 MB of
// text (the registry's limit off) reaches a go-sdk client over a stream, as over stdio, which refuses
// a message over 16 MiB and ends the session on one, and over streamable
// HTTP.
func TestServeMediaFitsClients(t *testing.T) {
	half := bytes.Repeat([]byte{0xff}, maxResultBytes/2)
	out := toolreg.Output{Text: strings.Repeat("z", 3e6), Media: []toolreg.Media{
		{MIMEType: "image/png", Data: half}, {MIMEType: "application/octet-stream", Data: half, Name: "dump.bin"}}}
	reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(toolreg.NoResultLimit)) // the text whole, for the transports
	reg.MustAdd(returns(t, "big", out))
	srv, _ := newServer(t, reg)
	transports := map[string]func(t *testing.T) mcp.Transport{
		"stdio": func(t *testing.T) mcp.Transport {
			server, client := net.Pipe()
			ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			return &mcp.IOTransport{Reader: client, Writer: client}
		},
		"streamable HTTP": func(t *testing.T) mcp.Transport {
			hs := httptest.NewServer(HTTPHandler(srv, HTTPOptions{}))
			t.Cleanup(hs.Close)
			return &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}
		},
	}
	for name, transport := range transports {
		for _, v := range versions {
			t.Run(name+"/"+v, func(t *testing.T) {
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0.0.1"}, nil).
					Connect(context.Background(), transport(t), &mcp.ClientSessionOptions{ProtocolVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big"})
				if err != nil {
					t.Fatalf("the client could not read the result: %v", err)
				}
				if len(res.Content) != 3 || len(res.Content[0].(*mcp.TextContent).Text) != 3e6 ||
					!bytes.Equal(res.Content[1].(*mcp.ImageContent).Data, half) || !bytes.Equal(res.Content[2].(*mcp.EmbeddedResource).Resource.Blob, half) {
					t.Errorf("the result did not come whole: %d blocks", len(res.Content))
				}
			})
		}
	}
}

// pngBytes is the start of a PNG file, which a sniffer knows.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

// TestImportMedia calls imported tools whose results hold each kind of
// content, for each revision: images, audio and blob resources are Media,
// in order; text, text resources and resource links are the text.
func TestImportMedia(t *testing.T) {
	image := &mcp.ImageContent{MIMEType: "image/png", Data: []byte("12345")}
	for _, tc := range []struct {
		name    string
		content []mcp.Content
		isError bool
		want    toolreg.Output
	}{
		{name: "an image between texts",
			content: []mcp.Content{&mcp.TextContent{Text: "Here it is:"}, image, &mcp.TextContent{Text: "The image above is a chart."}},
			want:    toolreg.Output{Text: "Here it is:\nThe image above is a chart.", Media: []toolreg.Media{{MIMEType: "image/png", Data: []byte("12345")}}}},
		{name: "media alone",
			content: []mcp.Content{image, &mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}},
			want:    toolreg.Output{Media: []toolreg.Media{{MIMEType: "image/png", Data: []byte("12345")}, {MIMEType: "audio/wav", Data: []byte("RIFF")}}}},
		{name: "blob resources",
			content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///reports/q3.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF")}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "demo://resource/dynamic/blob/1", MIMEType: "text/plain; charset=iso-8859-1", Blob: []byte("caf\xe9")}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "toolreg://show/00/my%20report%2Fv2.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF")}},
			},
			want: toolreg.Output{Media: []toolreg.Media{
				{MIMEType: "application/pdf", Data: []byte("%PDF"), Name: "q3.pdf"},
				{MIMEType: "text/plain; charset=iso-8859-1", Data: []byte("caf\xe9")},
				{MIMEType: "application/pdf", Data: []byte("%PDF"), Name: "my report/v2.pdf"},
			}}},
		{name: "no MIME type",
			content: []mcp.Content{
				&mcp.ImageContent{Data: pngBytes},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///c.bin", Blob: []byte{1, 2, 3}}},
			},
			want: toolreg.Output{Media: []toolreg.Media{{MIMEType: "image/png", Data: pngBytes}, {MIMEType: "application/octet-stream", Data: []byte{1, 2, 3}, Name: "c.bin"}}}},
		{name: "text resources and links stay text",
			content: []mcp.Content{
				&mcp.TextContent{Text: "Two files:"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.json", MIMEType: "application/json", Text: `{"b":1}`}},
				&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "the first file"},
			},
			want: toolreg.Output{Text: "Two files:\n[resource <file:///b.json>]\n{\"b\":1}\n[resource link: a.txt <file:///a.txt>, text/plain: the first file]"}},
		{name: "an error with a screenshot",
			content: []mcp.Content{&mcp.TextContent{Text: "the page did not load"}, image}, isError: true,
			want: toolreg.Output{Text: "the page did not load", IsError: true, Media: []toolreg.Media{{MIMEType: "image/png", Data: []byte("12345")}}}},
	} {
		for _, v := range versions {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				u := newUpstream()
				u.add(&mcp.Tool{Name: "media"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: tc.content, IsError: tc.isError}, nil
				})
				reg := toolreg.NewRegistry()
				im, err := NewImporter(reg)
				if err != nil {
					t.Fatal(err)
				}
				cs, _ := u.link(t, im, v)
				if err := im.Import(context.Background(), cs); err != nil {
					t.Fatal(err)
				}
				got := reg.Call(context.Background(), "media", nil)
				got.Err = nil
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Output (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// mediaUpstream is a server with one tool, media, whose result holds an
// image, audio, a blob resource and a text resource between texts.
func mediaUpstream() *upstream {
	u := newUpstream()
	u.add(&mcp.Tool{Name: "media"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Here you are:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: pngBytes},
			&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF wave")},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///out/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 report")}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///out/notes.txt", MIMEType: "text/plain", Text: "bee"}},
		}}, nil
	})
	return u
}

// TestImportMediaToProviders: the media of an imported tool reach the
// model in each provider's form: Anthropic's image and document blocks
// inside tool_result, OpenAI Responses' input_image and input_file in
// function_call_output; what a provider does not take (audio) is a line.
func TestImportMediaToProviders(t *testing.T) {
	reg := toolreg.NewRegistry()
	mediaUpstream().importInto(t, reg)
	ctx := context.Background()
	pngB64 := "iVBORw0KGgoAAAANSUhEUg=="
	const (
		text     = "Here you are:\n[resource <file:///out/notes.txt>]\nbee"
		audioOut = "[an audio clip (audio/wav, 9 bytes) was left out: %s takes no audio in tool results]"
	)

	t.Run("Anthropic", func(t *testing.T) {
		b, err := toolanthropic.New(reg).CallAllJSON(ctx, json.RawMessage(`[{"type":"tool_use","id":"tu_1","name":"media","input":{}}]`))
		if err != nil {
			t.Fatal(err)
		}
		var got any
		json.Unmarshal(b, &got)
		var want any
		json.Unmarshal([]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":[
			{"type":"text","text":`+quote(text)+`},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+pngB64+`"}},
			{"type":"text","text":`+quote(strings.Replace(audioOut, "%s", "Anthropic", 1))+`},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjcgcmVwb3J0"},"title":"report.pdf"}]}]}`), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tool_result (-want +got):\n%s", diff)
		}
	})

	t.Run("OpenAI Responses", func(t *testing.T) {
		var resp responses.Response
		if err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"media","arguments":"{}","status":"completed"}]}`), &resp); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(toolopenai.NewResponses(reg).CallAll(ctx, resp.Output))
		var got any
		json.Unmarshal(b, &got)
		var want any
		json.Unmarshal([]byte(`[{"type":"function_call_output","call_id":"call_1","output":[
			{"type":"input_text","text":`+quote(text)+`},
			{"type":"input_image","image_url":"data:image/png;base64,`+pngB64+`"},
			{"type":"input_text","text":`+quote(strings.Replace(audioOut, "%s", "OpenAI", 1))+`},
			{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjcgcmVwb3J0","filename":"report.pdf"}]}]`), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("function_call_output (-want +got):\n%s", diff)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMediaRoundTrip imports a server's tool, serves it again, and imports
// it from there: the client of the second server gets the same bytes and
// types as the first server sent (files under URIs of their own, text
// resources as text), and the second import the same Output as the first.
func TestMediaRoundTrip(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			first := toolreg.NewRegistry()
			mediaUpstream().importInto(t, first)
			srv, _ := newServer(t, first)
			cs, _ := connect(t, srv, v, nil)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "media"})
			if err != nil {
				t.Fatal(err)
			}
			want := []mcp.Content{
				&mcp.TextContent{Text: "Here you are:\n[resource <file:///out/notes.txt>]\nbee"},
				&mcp.ImageContent{MIMEType: "image/png", Data: pngBytes},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF wave")},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "toolreg://media/336276927fc27d28/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 report")}},
			}
			if diff := cmp.Diff(want, res.Content); diff != "" {
				t.Errorf("served again (-want +got):\n%s", diff)
			}

			second := toolreg.NewRegistry()
			im, err := NewImporter(second)
			if err != nil {
				t.Fatal(err)
			}
			down, _ := (&upstream{srv: srv}).link(t, im, v)
			if err := im.Import(ctx, down); err != nil {
				t.Fatal(err)
			}
			a, b := first.Call(ctx, "media", nil), second.Call(ctx, "media", nil)
			if diff := cmp.Diff(a, b); diff != "" || len(a.Media) != 3 {
				t.Errorf("imported twice (-once +twice):\n%s", diff)
			}
		})
	}
}
