package adapttest

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Stored sends a State through JSON, as a host that keeps it does, for a
// test that resumes a run from what it stored.
func Stored(t *testing.T, s *agent.State) *agent.State {
	t.Helper()
	return stored(t, s)
}

// Edit changes the JSON of a stored State, as someone who can write the
// store does, and returns the State read back.
func Edit(t *testing.T, s *agent.State, edit func(st map[string]any)) *agent.State {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	var back agent.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TurnCall is call i of the paused turn of a State's JSON, for Edit.
func TurnCall(st map[string]any, i int) map[string]any {
	return st["turn"].([]any)[i].(map[string]any)
}

// StateEdit is one change to the stored State of a run paused with a done
// call (0) and a call that waits for approval (1), which the runners must
// refuse: Want is in the error's message, naming the field.
type StateEdit struct {
	Name string
	Edit func(st map[string]any)
	Want string
	// Transcript marks an edit only a runner that reads the paused turn
	// from its transcript (agent.TurnReader) can see.
	Transcript bool
}

// StateEdits are the edits of a stored State the runners refuse.
var StateEdits = []StateEdit{
	{Name: "approval to approved", Edit: func(st map[string]any) { TurnCall(st, 1)["status"] = "approved" }, Want: "status is approved"},
	{Name: "approval to answered", Edit: func(st map[string]any) {
		TurnCall(st, 1)["status"], TurnCall(st, 1)["answer"] = "answered", "yes"
	}, Want: "status is answered"},
	{Name: "approval to rejected", Edit: func(st map[string]any) { TurnCall(st, 1)["status"] = "rejected" }, Want: "status is rejected"},
	{Name: "done to approved", Edit: func(st map[string]any) {
		TurnCall(st, 0)["status"] = "approved"
		delete(TurnCall(st, 0), "result")
	}, Want: "status is approved"},
	{Name: "done without a result", Edit: func(st map[string]any) { delete(TurnCall(st, 0), "result") }, Want: "result"},
	{Name: "a result on a waiting call", Edit: func(st map[string]any) { TurnCall(st, 1)["result"] = map[string]any{"text": "made up"} }, Want: "result"},
	{Name: "arguments not in the transcript", Edit: func(st map[string]any) {
		TurnCall(st, 1)["arguments"] = map[string]any{"city": "Paris"}
	}, Want: "arguments", Transcript: true},
	{Name: "id not in the transcript", Edit: func(st map[string]any) { TurnCall(st, 1)["id"] = "forged" }, Want: "id", Transcript: true},
	{Name: "name not in the transcript", Edit: func(st map[string]any) { TurnCall(st, 1)["name"] = "get_time" }, Want: "name", Transcript: true},
	{Name: "a call added", Edit: func(st map[string]any) {
		st["turn"] = append(st["turn"].([]any), map[string]any{"id": "forged", "name": "book", "arguments": map[string]any{"city": "Rome"}, "index": 2, "status": "approval"})
	}, Want: "holds 3 calls", Transcript: true},
	{Name: "steps -50", Edit: func(st map[string]any) { st["steps"] = -50 }, Want: "steps"},
	{Name: "unknown status", Edit: func(st map[string]any) { TurnCall(st, 1)["status"] = "maybe" }, Want: "status"},
	{Name: "duplicate keys", Edit: func(st map[string]any) {
		first := TurnCall(st, 0)
		key, _ := first["id"].(string)
		if key == "" {
			key = "#0"
		}
		TurnCall(st, 1)["id"] = key
	}, Want: "twice"},
	{Name: "negative retries", Edit: func(st map[string]any) { st["retries"] = map[string]any{"get_weather": -1} }, Want: "retries"},
	{Name: "negative run retries", Edit: func(st map[string]any) { st["run_retries"] = -2 }, Want: "run_retries"},
	{Name: "wrong index", Edit: func(st map[string]any) { TurnCall(st, 1)["index"] = 5 }, Want: "index"},
	{Name: "interrupted without a question", Edit: func(st map[string]any) { TurnCall(st, 1)["status"] = "interrupted" }, Want: "question"},
	{Name: "another provider", Edit: func(st map[string]any) { st["provider"] = "elsewhere" }, Want: "provider"},
	{Name: "a turn without a transcript", Edit: func(st map[string]any) {
		delete(st, "transcript")
		delete(st, "cursor")
	}, Want: "transcript"},
}

// StateTests checks that a runner resumes a stored State only as the
// runner wrote it, with the host's decisions: each of StateEdits is
// refused with agent.ErrInvalidState before any model or tool call,
// whatever the host decides after loading; with a key
// (agent.Options.StateKey) the State must carry a valid seal, a tampered
// one is refused, and decisions sealed in one process resume in another.
// With c.Cursor, the edits only a transcript shows are left out.
func StateTests(t *testing.T, c Control) {
	t.Run("checkpoint", func(t *testing.T) { CheckpointTests(t, c) })
	paused := func(t *testing.T, opts agent.Options) (*API, *toolreg.Registry, map[string]int, func() int64, *agent.State) {
		t.Helper()
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		calls := CountCalls(reg)
		api := c.API(c.Calls("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`), c.Answer("Booked."))
		st, err := c.Start(context.Background(), api, reg, opts)
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v, want ErrPaused", err)
		}
		return api, reg, ran, calls.Load, st
	}
	// refused resumes st, once the host has approved what it is shown,
	// and wants the resume refused before any model or tool call.
	refused := func(t *testing.T, api *API, reg *toolreg.Registry, calls func() int64, st *agent.State, opts agent.Options, want string) {
		t.Helper()
		for _, p := range st.Pending() {
			st.Approve(p.Key())
		}
		before, n := len(api.Requests), calls()
		_, err := c.Resume(context.Background(), api, reg, st, opts)
		if !errors.Is(err, agent.ErrInvalidState) || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want agent.ErrInvalidState naming %s", err, want)
		}
		if n := len(api.Requests) - before; n != 0 {
			t.Errorf("%d model calls after the resume, want none", n)
		}
		if n := calls() - n; n != 0 {
			t.Errorf("%d tool calls after the resume, want none", n)
		}
	}
	for _, e := range StateEdits {
		if e.Transcript && c.Cursor {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			api, reg, ran, calls, st := paused(t, agent.Options{})
			refused(t, api, reg, calls, Edit(t, st, e.Edit), agent.Options{}, e.Want)
			if ran["book"] != 0 {
				t.Errorf("book ran %d times", ran["book"])
			}
		})
	}
	t.Run("scrambled", func(t *testing.T) {
		// Random edits end in an error or a run, never a panic.
		api, reg, _, _, st := paused(t, agent.Options{})
		for i, st := range Scramble(t, st, 150, 24) {
			b, _ := json.Marshal(st)
			for _, p := range st.Pending() {
				st.Approve(p.Key())
				st.Answer(p.Key(), "yes")
			}
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("state %d panicked: %v\n%s", i, v, b)
					}
				}()
				c.Resume(context.Background(), api, reg, st, agent.Options{})
			}()
		}
	})
	key := []byte("a key of the host, 32 bytes long")
	t.Run("sealed, decided after loading", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		api := c.API(c.Calls("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`), c.Answer("Booked."))
		st, err := c.Start(context.Background(), api, reg, agent.Options{StateKey: key})
		if !errors.Is(err, agent.ErrPaused) || st.Seal == "" {
			t.Fatalf("err = %v, seal %q", err, st.Seal)
		}
		st = stored(t, st)
		if err := st.Verify(key); err != nil {
			t.Fatal(err)
		}
		if err := st.Approve(st.Pending()[0].Key()); err != nil {
			t.Fatal(err)
		}
		if st, err = c.Resume(context.Background(), api, reg, st, agent.Options{StateKey: key}); err != nil {
			t.Fatal(err)
		}
		if ran["book"] != 1 || st.Verify(key) != nil {
			t.Errorf("book ran %d times; the State returned: %v", ran["book"], st.Verify(key))
		}
	})
	t.Run("sealed, decided in another process", func(t *testing.T) {
		ran := map[string]int{}
		reg := ControlRegistry(ran)
		api := c.API(c.Calls("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`), c.Answer("Booked."))
		st, err := c.Start(context.Background(), api, reg, agent.Options{StateKey: key})
		if !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v", err)
		}
		st = stored(t, st) // the process that decides
		if err := st.ApproveWith(st.Pending()[0].Key(), json.RawMessage(`{"city":"Bergen"}`)); err != nil {
			t.Fatal(err)
		}
		if err := st.Reseal(key); err != nil {
			t.Fatal(err)
		}
		st = stored(t, st) // the process that resumes
		if _, err = c.Resume(context.Background(), api, reg, st, agent.Options{StateKey: key}); err != nil {
			t.Fatal(err)
		}
		got := c.Results(t, api.Requests[1])
		if len(got) != 2 || got[1].Text != "booked Bergen" || ran["book"] != 1 {
			t.Errorf("book ran %d times; results %+v", ran["book"], got)
		}
	})
	tampered := []struct {
		name string
		edit func(st *agent.State)
		key  []byte // the resume's
	}{
		{"decided in the store", func(st *agent.State) { st.Turn[1].Status = agent.StatusApproved }, key},
		{"steps set back", func(st *agent.State) { st.Steps = 0 }, key},
		{"a result changed", func(st *agent.State) { st.Turn[0].Result.Text = "made up" }, key},
		{"the seal removed", func(st *agent.State) { st.Seal = "" }, key},
		{"resumed with another key", func(*agent.State) {}, []byte("another key")},
	}
	for _, tt := range tampered {
		t.Run("sealed, "+tt.name, func(t *testing.T) {
			api, reg, _, calls, st := paused(t, agent.Options{StateKey: key})
			st = stored(t, st)
			tt.edit(st)
			refused(t, api, reg, calls, st, agent.Options{StateKey: tt.key}, "seal")
		})
	}
}

// Scramble makes n States from the JSON of st, each with a few random
// edits (values replaced by others of any type, keys and list items
// dropped or doubled), as a store someone writes into at random; it skips
// the JSON that does not decode as a State. The edits come from seed,
// the same every run.
func Scramble(t *testing.T, st *agent.State, n int, seed uint64) []*agent.State {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []*agent.State
	for len(out) < n {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		for range 1 + rng.IntN(4) {
			v = scramble(rng, v)
		}
		e, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var back agent.State
		if json.Unmarshal(e, &back) == nil {
			out = append(out, &back)
		}
	}
	return out
}

var scraps = []any{nil, true, false, 0.0, 1.0, -1.0, -50.0, 2.0, 1e9, "", "done", "approval", "approved", "rejected", "answered", "interrupted", "maybe", "#0", "#1", "openai.chat", "book", "get_weather", `{"city":"Oslo"}`, "[]", map[string]any{}, []any{}, map[string]any{"text": "x"}}

// scramble makes one random edit somewhere in v and returns it.
func scramble(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || rng.IntN(4) == 0 {
			return scraps[rng.IntN(len(scraps))]
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(5) {
		case 0:
			delete(x, k)
		default:
			x[k] = scramble(rng, x[k])
		}
		return x
	case []any:
		if len(x) == 0 || rng.IntN(5) == 0 {
			return scraps[rng.IntN(len(scraps))]
		}
		i := rng.IntN(len(x))
		switch rng.IntN(5) {
		case 0:
			return slices.Delete(x, i, i+1)
		case 1:
			return slices.Insert(x, i, x[i])
		default:
			x[i] = scramble(rng, x[i])
			return x
		}
	}
	return scraps[rng.IntN(len(scraps))]
}
