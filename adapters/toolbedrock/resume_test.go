package toolbedrock_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/agent"
)

// TestRunResumesEitherWay: a run paused on ConverseStream resumes on
// Converse and the other way round, from the same State; a nil State is a
// new run, and the result's State is never nil.
func TestRunResumesEitherWay(t *testing.T) {
	for _, first := range []bool{true, false} {
		srv := scriptedBedrock(`book_trip {"city":"Oslo"}`, "Booked.")
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
		srv.Close()
	}
}
