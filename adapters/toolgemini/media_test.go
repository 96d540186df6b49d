package toolgemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"google.golang.org/genai"
)

// sentContents are the request body's contents, as sent.
func sentContents(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Contents
}

// TestMediaResults sends results with media through the real SDK, from
// the runner, from CallAll and from CallAllJSON, and checks the user content
// against a golden file: media inside each functionResponse, or beside
// the responses, and a note for each left out.
func TestMediaResults(t *testing.T) {
	small := nestedMedia
	small.Total = 40
	for _, tc := range []struct {
		name   string
		calls  []string // the arguments of each call of show
		ids    bool
		opts   []Option
		small  bool
		golden string
	}{
		{
			name:   "every kind",
			calls:  []string{`{"items":["png","jpeg","gif","pdf","txt","csv","wav","bmp","empty"]}`, `{"items":[]}`, `{"items":["pdf"]}`},
			ids:    true,
			golden: "media_kinds.json",
		},
		{
			name:   "every kind beside the responses, without ids",
			calls:  []string{`{"items":["png","jpeg","gif","pdf","txt","csv","wav","bmp","empty"]}`, `{"items":[]}`, `{"items":["pdf"]}`},
			opts:   []Option{WithMediaBesideResponses()},
			golden: "media_beside.json",
		},
		{
			name:   "the bound of a turn, across calls",
			calls:  []string{`{"items":["pdf:30"]}`, `{"items":["png:10","pdf:5","png:11"]}`},
			ids:    true,
			small:  true,
			golden: "media_turn_bound.json",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pairs []string
			for _, args := range tc.calls {
				pairs = append(pairs, "show", args)
			}
			a := New(adapttest.MediaRegistry(), tc.opts...)
			if tc.small {
				a.media = &small
			}

			// The runner.
			f := fakeGemini(functionCalls(tc.ids, pairs...), answer("Seen."))
			client := newClient(t, f)
			if _, err := a.Run(context.Background(), client.Models, "gemini-test", prompt(), nil, nil, agent.Options{}); err != nil {
				t.Fatal(err)
			}
			sent := sentContents(t, f.Raw[1])[2]
			adapttest.GoldenJSON(t, tc.golden, sent, *update)
			// Only the fields of Google's published FunctionResponseBlob.
			if strings.Contains(string(f.Raw[1]), "displayName") {
				t.Errorf("the request sends displayName, which the API does not define")
			}

			// CallAll, sent by the SDK: the same bytes.
			var resp genai.GenerateContentResponse
			if err := json.Unmarshal([]byte(functionCalls(tc.ids, pairs...)), &resp); err != nil {
				t.Fatal(err)
			}
			model := resp.Candidates[0].Content
			f = fakeGemini(answer("Seen."))
			client = newClient(t, f)
			history := append(prompt(), model, a.CallAll(context.Background(), model))
			if _, err := client.Models.GenerateContent(context.Background(), "gemini-test", history, nil); err != nil {
				t.Fatal(err)
			}
			if got := sentContents(t, f.Raw[0])[2]; !bytes.Equal(sent, got) {
				t.Errorf("Call sends other bytes than the runner:\nrun  %s\ncall %s", sent, got)
			}

			// CallAllJSON: the same content.
			var candidates struct {
				Candidates []struct {
					Content json.RawMessage `json:"content"`
				} `json:"candidates"`
			}
			json.Unmarshal([]byte(functionCalls(tc.ids, pairs...)), &candidates)
			wire, err := a.CallAllJSON(context.Background(), candidates.Candidates[0].Content)
			if err != nil {
				t.Fatal(err)
			}
			adapttest.SameJSON(t, "CallAllJSON", sent, wire)
		})
	}
}

// TestMediaResultsThroughState: a paused run's transcript keeps the media of an
// earlier turn, byte for byte, and the results of the paused turn that ran
// keep theirs.
func TestMediaResultsThroughState(t *testing.T) {
	a := New(adapttest.MediaRegistry(adapttest.PDFsWaitForApproval()))
	f := fakeGemini(withIDs(adapttest.PausedTurns[0]...), withIDs(adapttest.PausedTurns[1]...), answer("Seen."))
	client := newClient(t, f)
	run, err := a.Run(context.Background(), client.Models, "gemini-test", prompt(), nil, nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want the run paused", err)
	}
	st := adapttest.ApproveAll(t, run.State)
	if _, err := a.Run(context.Background(), client.Models, "gemini-test", nil, nil, st, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	before, after := sentContents(t, f.Raw[1]), sentContents(t, f.Raw[2])
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Errorf("content %d changed on the way through the state:\nbefore %s\nafter  %s", i, before[i], after[i])
		}
	}
	var last genai.Content
	if err := json.Unmarshal(after[len(after)-1], &last); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, p := range last.Parts {
		for _, m := range p.FunctionResponse.Parts {
			types = append(types, m.InlineData.MIMEType)
		}
	}
	if diff := cmp.Diff([]string{"image/jpeg", "application/pdf"}, types); diff != "" {
		t.Errorf("resumed results' media (-want +got):\n%s", diff)
	}
}
