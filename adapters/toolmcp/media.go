package toolmcp

import (
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// maxResultBytes bounds the media of one served result, before base64.
// MCP itself sets no bound, but a go-sdk client over stdio (or any stream)
// refuses a message over mcp.DefaultMaxLineLength, 16 MiB, and ends the
// session when one comes: a result must fit in that as its client reads
// it. Media go as base64, so 10 MB of them are 13.3 MB on the wire, which
// leaves 3.4 MB of the message for the text, the structuredContent and the
// JSON around them.
const maxResultBytes = 10 * 1000 * 1000

// mediaRules are what a served result takes of an Output's media: every
// kind and type MCP content can hold, up to maxResultBytes in all.
var mediaRules = adapt.MediaRules{
	Provider: "this MCP server",
	Where:    "in a tool result",
	Kinds: map[string]adapt.MediaRule{
		"image": {Max: maxResultBytes},
		"audio": {Max: maxResultBytes},
		"file":  {Max: maxResultBytes},
	},
	Total:     maxResultBytes,
	PerResult: true,
}

// mediaContent is the content that follows the text of a result of tool
// (its MCP name): each of media as image, audio or embedded resource
// content, in order, or as the line of text that says why it was left out.
func mediaContent(tool string, media []toolreg.Media) []mcp.Content {
	pieces := mediaRules.Turn().Take(media)
	content := make([]mcp.Content, 0, len(pieces))
	for i, p := range pieces {
		m := p.Media
		switch {
		case m == nil:
			content = append(content, &mcp.TextContent{Text: p.Note})
		case m.Kind() == "image":
			content = append(content, &mcp.ImageContent{MIMEType: m.MIMEType, Data: m.Data})
		case m.Kind() == "audio":
			content = append(content, &mcp.AudioContent{MIMEType: m.MIMEType, Data: m.Data})
		default:
			content = append(content, &mcp.EmbeddedResource{Resource: fileResource(tool, media[i])})
		}
	}
	return content
}

// fileResource is a file of a result of tool as the contents of an
// embedded resource: text for a text type in UTF-8, which clients show and
// models read as it is, a blob for any other. Its MIME type keeps its
// parameters, so a charset other than UTF-8 goes with the blob.
func fileResource(tool string, m toolreg.Media) *mcp.ResourceContents {
	bare := adapt.BareType(m.MIMEType)
	r := &mcp.ResourceContents{URI: resourceURI(tool, m), MIMEType: bare}
	_, params, err := mime.ParseMediaType(m.MIMEType)
	if typ := mime.FormatMediaType(bare, params); err == nil && typ != "" {
		r.MIMEType = typ
	}
	charset := strings.ToLower(params["charset"])
	if textType(bare) && (charset == "" || charset == "utf-8" || charset == "us-ascii") && utf8.Valid(m.Data) {
		r.Text = string(m.Data)
	} else {
		r.Blob = m.Data
	}
	return r
}

// textType reports whether files of the bare MIME type t are text.
func textType(t string) bool {
	if strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") {
		return true
	}
	switch t {
	case "application/json", "application/xml", "application/javascript", "application/yaml", "application/x-yaml", "application/toml", "application/sql":
		return true
	}
	return false
}

// uriScheme is the scheme of the URIs of the files of served results.
// Their content lives in the result alone: a client cannot fetch or
// subscribe to it, so the URI must not look like one it can (file:,
// https:), and a data: URI would carry the bytes twice.
const uriScheme = "toolreg"

// resourceURI names a file of a result of tool: toolreg://tool/hash/name,
// where hash is the first 16 hex digits of the SHA-256 of its bytes and
// name its Name (left out when it has none). The URI says which tool made
// the file and what it is called; the hash makes it unique to the bytes,
// so a client that keeps resources by URI never mistakes one file for
// another, across calls and restarts, as a counter would.
func resourceURI(tool string, m toolreg.Media) string {
	sum := sha256.Sum256(m.Data)
	uri := uriScheme + "://" + tool + "/" + hex.EncodeToString(sum[:8])
	if m.Name != "" {
		uri += "/" + url.PathEscape(m.Name)
	}
	return uri
}

// contentMedia is the Media of content an imported tool's server sent,
// and whether it is one: image, audio and a blob resource are; text, a
// text resource and a resource link are not, and stay text (see
// fromResult).
func contentMedia(c mcp.Content) (toolreg.Media, bool) {
	switch c := c.(type) {
	case *mcp.ImageContent:
		return toolreg.Media{MIMEType: mediaType(c.MIMEType, c.Data), Data: c.Data}, true
	case *mcp.AudioContent:
		return toolreg.Media{MIMEType: mediaType(c.MIMEType, c.Data), Data: c.Data}, true
	case *mcp.EmbeddedResource:
		if r := c.Resource; r != nil && r.Blob != nil {
			return toolreg.Media{MIMEType: mediaType(r.MIMEType, r.Blob), Data: r.Blob, Name: fileName(r.URI)}, true
		}
	}
	return toolreg.Media{}, false
}

// mediaType is the MIME type the server gave, or, when it gave none (MCP
// requires one of images and audio, not of resources), the one sniffed
// from data, so that a PNG still reaches the model as an image.
func mediaType(given string, data []byte) string {
	if given != "" {
		return given
	}
	return adapt.BareType(http.DetectContentType(data))
}

// fileName is the name of the file a resource's URI ends with, as in
// file:///reports/q3.pdf or toolreg://tool/hash/report.pdf; "" when its
// last segment does not look like the name of a file (no extension, as in
// demo://resource/7): providers read a file's type from its name.
func fileName(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	p := u.EscapedPath()
	if p == "" {
		p = u.Opaque
	}
	name, err := url.PathUnescape(p[strings.LastIndex(p, "/")+1:])
	if ext := path.Ext(name); err != nil || ext == "" || ext == name {
		return ""
	}
	return name
}
