package adapttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// deferredWithBook is DeferredRegistry with book, which needs approval,
// so that a run pauses; ran counts its calls too.
func deferredWithBook(ran map[string]int) *toolreg.Registry {
	reg := DeferredRegistry(ran)
	type city struct {
		City string `json:"city"`
	}
	reg.MustAdd(toolreg.MustNew("book", "Books a trip to a city.", func(_ context.Context, a city) (string, error) {
		ran["book"]++ // the only call of its turn that runs, after the approval
		return "booked " + a.City, nil
	}, toolreg.WithApproval()))
	return reg
}

// ResumeTests: a paused run resumed is held to the step PrepareStep makes
// for the paused step again, its calls and its tool search alike; and the
// first request after the resume declares the tools the last one before
// the pause did, byte for byte, so that the prompt cache holds.
func ResumeTests(t *testing.T, c Control) {
	t.Run("the resumed step is PrepareStep's", func(t *testing.T) {
		ran := map[string]int{}
		reg := deferredWithBook(ran)
		api := c.API(c.Calls(agent.SearchToolName, `{"query":"send email"}`, "book", `{"city":"Oslo"}`), c.Answer("Done."))
		st, err := c.Start(context.Background(), api, reg, NativeSearch(nil))
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v, want ErrPaused", err)
		}
		// The State is edited: the search, which ran, is made to wait
		// for the host as book does, and what it found and that it ran
		// are forgotten.
		st = stored(t, st)
		st.Loaded, st.Ran = nil, nil
		st.Turn[0].Status, st.Turn[0].Result = agent.StatusApproval, nil
		for _, p := range st.Pending() {
			if err := st.Approve(p.Key()); err != nil {
				t.Fatal(err)
			}
		}
		var results []toolreg.Output
		opts := NativeSearch(&results)
		prepared := 0
		opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
			if s.Number == 1 {
				prepared++
				return s.Hide("book", "send_email")
			}
			return nil
		}
		st, err = c.Resume(context.Background(), api, reg, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		if prepared != 1 || len(results) != 2 {
			t.Fatalf("PrepareStep called %d times for step 1, results %+v", prepared, results)
		}
		if r := results[0]; r.IsError || !strings.Contains(r.Text, `no tool matched "send email"`) {
			t.Errorf("the search found a tool the step hides: %+v", r)
		}
		if r := results[1]; !r.IsError || !errors.Is(r.Err, agent.ErrNotOffered) || ran["book"] != 0 {
			t.Errorf("book, hidden, ran %d times: %+v", ran["book"], r)
		}
		if len(st.Loaded) != 0 {
			t.Errorf("loaded %v", st.Loaded)
		}
	})
	t.Run("the tools array across a pause", func(t *testing.T) {
		reg := deferredWithBook(map[string]int{})
		api := c.API(
			c.Calls(agent.SearchToolName, `{"query":"refund an order"}`),
			c.Calls(agent.SearchToolName, `{"limit":1,"query":"send email"}`),
			c.Calls("refund_order", `{"order":"A1"}`, "book", `{"city":"Oslo"}`),
			c.Answer("Done."))
		st, err := c.Start(context.Background(), api, reg, NativeSearch(nil))
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v, want ErrPaused", err)
		}
		st = stored(t, st)
		if diff := cmp.Diff([]string{"refund_order", "send_email"}, st.Loaded); diff != "" {
			t.Fatalf("State.Loaded (-want +got):\n%s", diff)
		}
		if err := st.Approve(st.Pending()[0].Key()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resume(context.Background(), api, reg, st, NativeSearch(nil)); err != nil {
			t.Fatal(err)
		}
		if len(api.Raw) != 4 {
			t.Fatalf("%d requests, want 4", len(api.Raw))
		}
		before, after := RawMember(t, api.Raw[2], "tools"), RawMember(t, api.Raw[3], "tools")
		if string(before) != string(after) {
			t.Errorf("the tools after the resume differ from those before the pause:\n%s\n%s", before, after)
		}
		want := []string{"get_weather", "get_time", "book", agent.SearchToolName, "refund_order", "send_email"}
		if diff := cmp.Diff(want, c.Tools(t, api.Requests[3])); diff != "" {
			t.Errorf("tools after the resume (-want +got):\n%s", diff)
		}
	})
}

// NativeTests checks a runner whose provider searches the deferred tools
// itself (agent.NativeSearcher), c's Start and Resume making the runner so:
// a tool choice may force a deferred tool, which the request declares; a
// registry tool named as the loop's search is the registry's, and runs;
// a deferred tool a step hides is not declared, so that the provider's
// search cannot show it to the model; and a call of the loop's search, which the run
// does not declare, is refused as not offered.
func NativeTests(t *testing.T, c Control) {
	t.Run("force a deferred tool", func(t *testing.T) {
		ran := map[string]int{}
		api := c.API(c.Calls("refund_order", `{"order":"A1"}`), c.Answer("Refunded."))
		var results []toolreg.Output
		opts := NativeSearch(&results)
		opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
			if s.Number == 1 {
				s.Choice = agent.Force("refund_order")
			}
			return nil
		}
		if _, err := c.Start(context.Background(), api, DeferredRegistry(ran), opts); err != nil {
			t.Fatal(err)
		}
		if got := c.Choice(t, api.Requests[0]); got != agent.Force("refund_order") {
			t.Errorf("tool choice %+v", got)
		}
		if ran["refund_order"] != 1 || len(results) != 1 || results[0].Text != "refunded A1" {
			t.Errorf("ran %v, results %+v", ran, results)
		}
	})
	t.Run("a registry tool named as the loop's search", func(t *testing.T) {
		reg := DeferredRegistry(map[string]int{})
		reg.MustAdd(toolreg.MustNew(agent.SearchToolName, "Searches the web.", func(_ context.Context, a struct {
			Query string `json:"query"`
		}) (string, error) {
			return "the web on " + a.Query, nil
		}))
		api := c.API(c.Calls(agent.SearchToolName, `{"query":"refund"}`), c.Answer("Done."))
		var results []toolreg.Output
		st, err := c.Start(context.Background(), api, reg, NativeSearch(&results))
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 1 || results[0].Text != "the web on refund" || len(st.Loaded) != 0 {
			t.Errorf("results %+v, loaded %v", results, st.Loaded)
		}
	})
	t.Run("a step that hides deferred tools", func(t *testing.T) {
		for _, hidden := range [][]string{{"refund_order"}, {"refund_order", "create_invoice", "send_email"}} {
			api := c.API(c.Calls("get_time", c.NoArgs), c.Answer("Ten."))
			opts := NativeSearch(nil)
			opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
				if s.Number == 2 {
					return s.Hide(hidden...)
				}
				return nil
			}
			if _, err := c.Start(context.Background(), api, DeferredRegistry(map[string]int{}), opts); err != nil {
				t.Fatal(err)
			}
			first, second := string(RawMember(t, api.Raw[0], "tools")), string(RawMember(t, api.Raw[1], "tools"))
			for _, name := range hidden {
				// The provider's search would show the model its
				// name and description.
				if !strings.Contains(first, `"`+name+`"`) || strings.Contains(second, `"`+name+`"`) {
					t.Errorf("hiding %v: %q declared in step 1 and not in step 2, want it so:\n%s\n%s", hidden, name, first, second)
				}
			}
			if strings.Contains(second, agent.SearchToolName) {
				t.Errorf("the loop's own search is declared: %s", second)
			}
		}
	})
	t.Run("a call of the loop's search", func(t *testing.T) {
		api := c.API(c.Calls(agent.SearchToolName, `{"query":"refund"}`), c.Answer("Sorry."))
		var results []toolreg.Output
		st, err := c.Start(context.Background(), api, DeferredRegistry(map[string]int{}), NativeSearch(&results))
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 1 || !results[0].IsError || !errors.Is(results[0].Err, agent.ErrNotOffered) || len(st.Loaded) != 0 {
			t.Errorf("results %+v, loaded %v", results, st.Loaded)
		}
	})
}
