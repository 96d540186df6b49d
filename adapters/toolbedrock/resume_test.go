package toolbedrock_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/agent"
)

// TestRunResumesEitherWay: a run paused on ConverseStream resumes on
// Converse and the other way round, from the same State; a nil State is a
// new run, and the result's State is never nil.
func TestRunResumesEitherWay(t *testing.T) {
	for _, first := range []bool{true, false} {
		var mu sync.Mutex
		var asked []string // the API of each model call
		h := scriptedHandler(`book_trip {"city":"Oslo"}`, "Booked.")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, path.Base(r.URL.Path))
			mu.Unlock()
			h.ServeHTTP(w, r)
		}))
		client := offlineClient(srv)
		a := toolbedrock.New(registry())
		input := &bedrockruntime.ConverseInput{ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Book Oslo.")}
		run, err := a.Run(context.Background(), client, input, nil, agent.Options{Stream: first})
		if !errors.Is(err, agent.ErrPaused) || run.State == nil {
			t.Fatalf("stream=%v: got %v, State %v; want a paused run with its State", first, err, run.State)
		}
		run.State.Approve(run.State.Pending()[0].Key())
		run, err = a.Run(context.Background(), client, input, run.State, agent.Options{Stream: !first})
		if err != nil || run.Answer() != "Booked." || run.Steps() != 2 {
			t.Errorf("stream=%v, resumed stream=%v: %q after %d steps, %v; want Booked. after 2", first, !first, run.Answer(), run.Steps(), err)
		}
		want := []string{"converse-stream", "converse"}
		if !first {
			want = []string{"converse", "converse-stream"}
		}
		if diff := cmp.Diff(want, asked); diff != "" {
			t.Errorf("stream=%v first: the APIs asked (-want +got):\n%s", first, diff)
		}
		srv.Close()
	}
}
