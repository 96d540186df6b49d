// Package fakemodel tests an agent run offline, in go test, through the
// real provider SDK client and the real runner: a Server plays the
// model's HTTP API from a script of turns written once for every
// provider, and records what the model was sent.
//
// A script is a list of Turns: Text (the answer), Call and Calls (tool
// calls, parallel when several), Error and RateLimit (an HTTP error in the
// provider's shape), Truncated and Dropped (an answer cut off by the
// token limit, or by a connection that drops half way), and Func (a turn
// made from the request when it comes). Each request is
// answered with the next turn, in the wire format of the API it went to
// (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini on
// the Developer API and on Vertex AI, Amazon Bedrock Converse), streamed
// when the client asks for a stream. OpenAIOptions, AnthropicOptions,
// GeminiConfig and VertexConfig point the SDK's client at the server;
// package fakebedrock of the toolbedrock module makes a Bedrock client of
// it, so that this package needs no AWS SDK.
//
//	func TestAgent(t *testing.T) {
//		s := fakemodel.New(t,
//			fakemodel.Call("get_weather", `{"city":"Paris"}`),
//			fakemodel.Text("It is 18°C in Paris."))
//		client := openai.NewClient(s.OpenAIOptions()...)
//		run, err := toolopenai.NewChat(reg).Run(ctx, &client.Chat.Completions, params, nil, agent.Options{})
//		...
//		s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"})
//	}
//
// Requests holds every request (credentials left out); a Request reads,
// alike for every provider, the tools declared (Tools, ToolNames), the
// tool results sent back for the model's last turn (ToolResults, with
// IsError where the provider marks it) and the media sent with them
// (Media). Calls joins each call the script made with the result the
// client sent back for it; AssertCalls and EquateJSON compare them with
// go-cmp, arguments and results as JSON.
//
// EveryTool is a script in which the model calls every tool of a
// registry, with arguments made from each tool's schema
// (toolregtest.Arguments), and AssertEveryTool checks what each call got
// back: one test smoke-tests a registry of fifty tools through the whole
// path. WithInvalidCalls adds calls with one fault each, to show what the
// model reads when it gets a call wrong.
//
// The server fails the test, naming the request, when the client asks for
// more turns than the script has, calls a path no provider has, sends a
// body that is not JSON or a result for a call no turn made; it answers
// those with a 500 in the provider's shape so that the client fails at
// once, and the SDK options turn retries off. A malformed turn stops the
// test at New; turns never asked for fail it as it ends.
//
// Replay plays a recorded exchange with a live provider instead of a
// script: recorded once with TOOLREG_RECORD=1 and a key, kept under
// testdata/ as indented JSON without any credential, and replayed in CI
// without network; a request that differs from the recording fails the
// test with a diff of the two.
//
//	s := fakemodel.Replay(t, "testdata/weather.json")
//	client := openai.NewClient(s.OpenAIOptions()...)
package fakemodel
