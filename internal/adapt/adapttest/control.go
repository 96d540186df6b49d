package adapttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Control is an adapter's runner as ControlTests drive it: a run and its
// resumption through the official client against API, and how to read a
// request's tools and tool choice back from the provider's shape.
type Control struct {
	Runner
	// Start runs reg's tools with one user message; Resume goes on with a
	// paused run from its State.
	Start  func(ctx context.Context, api *API, reg *toolreg.Registry, opts agent.Options) (*agent.State, error)
	Resume func(ctx context.Context, api *API, reg *toolreg.Registry, state *agent.State, opts agent.Options) (*agent.State, error)
	// Tools lists the names of the tools a request offers; Choice reads
	// its tool choice, from the provider's own form.
	Tools  func(t *testing.T, request map[string]any) []string
	Choice func(t *testing.T, request map[string]any) agent.ToolChoice
	// Allowed, for a provider that restricts a step's calls by name while
	// the tools array stays the run's (OpenAI's allowed_tools, Gemini's
	// allowedFunctionNames), reads the names a request restricts the
	// calls to, nil when it does not. Nil for a provider that trims the
	// array instead.
	Allowed func(t *testing.T, request map[string]any) []string
	// Cursor says the conversation is on the server (the Responses API):
	// the runner cannot check a paused turn against a transcript.
	Cursor bool
}

// ControlRegistry holds get_weather, book (which needs approval), pick
// (which asks the host which hotel), and lookup (which asks the model to
// retry). ran counts the calls that reached a function, by tool.
func ControlRegistry(ran map[string]int) *toolreg.Registry {
	reg := Registry(nil)
	count := func(name string) { ran[name]++ }
	type city struct {
		City string `json:"city"`
	}
	reg.MustAdd(
		toolreg.MustNew("book", "Books a trip to a city.", func(ctx context.Context, a city) (string, error) {
			count("book")
			return "booked " + a.City, nil
		}, toolreg.WithApproval(), toolreg.WithTags("write")),
		toolreg.MustNew("pick", "Picks a hotel in a city.", func(ctx context.Context, a city) (string, error) {
			count("pick")
			if ans := toolreg.Info(ctx).Answer; ans != nil {
				return "picked " + string(ans), nil
			}
			return "", toolreg.Interrupt(map[string][]string{"choose": {"Ritz", "Savoy"}})
		}),
		toolreg.MustNew("lookup", "Looks a city up.", func(ctx context.Context, a city) (string, error) {
			count("lookup")
			return "", toolreg.Retry(fmt.Errorf("no city called %q", a.City))
		}),
	)
	return reg
}

// stored sends a State through JSON, as a host that keeps it does.
func stored(t *testing.T, s *agent.State) *agent.State {
	t.Helper()
	if s == nil {
		t.Fatal("no state")
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// ControlTests checks agent control through the runner alike for every
// provider: approve then resume, reject, interrupt then answer, retries
// bounded, the tools and tool choice each step sends, and a stored State
// resumed only as the runner wrote it (StateTests).
func ControlTests(t *testing.T, c Control) {
	t.Run("stored state", func(t *testing.T) { StateTests(t, c) })
	t.Run("deferred tools", func(t *testing.T) { DeferredTests(t, c) })
	t.Run("resume", func(t *testing.T) { ResumeTests(t, c) })
	t.Run("approve then resume", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		api := c.API(c.Calls("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`), c.Answer("Booked."))
		st, err := c.Start(context.Background(), api, reg, agent.Options{})
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v, want ErrPaused", err)
		}
		st = stored(t, st)
		pending := st.Pending()
		if len(pending) != 1 || pending[0].Name != "book" || pending[0].Status != agent.StatusApproval || ran["book"] != 0 {
			t.Fatalf("pending %+v, book ran %d times", pending, ran["book"])
		}
		if err := st.Approve(pending[0].Key()); err != nil {
			t.Fatal(err)
		}
		st, err = c.Resume(context.Background(), api, reg, st, agent.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ran["book"] != 1 || st.Steps != 2 || len(api.Requests) != 2 {
			t.Errorf("book ran %d times, %d steps, %d requests", ran["book"], st.Steps, len(api.Requests))
		}
		got := c.Results(t, api.Requests[1])
		want := []Result{{`{"city":"Oslo","days":1,"unit":"celsius"}`, false}, {"booked Oslo", false}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results sent after the resume (-want +got):\n%s", diff)
		}
	})
	t.Run("reject", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		api := c.API(c.Calls("book", `{"city":"Lima"}`), c.Answer("Not booked."))
		st, err := c.Start(context.Background(), api, reg, agent.Options{})
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v", err)
		}
		st = stored(t, st)
		if err := st.Reject(st.Pending()[0].Key(), "the budget covers Oslo only"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resume(context.Background(), api, reg, st, agent.Options{}); err != nil {
			t.Fatal(err)
		}
		got := c.Results(t, api.Requests[1])
		want := []Result{{`the host did not allow this call of "book": the budget covers Oslo only`, c.MarksErrors}}
		if diff := cmp.Diff(want, got); diff != "" || ran["book"] != 0 {
			t.Errorf("book ran %d times; results (-want +got):\n%s", ran["book"], diff)
		}
	})
	t.Run("interrupt then answer", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		api := c.API(c.Calls("pick", `{"city":"London"}`, "get_weather", `{"city":"London"}`), c.Answer("The Savoy."))
		st, err := c.Start(context.Background(), api, reg, agent.Options{})
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v", err)
		}
		st = stored(t, st)
		p := st.Pending()
		if len(p) != 1 || p[0].Status != agent.StatusInterrupted || string(p[0].Question) != `{"choose":["Ritz","Savoy"]}` {
			t.Fatalf("pending %+v", p)
		}
		if err := st.Answer(p[0].Key(), "Savoy"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resume(context.Background(), api, reg, st, agent.Options{}); err != nil {
			t.Fatal(err)
		}
		got := c.Results(t, api.Requests[1])
		want := []Result{{`picked "Savoy"`, false}, {`{"city":"London","days":1,"unit":"celsius"}`, false}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if ran["pick"] != 2 {
			t.Errorf("pick ran %d times, want twice (asked, then answered)", ran["pick"])
		}
	})
	t.Run("retries bounded", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		again := c.Calls("lookup", `{"city":"Atlantis"}`)
		api := c.API(again, again, again, c.Answer("never sent"))
		_, err := c.Start(context.Background(), api, reg, agent.Options{MaxRetries: 2})
		if !errors.Is(err, toolreg.ErrTooManyRetries) {
			t.Fatalf("err = %v", err)
		}
		if ran["lookup"] != 3 || len(api.Requests) != 3 {
			t.Errorf("lookup ran %d times in %d requests", ran["lookup"], len(api.Requests))
		}
		got := c.Results(t, api.Requests[1])
		if len(got) != 1 || !strings.HasSuffix(got[0].Text, "Fix this and call the tool again.") {
			t.Errorf("the model was not told what to fix: %+v", got)
		}
	})
	t.Run("tools and tool choice per step", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		// Step 3 allows only book (OnlyTagged), and the model calls
		// lookup anyway: it reads a refusal, and the tool does not run.
		api := c.API(c.Calls("get_weather", `{"city":"Oslo"}`), c.Calls("get_time", c.NoArgs), c.Calls("lookup", `{"city":"Oslo"}`), c.Answer("Done."))
		var refused []toolreg.Output
		choices := []agent.ToolChoice{agent.Force("get_weather"), agent.Required, agent.Auto, agent.None}
		_, err := c.Start(context.Background(), api, reg, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
			s.Choice = choices[s.Number-1]
			switch s.Number {
			case 1:
				return s.Only("get_weather")
			case 2:
				return s.Hide("book", "pick", "lookup")
			case 3:
				s.OnlyTagged("write")
			}
			return nil
		}, OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult && e.Step == 3 {
				refused = append(refused, e.Output)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		all := []string{"get_weather", "get_time", "book", "pick", "lookup"}
		wantTools := [][]string{{"get_weather"}, {"get_weather", "get_time"}, {"book"}, all}
		wantAllowed := [][]string{nil, {"get_weather", "get_time"}, {"book"}, nil}
		for i, req := range api.Requests {
			if c.Allowed == nil {
				// The array is trimmed to the step's tools.
				if diff := cmp.Diff(wantTools[i], c.Tools(t, req)); diff != "" {
					t.Errorf("step %d tools (-want +got):\n%s", i+1, diff)
				}
			} else {
				// The array is the run's, byte for byte; the restriction
				// goes beside it.
				if diff := cmp.Diff(all, c.Tools(t, req)); diff != "" {
					t.Errorf("step %d tools (-want +got):\n%s", i+1, diff)
				}
				if got, want := RawMember(t, api.Raw[i], "tools"), RawMember(t, api.Raw[0], "tools"); string(got) != string(want) {
					t.Errorf("step %d tools bytes differ from step 1's:\n%s\n%s", i+1, got, want)
				}
				if diff := cmp.Diff(wantAllowed[i], c.Allowed(t, req)); diff != "" {
					t.Errorf("step %d allowed (-want +got):\n%s", i+1, diff)
				}
			}
			if got := c.Choice(t, req); got != choices[i] {
				t.Errorf("step %d tool choice %+v, want %+v", i+1, got, choices[i])
			}
		}
		if ran["lookup"] != 0 {
			t.Errorf("lookup ran %d times outside the allowed tools", ran["lookup"])
		}
		if len(refused) != 1 || !errors.Is(refused[0].Err, agent.ErrNotOffered) || !strings.Contains(refused[0].Text, "you may call now: book") {
			t.Errorf("the call outside the allowed tools: %+v", refused)
		}
		bad := c.API(c.Answer("never sent"))
		_, err = c.Start(context.Background(), bad, reg, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
			s.Choice = agent.Force("get_wether")
			return nil
		}})
		if !errors.Is(err, agent.ErrInvalidStep) || len(bad.Requests) != 0 {
			t.Errorf("a choice naming no tool: err %v, %d requests", err, len(bad.Requests))
		}
	})
}

// RawMember is the member key of the JSON object raw, as its bytes were
// sent.
func RawMember(t *testing.T, raw []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}
