package agent

import "github.com/toolreg/toolreg"

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of Event. Within a step, the streaming events come as the model
// writes; a call's CallReady before its result; StepDone when the model's
// response is complete (before the CallReady events of a run that does
// not stream, which learns of the calls from the response); the CallResult
// events last, in call order.
const (
	TextDelta      EventKind = iota + 1 // Text: more of the model's answer
	CallStarted                         // Call.ID, Call.Name: the model begins a tool call
	ArgumentsDelta                      // Call.ID, Call.Name, Delta: more of its arguments
	CallReady                           // Call: the arguments are complete; the call may start
	CallResult                          // Call, Output: the call has run
	StepDone                            // Usage, Response: the model call is over
)

func (k EventKind) String() string {
	switch k {
	case TextDelta:
		return "text"
	case CallStarted:
		return "call started"
	case ArgumentsDelta:
		return "arguments"
	case CallReady:
		return "call ready"
	case CallResult:
		return "call result"
	case StepDone:
		return "step done"
	}
	return "unknown event"
}

// Event is one thing that happened in a run, the same for every provider.
// Every run reports CallReady, CallResult and StepDone; a run with
// Options.Stream also TextDelta, CallStarted and ArgumentsDelta, as the
// model writes.
type Event struct {
	Kind   EventKind
	Step   int
	Text   string           // TextDelta
	Call   toolreg.ToolCall // the call the event is about
	Delta  string           // ArgumentsDelta: the next piece of the arguments
	Output toolreg.Output   // CallResult
	Usage  Usage            // StepDone
	// Response is the provider's response of the step (StepDone):
	// *openai.ChatCompletion, *responses.Response, *anthropic.Message,
	// *genai.GenerateContentResponse or *bedrockruntime.ConverseOutput.
	Response any
}

// Usage counts the tokens of one model call, as the provider reported
// them.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}
