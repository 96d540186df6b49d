package adapttest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Lie is a streamed reply that breaks the rules of a stream (a call
// handed over twice, more of a call after it was complete, a name or
// arguments that change after the call started, arguments past the
// tool's limit), after a call of get_weather may already have started;
// the run's error holds Want.
type Lie struct {
	Name  string
	Reply string
	Want  string
}

// LieTests runs each lie through an adapter's streaming runner (stream
// runs reg's tools against api, with api.Hold open) and checks what every
// runner does alike: the run ends with agent.ErrBrokenStream, and every
// call of get_weather that ran is in the State's Unsent, with the
// arguments it ran with, and in the error (with at most one more, a call
// cancelled as it started); none ran twice.
func LieTests(t *testing.T, newAPI func(replies ...string) *API, stream func(ctx context.Context, api *API, reg *toolreg.Registry) (*agent.State, error), lies []Lie) {
	for _, l := range lies {
		t.Run(l.Name, func(t *testing.T) {
			var rec Received
			reg := Registry(&rec)
			st, err := stream(context.Background(), newAPI(l.Reply, "{}"), reg)
			if !errors.Is(err, agent.ErrBrokenStream) || !strings.Contains(err.Error(), l.Want) {
				t.Fatalf("err = %v, want agent.ErrBrokenStream and %q", err, l.Want)
			}
			if st == nil {
				t.Fatal("no State")
			}
			var ran, unsent []string
			for _, a := range rec.Args() {
				ran = append(ran, a.City)
			}
			for _, c := range st.Unsent {
				var a WeatherArgs
				if err := json.Unmarshal(c.Arguments, &a); err != nil || c.Name != "get_weather" || c.Status != agent.StatusDone || c.Result == nil {
					t.Errorf("unsent %+v (%v)", c, err)
				}
				unsent = append(unsent, a.City)
				if !strings.Contains(err.Error(), c.Key()) {
					t.Errorf("the error does not name call %s: %v", c.Key(), err)
				}
			}
			// Every call that ran is in Unsent, once. A call cancelled as
			// it started, whichever its place in the turn, is recorded too,
			// as one that may have run: Unsent may hold it beside them.
			count := map[string]int{}
			for _, c := range unsent {
				count[c]++
			}
			for _, c := range ran {
				if count[c] != 1 {
					t.Errorf("call %s ran; State.Unsent holds it %d times (ran %v, unsent %v)", c, count[c], ran, unsent)
				}
			}
		})
	}
}
