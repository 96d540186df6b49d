package toolmcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// payment is a tool that asks the host to confirm a payment, with a
// schema MCP elicitation allows, and pays only when confirmed.
func askRegistry(t *testing.T, paid *atomic.Int64) *toolreg.Registry {
	t.Helper()
	reg := toolreg.NewRegistry()
	type confirm struct {
		Confirm bool   `json:"confirm"`
		Note    string `json:"note,omitempty"`
	}
	reg.MustAdd(
		toolreg.MustNew("pay", "Pays a sum, once the user confirms.",
			func(ctx context.Context, a struct {
				Sum int `json:"sum"`
			}) (string, error) {
				ans := toolreg.Info(ctx).Answer
				if ans == nil {
					return "", toolreg.Interrupt(map[string]any{
						"message":         "Pay " + jsonText(a.Sum) + " EUR?",
						"requestedSchema": json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"},"note":{"type":"string","maxLength":20}},"required":["confirm"]}`),
					})
				}
				var c confirm
				if err := json.Unmarshal(ans, &c); err != nil {
					return "", err
				}
				if !c.Confirm {
					return "not paid", nil
				}
				paid.Add(int64(a.Sum))
				return "paid " + jsonText(a.Sum) + " EUR " + c.Note, nil
			}),
		toolreg.MustNew("pick", "Picks a hotel: asks which, without a schema.",
			func(ctx context.Context, _ struct{}) (string, error) {
				if ans := toolreg.Info(ctx).Answer; ans != nil {
					var s string
					json.Unmarshal(ans, &s)
					return "booked " + s, nil
				}
				return "", toolreg.Interrupt("Which hotel, Savoy or Ritz?")
			}),
		toolreg.MustNew("nested", "Asks with a schema MCP does not allow.",
			func(ctx context.Context, _ struct{}) (string, error) {
				return "", toolreg.Interrupt(map[string]any{"message": "Where?",
					"requestedSchema": json.RawMessage(`{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`)})
			}),
		toolreg.MustNew("nag", "Asks forever.",
			func(ctx context.Context, _ struct{}) (string, error) {
				return "", toolreg.Interrupt("Again?")
			}),
	)
	return reg
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestServedToolAsksClient calls served tools that interrupt through a
// go-sdk client of each revision: 2025-11-25 is asked over its session
// (elicitation/create), 2026-07-28 with an input_required result that the
// client's SDK answers and calls again with.
func TestServedToolAsksClient(t *testing.T) {
	type reply struct {
		action  string
		content map[string]any
	}
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		reply   reply
		want    string
		isError bool
		paid    int64
		asked   string // the message the client was shown
	}{
		{name: "accept", tool: "pay", args: map[string]any{"sum": 10}, reply: reply{"accept", map[string]any{"confirm": true, "note": "rent"}},
			want: "paid 10 EUR rent", paid: 10, asked: "Pay 10 EUR?"},
		{name: "accept no", tool: "pay", args: map[string]any{"sum": 10}, reply: reply{"accept", map[string]any{"confirm": false}},
			want: "not paid", asked: "Pay 10 EUR?"},
		{name: "decline", tool: "pay", args: map[string]any{"sum": 10}, reply: reply{"decline", nil},
			want: `the user declined to answer the question of tool "pay"; the call did not complete`, isError: true, asked: "Pay 10 EUR?"},
		{name: "cancel", tool: "pay", args: map[string]any{"sum": 10}, reply: reply{"cancel", nil},
			want: `the user dismissed the question of tool "pay" without answering; the call did not complete`, isError: true, asked: "Pay 10 EUR?"},
		{name: "fallback", tool: "pick", args: map[string]any{}, reply: reply{"accept", map[string]any{"answer": "Savoy"}},
			want: "booked Savoy", asked: "Which hotel, Savoy or Ritz?"},
		{name: "schema MCP refuses", tool: "nested", args: map[string]any{},
			want: `tool "nested" asks a question this MCP client cannot be asked: MCP elicitation failed: property "address" of the requestedSchema is not a string, number, integer, boolean or multiple choice; MCP elicitation allows only a flat form of those; the call did not complete`, isError: true},
	}
	for _, v := range versions {
		for _, tc := range cases {
			t.Run(v+"/"+tc.name, func(t *testing.T) {
				var paid atomic.Int64
				srv, _ := newServer(t, askRegistry(t, &paid))
				var asked string
				cs, _ := connect(t, srv, v, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = req.Params.Message
					return &mcp.ElicitResult{Action: tc.reply.action, Content: tc.reply.content}, nil
				}})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, textOf(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				if res.IsError != tc.isError {
					t.Errorf("isError %v, want %v", res.IsError, tc.isError)
				}
				if asked != tc.asked {
					t.Errorf("the client was asked %q, want %q", asked, tc.asked)
				}
				if got := paid.Load(); got != tc.paid {
					t.Errorf("paid %d, want %d", got, tc.paid)
				}
			})
		}
	}
}

// TestServedToolClientCannotBeAsked: a client without elicitation gets an
// error result that says so, in each revision.
func TestServedToolClientCannotBeAsked(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			var paid atomic.Int64
			srv, _ := newServer(t, askRegistry(t, &paid))
			cs, _ := connect(t, srv, v, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": 1}})
			if err != nil {
				t.Fatal(err)
			}
			want := `tool "pay" asks the user a question, and this MCP client does not support elicitation, so it cannot be asked; the call did not complete`
			if diff := cmp.Diff(want, textOf(res)); diff != "" || !res.IsError || paid.Load() != 0 {
				t.Errorf("isError %v, paid %d, text (-want +got):\n%s", res.IsError, paid.Load(), diff)
			}
		})
	}
}

// TestServedToolBadAnswers answers as a lying client of 2026-07-28 does,
// by hand, after an input_required result: a content not valid under the
// schema, an oversized one, an unknown action, a forged or borrowed
// requestState. The tool never runs with such an answer.
func TestServedToolBadAnswers(t *testing.T) {
	var paid atomic.Int64
	srv, adapter := newServer(t, askRegistry(t, &paid))
	cs, _ := connect(t, srv, "2026-07-28", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("not called")
		}})
	ctx := context.Background()
	ask := func(sum int) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": sum}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.RequestState == "" {
			t.Fatalf("want an input_required result, got %+v", res)
		}
		return res
	}
	first := ask(5)
	q, ok := first.InputRequests[inputID].(*mcp.ElicitParams)
	if !ok || q.Message != "Pay 5 EUR?" {
		t.Fatalf("input request %+v", first.InputRequests)
	}
	other := ask(7) // the question of another call
	// A question asked two hours ago, signed by this server.
	sum := sha256.Sum256([]byte(`{"sum":5}`))
	old, _ := json.Marshal(askState{Tool: "pay", Args: sum[:], Message: q.Message, Schema: json.RawMessage(jsonText(q.RequestedSchema)), Asked: time.Now().Add(-2 * time.Hour).Unix()})
	expired := base64.RawURLEncoding.EncodeToString(old) + "." + base64.RawURLEncoding.EncodeToString(adapter.mac(old))
	// The state shows the client the form only.
	if st, _ := base64.RawURLEncoding.DecodeString(strings.Split(first.RequestState, ".")[0]); strings.Contains(string(st), "private") {
		t.Errorf("the requestState holds the tool's private question: %s", st)
	}
	cases := []struct {
		name      string
		sum       int
		state     string
		responses mcp.InputResponseMap
		want      string // in the text
	}{
		{"wrong type", 5, first.RequestState, answer(map[string]any{"confirm": "yes"}), `the answer is not valid under the requested schema`},
		{"too long", 5, first.RequestState, answer(map[string]any{"confirm": true, "note": strings.Repeat("x", 100)}), "not valid under the requested schema"},
		{"huge", 5, first.RequestState, answer(map[string]any{"confirm": true, "note": strings.Repeat("x", maxAnswerBytes)}), "the limit is 65536"},
		{"missing", 5, first.RequestState, answer(map[string]any{}), "not valid under the requested schema"},
		{"action", 5, first.RequestState, mcp.InputResponseMap{inputID: &mcp.ElicitResult{Action: "maybe"}}, `answered with action "maybe"`},
		{"no response", 5, first.RequestState, mcp.InputResponseMap{}, `0 inputResponses came`},
		{"other key", 5, first.RequestState, mcp.InputResponseMap{"x": &mcp.ElicitResult{Action: "accept"}}, `no elicitation result under "answer"`},
		{"forged", 5, "eyJ0IjoicGF5In0.AAAA", answer(map[string]any{"confirm": true}), "not one this server gave"},
		{"garbage", 5, "%%%", answer(map[string]any{"confirm": true}), "not one this server gave"},
		{"huge state", 5, strings.Repeat("A", maxRequestState+1), answer(map[string]any{"confirm": true}), "more than this server ever sends"},
		{"borrowed", 5, other.RequestState, answer(map[string]any{"confirm": true}), "given for another call"},
		{"no state", 5, "", answer(map[string]any{"confirm": true}), "not one this server gave"},
		{"expired", 5, expired, answer(map[string]any{"confirm": true}), "asked more than 1h0m0s ago"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": tc.sum},
				InputResponses: tc.responses, RequestState: tc.state})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(textOf(res), tc.want) {
				t.Errorf("got %v %q, want an error with %q", res.IsError, textOf(res), tc.want)
			}
			if paid.Load() != 0 {
				t.Error("the tool paid with an answer it should not have been given")
			}
		})
	}
	// The same answer, valid, is taken.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": 5},
		InputResponses: answer(map[string]any{"confirm": true}), RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "paid 5 EUR " || paid.Load() != 5 {
		t.Errorf("got %q, paid %d", got, paid.Load())
	}
}

func answer(content map[string]any) mcp.InputResponseMap {
	return mcp.InputResponseMap{inputID: &mcp.ElicitResult{Action: "accept", Content: content}}
}

// TestServedToolAsksTooOften: a tool that asks again after every answer
// is stopped, over a session, after the bound; over 2026-07-28 the
// client's SDK stops calling again after its own.
func TestServedToolAsksTooOften(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			var paid atomic.Int64
			srv, _ := newServer(t, askRegistry(t, &paid))
			var asked atomic.Int64
			cs, _ := connect(t, srv, v, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
			}})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nag", Arguments: map[string]any{}})
			switch {
			case err != nil:
				if !strings.Contains(err.Error(), "exceeded maximum retries") {
					t.Fatal(err)
				}
			case !res.IsError || !strings.Contains(textOf(res), "more than 10 questions"):
				t.Errorf("got %v %q", res.IsError, textOf(res))
			}
			if n := asked.Load(); n > maxElicitations {
				t.Errorf("asked %d times, more than %d", n, maxElicitations)
			}
		})
	}
}

// TestServedToolAsksOverHTTP asks through the HTTP handler, with and
// without sessions: 2026-07-28 gets an input_required result either way;
// an older client is asked over its session, and with none (Stateless)
// gets an error result that says the question cannot be asked.
func TestServedToolAsksOverHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		for _, v := range versions {
			t.Run(fmt.Sprintf("%s/stateless=%v", v, stateless), func(t *testing.T) {
				var paid atomic.Int64
				srv, _ := newServer(t, askRegistry(t, &paid))
				hs := httptest.NewServer(HTTPHandler(srv, HTTPOptions{Stateless: stateless}))
				t.Cleanup(hs.Close)
				client := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				}})
				cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": 3}})
				if err != nil {
					t.Fatal(err)
				}
				if stateless && v != "2026-07-28" {
					if !res.IsError || !strings.Contains(textOf(res), "could not be asked") || paid.Load() != 0 {
						t.Errorf("got %v %q, paid %d", res.IsError, textOf(res), paid.Load())
					}
					return
				}
				if got := textOf(res); got != "paid 3 EUR " || paid.Load() != 3 {
					t.Errorf("got %q, paid %d", got, paid.Load())
				}
			})
		}
	}
}

// TestServedToolAskWaits: a client that never answers holds the call up
// to the bound, or until it cancels the call, and the tool does not run.
func TestServedToolAskWaits(t *testing.T) {
	defer func(d time.Duration) { askWait = d }(askWait)
	askWait = 100 * time.Millisecond
	var paid atomic.Int64
	srv, _ := newServer(t, askRegistry(t, &paid))
	release := make(chan struct{})
	defer close(release)
	cs, _ := connect(t, srv, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("gone")
	}})
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `tool "pay" asked a question that was not answered in time; the call did not complete`
	if textOf(res) != want || !res.IsError || paid.Load() != 0 {
		t.Errorf("got %v %q, paid %d", res.IsError, textOf(res), paid.Load())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %v", d)
	}
}
