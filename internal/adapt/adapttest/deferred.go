package adapttest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// DeferredRegistry is Registry's get_weather and get_time, and three
// tools the run defers: refund_order and create_invoice (WithDeferred),
// and send_email, tagged "mail" (deferred by Options.Defer with
// toolreg.Tagged("mail")). ran counts the calls that reached a function;
// read it once the run is over.
func DeferredRegistry(ran map[string]int) *toolreg.Registry {
	reg := Registry(nil)
	var mu sync.Mutex // a turn's calls run at once
	count := func(name string) {
		mu.Lock()
		ran[name]++
		mu.Unlock()
	}
	type order struct {
		Order string `json:"order"`
	}
	type customer struct {
		Customer string `json:"customer"`
	}
	reg.MustAdd(
		toolreg.MustNew("refund_order", "Refunds a customer's order, in full or in part.", func(_ context.Context, a order) (string, error) {
			count("refund_order")
			return "refunded " + a.Order, nil
		}, toolreg.WithDeferred()),
		toolreg.MustNew("create_invoice", "Creates an invoice for a customer.", func(_ context.Context, a customer) (string, error) {
			count("create_invoice")
			return "invoiced " + a.Customer, nil
		}, toolreg.WithDeferred()),
		toolreg.MustNew("send_email", "Sends an email to a customer.", func(_ context.Context, a customer) (string, error) {
			count("send_email")
			return "sent", nil
		}, toolreg.WithTags("mail")),
	)
	return reg
}

// DeferredTests: deferred tools are left out of the requests until the
// model finds them with the tool search, which the loop answers; found
// tools are declared after the others from the next step on, the array
// growing only at its end; a model that calls a deferred tool it never
// found has the call run, one that calls a tool the registry lacks reads a
// refusal; the State keeps what was found, and one that names a tool the
// registry lacks is refused.
func DeferredTests(t *testing.T, c Control) {
	opts := func(results *[]toolreg.Output) agent.Options {
		return agent.Options{Defer: toolreg.Tagged("mail"), OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult && results != nil {
				*results = append(*results, e.Output)
			}
		}}
	}
	t.Run("search, then call", func(t *testing.T) {
		ran := map[string]int{}
		api := c.API(
			c.Calls(agent.SearchToolName, `{"query":"refund an order"}`),
			c.Calls("refund_order", `{"order":"A1"}`, "create_invoice", `{"customer":"ACME"}`, "drop_tables", `{}`),
			c.Answer("Refunded."))
		var results []toolreg.Output
		st, err := c.Start(context.Background(), api, DeferredRegistry(ran), opts(&results))
		if err != nil {
			t.Fatal(err)
		}
		first := []string{"get_weather", "get_time", agent.SearchToolName}
		found := append(first[:3:3], "refund_order")
		for i, want := range [][]string{first, found, found} {
			if diff := cmp.Diff(want, c.Tools(t, api.Requests[i])); diff != "" {
				t.Errorf("request %d tools (-want +got):\n%s", i+1, diff)
			}
		}
		// The array only grew at its end: step 1's bytes, but for the
		// brackets that close it, start step 2's.
		if before, after := RawMember(t, api.Raw[0], "tools"), RawMember(t, api.Raw[1], "tools"); before != nil {
			common := 0
			for common < min(len(before), len(after)) && before[common] == after[common] {
				common++
			}
			if common < len(before)-3 {
				t.Errorf("step 2's tools do not start with step 1's:\n%s\n%s", before, after)
			}
			if third := RawMember(t, api.Raw[2], "tools"); string(third) != string(after) {
				t.Errorf("step 3's tools differ from step 2's")
			}
		}
		if len(results) != 4 {
			t.Fatalf("%d results, want 4: %+v", len(results), results)
		}
		if r := results[0]; r.IsError || !strings.Contains(r.Text, "- refund_order: Refunds a customer's order") || strings.Contains(r.Text, "create_invoice") {
			t.Errorf("the search's result: %+v", r)
		}
		if results[1].Text != "refunded A1" || results[2].Text != "invoiced ACME" {
			t.Errorf("the found tool and the one never found: %+v, %+v", results[1], results[2])
		}
		if r := results[3]; !r.IsError || !errors.Is(r.Err, toolreg.ErrUnknownTool) {
			t.Errorf("a tool the registry lacks: %+v", r)
		}
		if diff := cmp.Diff([]string{"refund_order"}, st.Loaded); diff != "" {
			t.Errorf("State.Loaded (-want +got):\n%s", diff)
		}
		if ran["refund_order"] != 1 || ran["create_invoice"] != 1 {
			t.Errorf("ran %v", ran)
		}
	})
	t.Run("nothing matches, or a bad query", func(t *testing.T) {
		api := c.API(
			c.Calls(agent.SearchToolName, `{"query":"xyzzy plugh"}`, agent.SearchToolName, `{"query":" "}`, agent.SearchToolName, `{"limit":99,"query":"email"}`),
			c.Answer("Sorry."))
		var results []toolreg.Output
		st, err := c.Start(context.Background(), api, DeferredRegistry(map[string]int{}), opts(&results))
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 3 || results[0].IsError || !strings.Contains(results[0].Text, `no tool matched "xyzzy plugh"`) {
			t.Fatalf("no match: %+v", results)
		}
		// A blank query is told what a query looks like; a limit out of
		// range is told the bound, as any tool's bad arguments are.
		if r := results[1]; !errors.Is(r.Err, toolreg.ErrInvalidArguments) || !strings.Contains(r.Text, `{"query": "a few words"}`) {
			t.Errorf("a blank search: %+v", r)
		}
		if r := results[2]; !errors.Is(r.Err, toolreg.ErrInvalidArguments) || !strings.Contains(r.Text, "maximum 20") {
			t.Errorf("a search over the limit: %+v", r)
		}
		if len(st.Loaded) != 0 {
			t.Errorf("loaded %v", st.Loaded)
		}
	})
	t.Run("a searcher that lies or fails", func(t *testing.T) {
		api := c.API(
			c.Calls(agent.SearchToolName, `{"limit":1,"query":"anything"}`, agent.SearchToolName, `{"query":"fail"}`),
			c.Answer("Done."))
		var results []toolreg.Output
		o := opts(&results)
		o.Search = lyingSearcher{}
		st, err := c.Start(context.Background(), api, DeferredRegistry(map[string]int{}), o)
		if err != nil {
			t.Fatal(err)
		}
		// Of what it returns, only a deferred tool not found yet counts,
		// once, and no more than the limit.
		if len(results) != 2 || !strings.Contains(results[0].Text, "- create_invoice:") || strings.Contains(results[0].Text, "send_email") || strings.Contains(results[0].Text, "get_weather") {
			t.Fatalf("results %+v", results)
		}
		// The host's error stays with the host; the model reads only that
		// the search failed.
		if r := results[1]; !errors.Is(r.Err, toolreg.ErrToolFailed) || !strings.Contains(r.Err.Error(), "the index is down") ||
			strings.Contains(r.Text, "the index is down") || !r.IsError {
			t.Errorf("a failed search: %+v", r)
		}
		if diff := cmp.Diff([]string{"create_invoice"}, st.Loaded); diff != "" {
			t.Errorf("State.Loaded (-want +got):\n%s", diff)
		}
	})
	t.Run("a resumed run keeps what was found", func(t *testing.T) {
		api := c.API(c.Answer("Hi."))
		st := &agent.State{Loaded: []string{"send_email"}}
		if _, err := c.Resume(context.Background(), api, DeferredRegistry(map[string]int{}), st, opts(nil)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"get_weather", "get_time", agent.SearchToolName, "send_email"}, c.Tools(t, api.Requests[0])); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
	t.Run("a State that found a tool the registry lacks", func(t *testing.T) {
		api := c.API(c.Answer("never sent"))
		st := &agent.State{Loaded: []string{"drop_tables"}}
		_, err := c.Resume(context.Background(), api, DeferredRegistry(map[string]int{}), st, opts(nil))
		if !errors.Is(err, agent.ErrInvalidState) || len(api.Requests) != 0 {
			t.Errorf("err = %v after %d requests, want ErrInvalidState before any", err, len(api.Requests))
		}
	})
	t.Run("a registry tool named as the tool search", func(t *testing.T) {
		reg := DeferredRegistry(map[string]int{})
		reg.MustAdd(RawTool{ToolName: agent.SearchToolName, Input: []byte(`{"type":"object"}`)})
		api := c.API(c.Answer("never sent"))
		_, err := c.Start(context.Background(), api, reg, opts(nil))
		if !errors.Is(err, toolreg.ErrDuplicateTool) || len(api.Requests) != 0 {
			t.Errorf("err = %v after %d requests, want ErrDuplicateTool before any", err, len(api.Requests))
		}
	})
}

// lyingSearcher names tools that are no candidates, a tool twice, and more
// than the limit; for the query "fail", it fails.
type lyingSearcher struct{}

func (lyingSearcher) Search(_ context.Context, query string, _ []toolreg.AnyTool, _ int) ([]string, error) {
	if query == "fail" {
		return nil, errors.New("the index is down")
	}
	return []string{"get_weather", "drop_tables", "create_invoice", "create_invoice", "send_email"}, nil
}

// NativeSearch is what a test of a provider's own tool search needs: the
// options of a run over DeferredRegistry (send_email deferred by its tag)
// that collect each call's result into results, if not nil.
func NativeSearch(results *[]toolreg.Output) agent.Options {
	return agent.Options{Defer: toolreg.Tagged("mail"), OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult && results != nil {
			*results = append(*results, e.Output)
		}
	}}
}

// CheckNativeSearch checks a run over DeferredRegistry that the provider's
// own search served, its model calling refund_order (found),
// create_invoice (deferred, never found) and drop_tables (unknown): the
// first request declares every tool, in the registry's order, the deferred
// ones with defer_loading, then the search (each an entry of its "tools",
// named by its name or else its type, and by its type too when that is
// not plainType); the second request's tools are the first's, byte for
// byte; the first two calls ran and the third was refused; the loop's own
// search was not declared.
func CheckNativeSearch(t *testing.T, api *API, results []toolreg.Output, plainType string, search string) {
	t.Helper()
	var tools []map[string]any
	if err := json.Unmarshal(RawMember(t, api.Raw[0], "tools"), &tools); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range tools {
		name, _ := tl["name"].(string)
		if tl["defer_loading"] == true {
			name += " (deferred)"
		}
		if typ, _ := tl["type"].(string); typ != "" && typ != plainType {
			name = strings.TrimSpace(name + " " + typ)
		}
		got = append(got, name)
	}
	want := []string{"get_weather", "get_time", "refund_order (deferred)", "create_invoice (deferred)", "send_email (deferred)", search}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if a, b := RawMember(t, api.Raw[0], "tools"), RawMember(t, api.Raw[1], "tools"); string(a) != string(b) {
		t.Errorf("the tools of request 2 differ from request 1's")
	}
	if len(results) != 3 || results[0].Text != "refunded A1" || results[1].Text != "invoiced ACME" || !results[2].IsError {
		t.Errorf("results %+v", results)
	}
	if strings.Contains(string(api.Raw[0]), agent.SearchToolName) {
		t.Errorf("the loop's own search is declared beside the provider's")
	}
}
