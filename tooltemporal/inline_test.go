package tooltemporal

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// TestInlineTools: the calls of an inline tool run in the workflow, once
// each, not as activities, and pass the same gate as the others.
func TestInlineTools(t *testing.T) {
	const prompt = "user: plan a trip"
	inline := ToolOptions{Inline: true}
	tests := []struct {
		name     string
		opts     Options
		replies  []offline.Reply
		updates  []timed
		want     []string
		wantRan  []ran
		wantTool []string // the tools that ran as activities
	}{{
		name:    "an inline call beside an activity",
		opts:    Options{Tools: map[string]ToolOptions{"weather": inline}},
		replies: []offline.Reply{reply(call("w", "weather", "Oslo"), call("h", "halt", "x"), call("w2", "weather", "Rome")), say("unreachable")},
		want: []string{prompt, `assistant calls weather {"city":"Oslo"}, halt {"city":"x"}, weather {"city":"Rome"}`,
			"tool w: sunny in Oslo", "tool h: budget spent", "tool w2: sunny in Rome"},
		wantRan:  []ran{{Tool: "halt", ID: "h", Step: 1, Attempt: 1, Activity: 1}, {Tool: "weather", ID: "w", Step: 1, Attempt: 1}, {Tool: "weather", ID: "w2", Step: 1, Attempt: 1}},
		wantTool: []string{"halt"},
	}, {
		name:     "an inline tool that needs approval waits for it",
		opts:     Options{Tool: inline},
		replies:  []offline.Reply{reply(call("b", "book", "Oslo")), say("Booked.")},
		updates:  []timed{{time.Hour, []Decision{Approve("b")}}},
		want:     []string{prompt, `assistant calls book {"city":"Oslo"}`, "tool b: booked Oslo (key b)", "assistant: Booked."},
		wantRan:  []ran{{Tool: "book", ID: "b", Step: 1, Attempt: 1}},
		wantTool: nil,
	}, {
		name:     "a rejected inline call never runs",
		opts:     Options{Tool: inline},
		replies:  []offline.Reply{reply(call("b", "book", "Oslo")), say("Not booked.")},
		updates:  []timed{{time.Hour, []Decision{Reject("b", "over budget")}}},
		want:     []string{prompt, `assistant calls book {"city":"Oslo"}`, `tool b: the host did not allow this call of "book": over budget`, "assistant: Not booked."},
		wantTool: nil,
	}, {
		name:    "invalid arguments of an inline call are the model's to fix",
		opts:    Options{Tool: inline},
		replies: []offline.Reply{reply(offline.Call{ID: "w", Name: "weather", Arguments: `{"town":"Oslo"}`}), say("Sorry.")},
		want: []string{prompt, `assistant calls weather {"town":"Oslo"}`,
			"tool w: invalid arguments for tool \"weather\":\n- city: required field is missing; expected a string\n- town: unknown field; allowed fields: city\nFix the arguments and call the tool again.",
			"assistant: Sorry."},
	}, {
		name:    "an inline call is not retried: the model reads its failure",
		opts:    Options{Tool: inline},
		replies: []offline.Reply{reply(call("x", "broken", "Oslo")), say("Down.")},
		want:    []string{prompt, `assistant calls broken {"city":"Oslo"}`, "tool x: service down", "assistant: Down."},
		wantRan: []ran{{Tool: "broken", ID: "x", Step: 1, Attempt: 1}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			a := newAgent(t, reg, &offline.Script{Replies: tt.replies}, tt.opts)
			env := newEnv(t)
			var tools []string
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
				if info.ActivityType.Name == a.callType() {
					var in callInput
					if err := args.Get(&in); err != nil {
						t.Error(err)
					}
					tools = append(tools, in.Call.Name)
				}
			})
			r := runIn(t, env, a, Input{Model: "scripted", State: firstState(t, reg, "plan a trip")}, tt.updates)
			if r.res == nil {
				t.Fatal(r.err)
			}
			if diff := cmp.Diff(tt.want, transcript(t, r.res.State)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRan, sortedRan(s.list())); diff != "" {
				t.Errorf("calls that ran (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTool, tools); diff != "" {
				t.Errorf("activities of tools (-want +got):\n%s", diff)
			}
		})
	}
}
