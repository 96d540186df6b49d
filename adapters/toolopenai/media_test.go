package toolopenai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// mediaCases are the turns of calls of show that the media tests run,
// each checked against a golden file per API.
var mediaCases = []struct {
	name   string
	calls  []string // the arguments of each call of show
	golden string   // a name, without the API's prefix
	small  bool     // with a bound of 40 bytes for the turn
}{
	{
		name:   "every kind",
		calls:  []string{`{"items":["png","jpeg","gif","pdf","txt","csv","wav","bmp","zip","empty"]}`, `{"items":[]}`, `{"items":["pdf"]}`},
		golden: "media_kinds.json",
	},
	{
		name:   "the bound of a turn, across calls",
		calls:  []string{`{"items":["pdf:30"]}`, `{"items":["png:10","pdf:5","png:11"]}`},
		golden: "media_turn_bound.json",
		small:  true,
	},
}

// small is rules with a bound of 40 bytes for a turn.
func small(rules adapt.MediaRules) *adapt.MediaRules {
	rules.Total = 40
	return &rules
}

func showPairs(calls []string) []string {
	var pairs []string
	for _, args := range calls {
		pairs = append(pairs, "show", args)
	}
	return pairs
}

// rawMessages are the request body's messages, as sent.
func rawMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Messages
}

// TestChatMedia sends results with media through the real SDK, from the
// runner, from Chat.CallAll and from Chat.CallAllJSON: the tool messages say what
// follows and what was left out, and one user message after them carries
// the images and PDFs.
func TestChatMedia(t *testing.T) {
	for _, tc := range mediaCases {
		t.Run(tc.name, func(t *testing.T) {
			pairs := showPairs(tc.calls)
			a := NewChat(adapttest.MediaRegistry())
			if tc.small {
				a.media = small(chatMedia)
			}
			f := fakeOpenAI(toolCalls(pairs...), answer("Seen."))
			client := newClient(t, f)
			if _, err := a.Run(context.Background(), &client.Chat.Completions, chatParams(), nil, agent.Options{}); err != nil {
				t.Fatal(err)
			}
			sent := rawMessages(t, f.Raw[1])[2:] // after the user's and the assistant's
			adapttest.GoldenJSON(t, "chat_"+tc.golden, join(sent), *update)

			// Chat.CallAll, sent by the SDK: the same bytes.
			var completion openai.ChatCompletion
			if err := json.Unmarshal([]byte(toolCalls(pairs...)), &completion); err != nil {
				t.Fatal(err)
			}
			msg := completion.Choices[0].Message
			p := chatParams()
			p.Messages = append(p.Messages, msg.ToParam())
			p.Messages = append(p.Messages, a.CallAll(context.Background(), msg)...)
			f = fakeOpenAI(answer("Seen."))
			client = newClient(t, f)
			if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if got := join(rawMessages(t, f.Raw[0])[2:]); !bytes.Equal(join(sent), got) {
				t.Errorf("Chat.CallAll sends other bytes than the runner:\nrun  %s\ncall %s", join(sent), got)
			}

			// Chat.CallAllJSON: the same messages.
			var calls struct {
				Choices []struct {
					Message struct {
						ToolCalls json.RawMessage `json:"tool_calls"`
					} `json:"message"`
				} `json:"choices"`
			}
			json.Unmarshal([]byte(toolCalls(pairs...)), &calls)
			wire, err := a.CallAllJSON(context.Background(), calls.Choices[0].Message.ToolCalls)
			if err != nil {
				t.Fatal(err)
			}
			adapttest.SameJSON(t, "Chat.CallAllJSON", join(sent), wire)
		})
	}
}

// join writes raw values as one JSON array.
func join(raw []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(raw)
	return b
}

// TestResponsesMedia: the same turns on the Responses API, from the
// runner and from Responses.CallAll: a result with media has a list as its
// output, of input_text, input_image and input_file items.
func TestResponsesMedia(t *testing.T) {
	for _, tc := range mediaCases {
		t.Run(tc.name, func(t *testing.T) {
			pairs := showPairs(tc.calls)
			a := NewResponses(adapttest.MediaRegistry())
			if tc.small {
				a.media = small(responsesMedia)
			}
			f := fakeOpenAI(responsesCalls(pairs...), responsesAnswer("Seen."))
			client := newClient(t, f)
			if _, err := a.Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{}); err != nil {
				t.Fatal(err)
			}
			var req struct {
				Input json.RawMessage `json:"input"`
			}
			json.Unmarshal(f.Raw[1], &req)
			adapttest.GoldenJSON(t, "responses_"+tc.golden, req.Input, *update)

			// Responses.CallAll, sent by the SDK: the same bytes.
			var resp responses.Response
			if err := json.Unmarshal([]byte(responsesCalls(pairs...)), &resp); err != nil {
				t.Fatal(err)
			}
			p := responsesParams()
			p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: a.CallAll(context.Background(), resp.Output)}
			f = fakeOpenAI(responsesAnswer("Seen."))
			client = newClient(t, f)
			if _, err := client.Responses.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Input json.RawMessage `json:"input"`
			}
			json.Unmarshal(f.Raw[0], &got)
			if !bytes.Equal(req.Input, got.Input) {
				t.Errorf("Responses.CallAll sends other bytes than the runner:\nrun  %s\ncall %s", req.Input, got.Input)
			}
		})
	}
}

// TestChatMediaResume: a paused run's transcript keeps the user message of
// media of an earlier turn, byte for byte, and the results of the paused
// turn that ran keep their media.
func TestChatMediaResume(t *testing.T) {
	a := NewChat(adapttest.MediaRegistry(adapttest.PDFsWaitForApproval()))
	f := fakeOpenAI(
		toolCalls(adapttest.PausedTurns[0]...),
		toolCalls(adapttest.PausedTurns[1]...),
		answer("Seen."))
	client := newClient(t, f)
	run, err := a.Run(context.Background(), &client.Chat.Completions, chatParams(), nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want the run paused", err)
	}
	st := adapttest.ApproveAll(t, run.State)
	if _, err := a.Run(context.Background(), &client.Chat.Completions, chatParams(), st, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	before, after := rawMessages(t, f.Raw[1]), rawMessages(t, f.Raw[2])
	if len(after) != len(before)+4 { // the assistant's calls, two tool messages, the media
		t.Fatalf("%d messages after resuming, %d before", len(after), len(before))
	}
	if !bytes.Equal(join(before), join(after[:len(before)])) {
		t.Errorf("the transcript changed on the way through the state:\nbefore %s\nafter  %s", join(before), join(after[:len(before)]))
	}
	media := string(after[len(after)-1])
	if !strings.Contains(media, `"image_url"`) || !strings.Contains(media, `"file"`) {
		t.Errorf("the resumed turn's media: %s", media)
	}
}
