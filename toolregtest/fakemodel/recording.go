package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
)

// recording is the file Replay reads and a recording run writes: the
// exchanges of one test, in order, as indented JSON that reads in a
// review.
type recording struct {
	// Note says where the exchanges came from.
	Note      string     `json:"note,omitempty"`
	Exchanges []exchange `json:"exchanges"`
}

// exchange is one request and the answer it got.
type exchange struct {
	Request  recordedRequest  `json:"request"`
	Response recordedResponse `json:"response"`
}

// recordedRequest is a request as sent, minus its headers (where
// credentials travel) and any credential in its query.
type recordedRequest struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
}

// recordedResponse is an answer: its status, the headers a client reads
// (keptHeaders), and its body as JSON, as a stream's events, or as text
// when it is neither.
type recordedResponse struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   json.RawMessage   `json:"body,omitempty"`
	Events []recordedEvent   `json:"events,omitempty"`
	Text   string            `json:"text,omitempty"`
}

// recordedEvent is one event of a stream: its name where the provider
// names events, and its data, as JSON or, when it is not JSON (OpenAI's
// "[DONE]"), as text.
type recordedEvent struct {
	Event string          `json:"event,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Text  string          `json:"text,omitempty"`
}

// keptHeaders are the response headers a recording keeps: those the
// clients read. Every other header, Set-Cookie among them, is left out.
var keptHeaders = []string{"Content-Type", "Retry-After", "Retry-After-Ms", "X-Should-Retry", "X-Amzn-Errortype"}

// eventStream is the content type of Bedrock's streams.
const eventStream = "application/vnd.amazon.eventstream"

// loadRecording reads and checks the recording in file; its errors name
// the file and, past the file's syntax, the exchange.
func loadRecording(file string) (*recording, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var top struct {
		Note      string            `json:"note"`
		Exchanges []json.RawMessage `json:"exchanges"`
	}
	if err := strict(data, &top); err != nil {
		return nil, fmt.Errorf("%s is not a recording: %w", file, located(data, err))
	}
	if len(top.Exchanges) == 0 {
		return nil, fmt.Errorf("%s is not a recording: it has no exchanges", file)
	}
	rec := &recording{Note: top.Note}
	for i, raw := range top.Exchanges {
		var x exchange
		err := strict(raw, &x)
		if err == nil {
			err = x.check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: exchange %d: %w", file, i+1, err)
		}
		rec.Exchanges = append(rec.Exchanges, x)
	}
	return rec, nil
}

// strict decodes one JSON value into v, refusing unknown fields (a
// misspelt field would otherwise be lost silently) and anything after it.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more after the JSON value")
	}
	return nil
}

// located adds the line of a syntax error.
func located(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("line %d: %w", 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), err)
	}
	return err
}

func (x exchange) check() error {
	q, p := x.Request, x.Response
	switch {
	case q.Method == "":
		return errors.New("the request has no method")
	case !strings.HasPrefix(q.Path, "/"):
		return fmt.Errorf("the request's path %q does not start with /", q.Path)
	case p.Status < 200 || p.Status > 599:
		return fmt.Errorf("the response's status %d is not the status of an answer (200 to 599)", p.Status)
	}
	for h := range p.Header {
		if !slices.Contains(keptHeaders, h) {
			return fmt.Errorf("the response's header %q is not one a recording keeps (%s)", h, strings.Join(keptHeaders, ", "))
		}
	}
	forms := 0
	for _, set := range []bool{p.Body != nil, p.Events != nil, p.Text != ""} {
		if set {
			forms++
		}
	}
	if forms > 1 {
		return errors.New("the response has more than one of body, events and text")
	}
	for i, e := range p.Events {
		if e.Data != nil && e.Text != "" {
			return fmt.Errorf("event %d of the response has both data and text", i+1)
		}
	}
	return nil
}

// encode is the body of the recorded response, framed as its content
// type says.
func (p recordedResponse) encode() []byte {
	switch {
	case p.Events != nil:
		events := make([]event, len(p.Events))
		for i, e := range p.Events {
			// A line of its own for each line of the text, as
			// server-sent events carry data of several lines.
			events[i] = event{name: e.Event, data: strings.ReplaceAll(e.Text, "\n", "\ndata: ")}
			if e.Data != nil {
				events[i].data = e.Data
			}
		}
		if strings.HasPrefix(p.Header["Content-Type"], eventStream) {
			_, b := converse{}.frame(events)
			return b
		}
		_, b := sse(events)
		return b
	case p.Body != nil:
		return p.Body
	}
	return []byte(p.Text)
}

// recordResponse is a response as a recording keeps it: a stream as its
// events, a JSON body as JSON.
func recordResponse(status int, header http.Header, body []byte) recordedResponse {
	p := recordedResponse{Status: status}
	for _, h := range keptHeaders {
		if v := header.Get(h); v != "" {
			if p.Header == nil {
				p.Header = map[string]string{}
			}
			p.Header[h] = v
		}
	}
	typ := header.Get("Content-Type")
	switch {
	case strings.HasPrefix(typ, "text/event-stream"):
		p.Events = readSSE(body)
	case strings.HasPrefix(typ, eventStream):
		if events, err := readFrames(body); err == nil {
			p.Events = events
			break
		}
		p.Text = string(body) // not framed as it says: kept as it came
	case json.Valid(body):
		p.Body = body
	default:
		p.Text = string(body)
	}
	return p
}

// readSSE reads server-sent events: each event's name and its data lines
// joined; comments, ids and retry fields are left out.
func readSSE(body []byte) []recordedEvent {
	events := []recordedEvent{}
	var name string
	var data []string
	flush := func() {
		if name == "" && data == nil {
			return
		}
		events = append(events, recordedData(name, []byte(strings.Join(data, "\n"))))
		name, data = "", nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name = value
		case "data":
			data = append(data, value)
		}
	}
	flush()
	return events
}

func recordedData(name string, data []byte) recordedEvent {
	if json.Valid(data) {
		return recordedEvent{Event: name, Data: bytes.Clone(data)}
	}
	return recordedEvent{Event: name, Text: string(data)}
}

// readFrames reads AWS event-stream messages: the :event-type header of
// each and its payload.
func readFrames(b []byte) ([]recordedEvent, error) {
	events := []recordedEvent{}
	for len(b) > 0 {
		if len(b) < 16 {
			return nil, errors.New("a message shorter than its prelude")
		}
		total, hlen := int(binary.BigEndian.Uint32(b)), int(binary.BigEndian.Uint32(b[4:]))
		if total < 16+hlen || total > len(b) {
			return nil, errors.New("a message longer than the stream")
		}
		headers, payload := b[12:12+hlen], b[12+hlen:total-4]
		var name string
		for len(headers) > 0 {
			n := int(headers[0])
			if len(headers) < 1+n+1 {
				return nil, errors.New("a header cut short")
			}
			key, typ := string(headers[1:1+n]), headers[1+n]
			headers = headers[2+n:]
			if typ != 7 || len(headers) < 2 { // only string headers come from Bedrock
				return nil, errors.New("a header not a string")
			}
			l := int(binary.BigEndian.Uint16(headers))
			if len(headers) < 2+l {
				return nil, errors.New("a header cut short")
			}
			if key == ":event-type" || (key == ":exception-type" && name == "") {
				name = string(headers[2 : 2+l])
			}
			headers = headers[2+l:]
		}
		events = append(events, recordedData(name, payload))
		b = b[total:]
	}
	return events, nil
}
