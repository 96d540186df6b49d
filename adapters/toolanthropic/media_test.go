package toolanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// TestMediaResults sends results with media through the real SDK, from
// the runner, from CallAll and from CallAllJSON, and checks the tool_result
// message against a golden file: images and documents as blocks, and a
// line of text for each one left out.
func TestMediaResults(t *testing.T) {
	small := mediaRules
	small.Total = 40
	for _, tc := range []struct {
		name   string
		calls  []string // the arguments of each call of show
		golden string
		rules  *adapt.MediaRules
	}{
		{
			name:   "every kind",
			calls:  []string{`{"items":["png","jpeg","gif","pdf","txt","csv","wav","bmp","zip","empty","latin1"]}`},
			golden: "media_kinds.json",
		},
		{
			name:   "an image over 5 MB as base64",
			calls:  []string{`{"items":["jpeg:3932161"]}`},
			golden: "media_image_bound.json",
		},
		{
			name:   "the bound of a turn, across calls",
			calls:  []string{`{"items":["pdf:30"]}`, `{"items":["png:10","pdf:5","png:11"]}`},
			golden: "media_turn_bound.json",
			rules:  &small,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pairs []string
			for _, args := range tc.calls {
				pairs = append(pairs, "show", args)
			}
			a := New(adapttest.MediaRegistry())
			if tc.rules != nil {
				a.media = tc.rules
			}

			// The runner.
			f := fakeAnthropic(toolUses(pairs...), answer("Seen."))
			client := newClient(t, f)
			if _, err := a.Run(context.Background(), &client.Messages, params("show me"), nil, agent.Options{}); err != nil {
				t.Fatal(err)
			}
			sent := sentMessage(t, f.Raw[1], 2)
			adapttest.GoldenJSON(t, tc.golden, sent, *update)

			// CallAll, sent by the SDK: the same bytes.
			msg := mustMessage(t, toolUses(pairs...))
			p := params("show me")
			p.Messages = append(p.Messages, msg.ToParam(), a.CallAll(context.Background(), msg))
			f = fakeAnthropic(answer("Seen."))
			client = newClient(t, f)
			if _, err := client.Messages.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if got := sentMessage(t, f.Raw[0], 2); !bytes.Equal(sent, got) {
				t.Errorf("CallAll sends other bytes than the runner:\nrun  %s\ncall %s", sent, got)
			}

			// CallAllJSON: the same message.
			var content struct {
				Content json.RawMessage `json:"content"`
			}
			json.Unmarshal([]byte(toolUses(pairs...)), &content)
			wire, err := a.CallAllJSON(context.Background(), content.Content)
			if err != nil {
				t.Fatal(err)
			}
			adapttest.SameJSON(t, "CallAllJSON", sent, wire)
		})
	}
}

// TestMediaImageAtBound: an image of 5 MB as base64, the most the API
// takes, goes.
func TestMediaImageAtBound(t *testing.T) {
	a := New(adapttest.MediaRegistry())
	msg := a.CallAll(context.Background(), mustMessage(t, toolUses("show", `{"items":["png:3932160"]}`)))
	content := msg.OfUser.Content[0].OfToolResult.Content
	if len(content) != 2 || content[1].OfImage == nil || len(content[1].OfImage.Source.OfBase64.Data) != 5*1024*1024 {
		t.Errorf("the image at the bound was not sent whole: %d blocks", len(content))
	}
}

// sentMessage is messages[i] of a request body, as sent.
func sentMessage(t *testing.T, body []byte, i int) json.RawMessage {
	t.Helper()
	var msgs []json.RawMessage
	if err := json.Unmarshal(rawField(t, body, "messages"), &msgs); err != nil || len(msgs) <= i {
		t.Fatalf("messages: %v (%d sent)", err, len(msgs))
	}
	return msgs[i]
}

// TestMediaResultsThroughState: a paused run's transcript keeps the media of an
// earlier turn, byte for byte, and the results of the paused turn that ran
// keep theirs.
func TestMediaResultsThroughState(t *testing.T) {
	a := New(adapttest.MediaRegistry(adapttest.PDFsWaitForApproval()))
	f := fakeAnthropic(
		toolUses(adapttest.PausedTurns[0]...),
		toolUses(adapttest.PausedTurns[1]...),
		answer("Seen."))
	client := newClient(t, f)
	run, err := a.Run(context.Background(), &client.Messages, params("show me"), nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want the run paused", err)
	}
	st := adapttest.ApproveAll(t, run.State)
	if _, err := a.Run(context.Background(), &client.Messages, params("show me"), st, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // the prompt, the first calls, their results
		if before, after := sentMessage(t, f.Raw[1], i), sentMessage(t, f.Raw[2], i); !bytes.Equal(before, after) {
			t.Errorf("message %d changed on the way through the state:\nbefore %s\nafter  %s", i, before, after)
		}
	}
	var msg anthropic.MessageParam
	if err := json.Unmarshal(sentMessage(t, f.Raw[2], 4), &msg); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range msg.OfUser.Content {
		for _, c := range b.OfToolResult.Content {
			switch {
			case c.OfImage != nil:
				kinds = append(kinds, "image")
			case c.OfDocument != nil:
				kinds = append(kinds, "document")
			case c.OfText != nil:
				kinds = append(kinds, "text")
			}
		}
	}
	if diff := cmp.Diff([]string{"text", "image", "text", "document"}, kinds); diff != "" {
		t.Errorf("resumed results (-want +got):\n%s", diff)
	}
}
