package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"google.golang.org/genai"

	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// providerRunnerRows are BenchmarkRunner's rows of the other providers:
// Anthropic's Messages API, Gemini's generateContent and Bedrock's
// Converse, each plain and streamed, the bare SDK against the toolreg
// runner, on the same canned replies as the OpenAI rows (one call of the
// small tool, then the answer).
var providerRunnerRows = []runnerRow{
	{"anthropic/bare_SDK", false, anthropicReplies, bareAnthropic, ""},
	{"anthropic/toolreg", false, anthropicReplies, toolregAnthropicRun, ""},
	{"anthropic_stream/bare_SDK", true, anthropicStreamReplies, bareAnthropic, ""},
	{"anthropic_stream/toolreg", true, anthropicStreamReplies, toolregAnthropicRun, ""},
	{"gemini/bare_SDK", false, geminiReplies, bareGemini, ""},
	{"gemini/toolreg", false, geminiReplies, toolregGeminiRun, ""},
	{"gemini_stream/bare_SDK", true, geminiStreamReplies, bareGemini, ""},
	{"gemini_stream/toolreg", true, geminiStreamReplies, toolregGeminiRun, ""},
	{"bedrock/bare_SDK", false, bedrockReplies, bareBedrock, ""},
	{"bedrock/toolreg", false, bedrockReplies, toolregBedrockRun, ""},
	{"bedrock_stream/bare_SDK", true, bedrockStreamReplies, bareBedrock, eventStreamType},
	{"bedrock_stream/toolreg", true, bedrockStreamReplies, toolregBedrockRun, eventStreamType},
}

const runnerPrompt = "What is the weather in Paris?"

// sse is server-sent events, each named and its data the JSON of fields
// with their type.
func sse(events ...map[string]any) string {
	var b strings.Builder
	for _, e := range events {
		data, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		if typ, ok := e["type"].(string); ok {
			b.WriteString("event: " + typ + "\n")
		}
		b.WriteString("data: " + string(data) + "\n\n")
	}
	return b.String()
}

// halves are the small tool's arguments in two pieces, as a stream sends
// them.
func halves() []string {
	args := string(small.args)
	return []string{args[:len(args)/2], args[len(args)/2:]}
}

// Anthropic's Messages API.

var anthropicReplies = []string{
	anthropicMessage("msg_1", "tool_use", map[string]any{"type": "tool_use", "id": "toolu_1", "name": toolName, "input": small.args}),
	anthropicMessage("msg_2", "end_turn", map[string]any{"type": "text", "text": runnerAnswer}),
}

func anthropicMessage(id, stop string, content ...any) string {
	b, err := json.Marshal(anthropicMessageFields(id, stop, content))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func anthropicMessageFields(id string, stop any, content []any) map[string]any {
	return map[string]any{"id": id, "type": "message", "role": "assistant", "model": "claude-test", "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 50, "output_tokens": 10}}
}

var anthropicStreamReplies = func() []string {
	ev := func(typ string, fields map[string]any) map[string]any {
		fields["type"] = typ
		return fields
	}
	end := func(stop string) []map[string]any {
		return []map[string]any{
			ev("content_block_stop", map[string]any{"index": 0}),
			ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}}),
			ev("message_stop", map[string]any{}),
		}
	}
	call := []map[string]any{
		ev("message_start", map[string]any{"message": anthropicMessageFields("msg_1", nil, []any{})}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": toolName, "input": map[string]any{}}}),
	}
	for _, p := range append([]string{""}, halves()...) {
		call = append(call, ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}}))
	}
	text := []map[string]any{
		ev("message_start", map[string]any{"message": anthropicMessageFields("msg_2", nil, []any{})}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
	}
	for _, w := range strings.SplitAfter(runnerAnswer, " ") {
		text = append(text, ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": w}}))
	}
	return []string{sse(append(call, end("tool_use")...)...), sse(append(text, end("end_turn")...)...)}
}()

func anthropicClient(tr *cannedTransport) anthropic.Client {
	return anthropic.NewClient(
		anthropicoption.WithHTTPClient(&http.Client{Transport: tr}),
		anthropicoption.WithBaseURL("http://model.test/"),
		anthropicoption.WithAPIKey("test"),
		anthropicoption.WithMaxRetries(0),
	)
}

func anthropicParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(runnerPrompt))},
	}
}

// bareAnthropic is the run by hand on the Messages API: ask, decode the
// input of each tool_use block, call the Go function, send the results in
// one user message, ask again. Streamed, each message is put together by
// the SDK's Accumulate.
func bareAnthropic(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := anthropicClient(tr)
	tools, err := toolanthropic.New(f.reg).Tools()
	if err != nil {
		panic(err)
	}
	ask := func(ctx context.Context, params anthropic.MessageNewParams) (*anthropic.Message, error) {
		if !stream {
			return client.Messages.New(ctx, params)
		}
		s := client.Messages.NewStreaming(ctx, params)
		defer s.Close()
		var msg anthropic.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				return nil, err
			}
		}
		return &msg, s.Err()
	}
	return func(ctx context.Context) (string, error) {
		params := anthropicParams()
		params.Tools = tools
		params.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}}
		msg, err := ask(ctx, params)
		if err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, msg.ToParam())
		var results []anthropic.ContentBlockParamUnion
		for _, b := range msg.Content {
			if b.Type != "tool_use" {
				continue
			}
			var a SmallArgs
			if err := json.Unmarshal(b.Input, &a); err != nil {
				return "", err
			}
			out, err := f.fn(ctx, a)
			if err != nil {
				return "", err
			}
			results = append(results, anthropic.ContentBlockParamUnion{OfToolResult: &anthropic.ToolResultBlockParam{ToolUseID: b.ID,
				Content: []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: out}}}}})
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
		if msg, err = ask(ctx, params); err != nil {
			return "", err
		}
		var text strings.Builder
		for _, b := range msg.Content {
			text.WriteString(b.Text)
		}
		return text.String(), nil
	}
}

func toolregAnthropicRun(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := anthropicClient(tr)
	a := toolanthropic.New(f.reg)
	return func(ctx context.Context) (string, error) {
		run, err := a.Run(ctx, &client.Messages, anthropicParams(), nil, agent.Options{Stream: stream})
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}

// Gemini's generateContent.

var geminiReplies = []string{
	geminiResponse(true, map[string]any{"functionCall": map[string]any{"name": toolName, "args": small.args}}),
	geminiResponse(true, map[string]any{"text": runnerAnswer}),
}

// geminiResponse is a response of one candidate with parts; the last of
// a stream has the finish reason and usage.
func geminiResponse(last bool, parts ...any) string {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": "gemini-test", "responseId": "resp-1"}
	if last {
		cand["finishReason"] = "STOP"
		r["usageMetadata"] = map[string]any{"promptTokenCount": 50, "candidatesTokenCount": 10, "totalTokenCount": 60}
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// geminiStreamReplies stream the call whole (Gemini sends a function call
// in one chunk) and the answer a word per chunk.
var geminiStreamReplies = func() []string {
	call := "data: " + geminiResponse(true, map[string]any{"functionCall": map[string]any{"name": toolName, "args": small.args}}) + "\n\n"
	var text strings.Builder
	words := strings.SplitAfter(runnerAnswer, " ")
	for i, w := range words {
		text.WriteString("data: " + geminiResponse(i == len(words)-1, map[string]any{"text": w}) + "\n\n")
	}
	return []string{call, text.String()}
}()

func geminiClient(tr *cannedTransport) *genai.Client {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: tr},
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://model.test/"},
	})
	if err != nil {
		panic(err)
	}
	return client
}

func geminiContents() []*genai.Content {
	return []*genai.Content{genai.NewContentFromText(runnerPrompt, genai.RoleUser)}
}

// bareGemini is the run by hand on generateContent: ask, decode the args
// of each function call (the SDK gives a map: through JSON into the
// arguments' struct), call the Go function, send the function responses,
// ask again. Streamed, the chunks' parts make the model's content.
func bareGemini(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := geminiClient(tr)
	tools, err := toolgemini.New(f.reg).Tools()
	if err != nil {
		panic(err)
	}
	ask := func(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, error) {
		if !stream {
			resp, err := client.Models.GenerateContent(ctx, "gemini-test", contents, config)
			if err != nil {
				return nil, err
			}
			return resp.Candidates[0].Content, nil
		}
		content := &genai.Content{Role: genai.RoleModel}
		for resp, err := range client.Models.GenerateContentStream(ctx, "gemini-test", contents, config) {
			if err != nil {
				return nil, err
			}
			if len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
				content.Parts = append(content.Parts, resp.Candidates[0].Content.Parts...)
			}
		}
		return content, nil
	}
	return func(ctx context.Context) (string, error) {
		config := &genai.GenerateContentConfig{Tools: tools, ToolConfig: &genai.ToolConfig{
			FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}}}
		contents := geminiContents()
		content, err := ask(ctx, contents, config)
		if err != nil {
			return "", err
		}
		contents = append(contents, content)
		var parts []*genai.Part
		for _, p := range content.Parts {
			fc := p.FunctionCall
			if fc == nil {
				continue
			}
			b, err := json.Marshal(fc.Args)
			if err != nil {
				return "", err
			}
			var a SmallArgs
			if err := json.Unmarshal(b, &a); err != nil {
				return "", err
			}
			out, err := f.fn(ctx, a)
			if err != nil {
				return "", err
			}
			parts = append(parts, genai.NewPartFromFunctionResponse(fc.Name, map[string]any{"output": out}))
		}
		contents = append(contents, genai.NewContentFromParts(parts, genai.RoleUser))
		if content, err = ask(ctx, contents, config); err != nil {
			return "", err
		}
		var text strings.Builder
		for _, p := range content.Parts {
			text.WriteString(p.Text)
		}
		return text.String(), nil
	}
}

func toolregGeminiRun(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := geminiClient(tr)
	a := toolgemini.New(f.reg)
	return func(ctx context.Context) (string, error) {
		run, err := a.Run(ctx, client.Models, "gemini-test", geminiContents(), nil, nil, agent.Options{Stream: stream})
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}

// Bedrock's Converse.

const eventStreamType = "application/vnd.amazon.eventstream"

var bedrockReplies = []string{
	bedrockOutput("tool_use", map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": toolName, "input": small.args}}),
	bedrockOutput("end_turn", map[string]any{"text": runnerAnswer}),
}

var bedrockUsage = map[string]any{"inputTokens": 50, "outputTokens": 10, "totalTokens": 60}

func bedrockOutput(stop string, content ...any) string {
	b, err := json.Marshal(map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop, "usage": bedrockUsage, "metrics": map[string]any{"latencyMs": 1}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// bedrockStreamReplies are the replies as ConverseStream sends them: AWS
// event-stream messages, the call's input in two pieces, the answer in
// words.
var bedrockStreamReplies = func() []string {
	type event struct {
		name string
		data map[string]any
	}
	end := func(stop string) []event {
		return []event{{"contentBlockStop", map[string]any{"contentBlockIndex": 0}},
			{"messageStop", map[string]any{"stopReason": stop}},
			{"metadata", map[string]any{"usage": bedrockUsage, "metrics": map[string]any{"latencyMs": 1}}}}
	}
	call := []event{{"messageStart", map[string]any{"role": "assistant"}},
		{"contentBlockStart", map[string]any{"contentBlockIndex": 0, "start": map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": toolName}}}}}
	for _, p := range halves() {
		call = append(call, event{"contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"toolUse": map[string]any{"input": p}}}})
	}
	text := []event{{"messageStart", map[string]any{"role": "assistant"}}}
	for _, w := range strings.SplitAfter(runnerAnswer, " ") {
		text = append(text, event{"contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": w}}})
	}
	// frame writes each event as an event-stream message: the prelude
	// (total and headers length, their CRC-32), the headers, the JSON
	// payload, the message's CRC-32.
	frame := func(events []event) string {
		var out bytes.Buffer
		for _, e := range events {
			payload, err := json.Marshal(e.data)
			if err != nil {
				panic(err)
			}
			var headers bytes.Buffer
			for _, h := range [][2]string{{":message-type", "event"}, {":event-type", e.name}, {":content-type", "application/json"}} {
				headers.WriteByte(byte(len(h[0])))
				headers.WriteString(h[0])
				headers.WriteByte(7) // a string
				headers.Write(binary.BigEndian.AppendUint16(nil, uint16(len(h[1]))))
				headers.WriteString(h[1])
			}
			msg := binary.BigEndian.AppendUint32(nil, uint32(12+headers.Len()+len(payload)+4))
			msg = binary.BigEndian.AppendUint32(msg, uint32(headers.Len()))
			msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
			msg = append(append(msg, headers.Bytes()...), payload...)
			out.Write(binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg)))
		}
		return out.String()
	}
	return []string{frame(append(call, end("tool_use")...)), frame(append(text, end("end_turn")...))}
}()

func bedrockClient(tr *cannedTransport) *bedrockruntime.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
		HTTPClient:  &http.Client{Transport: tr},
	}
	return bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String("http://model.test") })
}

func bedrockInput() *bedrockruntime.ConverseInput {
	return &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-test"), Messages: []types.Message{{
		Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: runnerPrompt}}}}}
}

// bareBedrock is the run by hand on Converse: ask, decode the input of
// each toolUse block, call the Go function, send the toolResult blocks,
// ask again. Streamed, the events' text and tool input are put together
// by hand, the input decoded into a document for the transcript.
func bareBedrock(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := bedrockClient(tr)
	tools, err := toolbedrock.New(f.reg).Tools()
	if err != nil {
		panic(err)
	}
	// ask returns the model's message and, streamed, the JSON of its tool
	// input, which the SDK does not decode.
	ask := func(ctx context.Context, in *bedrockruntime.ConverseInput) (types.Message, string, error) {
		if !stream {
			out, err := client.Converse(ctx, in)
			if err != nil {
				return types.Message{}, "", err
			}
			msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
			if !ok {
				return types.Message{}, "", errors.New("no message")
			}
			return msg.Value, "", nil
		}
		out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: in.ModelId, Messages: in.Messages, ToolConfig: in.ToolConfig})
		if err != nil {
			return types.Message{}, "", err
		}
		s := out.GetStream()
		defer s.Close()
		var text, input strings.Builder
		var use *types.ToolUseBlockStart
		for ev := range s.Events() {
			switch ev := ev.(type) {
			case *types.ConverseStreamOutputMemberContentBlockStart:
				if u, ok := ev.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
					use = &u.Value
				}
			case *types.ConverseStreamOutputMemberContentBlockDelta:
				switch d := ev.Value.Delta.(type) {
				case *types.ContentBlockDeltaMemberText:
					text.WriteString(d.Value)
				case *types.ContentBlockDeltaMemberToolUse:
					input.WriteString(aws.ToString(d.Value.Input))
				}
			}
		}
		if err := s.Err(); err != nil {
			return types.Message{}, "", err
		}
		msg := types.Message{Role: types.ConversationRoleAssistant}
		if text.Len() > 0 {
			msg.Content = append(msg.Content, &types.ContentBlockMemberText{Value: text.String()})
		}
		if use != nil {
			var v map[string]any
			if err := json.Unmarshal([]byte(input.String()), &v); err != nil {
				return types.Message{}, "", err
			}
			msg.Content = append(msg.Content, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: use.ToolUseId, Name: use.Name, Input: document.NewLazyDocument(v)}})
		}
		return msg, input.String(), nil
	}
	return func(ctx context.Context) (string, error) {
		in := bedrockInput()
		in.ToolConfig = &types.ToolConfiguration{Tools: tools}
		msg, input, err := ask(ctx, in)
		if err != nil {
			return "", err
		}
		in.Messages = append(in.Messages, msg)
		var results []types.ContentBlock
		for _, b := range msg.Content {
			u, ok := b.(*types.ContentBlockMemberToolUse)
			if !ok {
				continue
			}
			var a SmallArgs
			if stream {
				err = json.Unmarshal([]byte(input), &a)
			} else {
				err = u.Value.Input.UnmarshalSmithyDocument(&a)
			}
			if err != nil {
				return "", err
			}
			out, err := f.fn(ctx, a)
			if err != nil {
				return "", err
			}
			results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: u.Value.ToolUseId,
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: out}}}})
		}
		in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: results})
		if msg, _, err = ask(ctx, in); err != nil {
			return "", err
		}
		var text strings.Builder
		for _, b := range msg.Content {
			if t, ok := b.(*types.ContentBlockMemberText); ok {
				text.WriteString(t.Value)
			}
		}
		return text.String(), nil
	}
}

func toolregBedrockRun(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
	client := bedrockClient(tr)
	a := toolbedrock.New(f.reg)
	return func(ctx context.Context) (string, error) {
		run, err := a.Run(ctx, client, bedrockInput(), nil, agent.Options{Stream: stream})
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}

// runnerModels make, for a group (streamed or not), the Model its runner
// drives, holding the transcript of a finished run: its Save encodes
// State.Transcript as the runner does once at the end of every run, the
// bookkeeping the bare rows do not do (BenchmarkRunnerRatio's
// transcript-ns/run).
var runnerModels = map[string]func(f *runnerFixture, tr *cannedTransport) (agent.Model, error){
	"openai_Chat": func(f *runnerFixture, tr *cannedTransport) (agent.Model, error) {
		client := chatClient(tr)
		a := toolopenai.NewChat(f.reg)
		run, err := a.Run(context.Background(), &client.Chat.Completions, chatParams(), nil, agent.Options{})
		if err != nil {
			return nil, err
		}
		return a.Model(&client.Chat.Completions, chatParams(), run.State)
	},
	"openai_Responses": func(f *runnerFixture, tr *cannedTransport) (agent.Model, error) {
		client := chatClient(tr)
		a := toolopenai.NewResponses(f.reg)
		run, err := a.Run(context.Background(), &client.Responses, responsesParams(f), nil, agent.Options{})
		if err != nil {
			return nil, err
		}
		return a.Model(&client.Responses, responsesParams(f), run.State)
	},
	"anthropic": func(f *runnerFixture, tr *cannedTransport) (agent.Model, error) {
		client := anthropicClient(tr)
		a := toolanthropic.New(f.reg)
		run, err := a.Run(context.Background(), &client.Messages, anthropicParams(), nil, agent.Options{})
		if err != nil {
			return nil, err
		}
		return a.Model(&client.Messages, anthropicParams(), run.State)
	},
	"gemini": func(f *runnerFixture, tr *cannedTransport) (agent.Model, error) {
		client := geminiClient(tr)
		a := toolgemini.New(f.reg)
		run, err := a.Run(context.Background(), client.Models, "gemini-test", geminiContents(), nil, nil, agent.Options{})
		if err != nil {
			return nil, err
		}
		return a.Model(client.Models, "gemini-test", geminiContents(), nil, run.State)
	},
	"bedrock": func(f *runnerFixture, tr *cannedTransport) (agent.Model, error) {
		client := bedrockClient(tr)
		a := toolbedrock.New(f.reg)
		run, err := a.Run(context.Background(), client, bedrockInput(), nil, agent.Options{})
		if err != nil {
			return nil, err
		}
		return a.Model(client, bedrockInput(), run.State)
	},
}

// transcriptSaver returns a func that encodes the transcript of a
// finished run of group, as its runner's Save does, and checks once that
// it is the transcript the run saved.
func transcriptSaver(tb testing.TB, group string) func() error {
	provider, _ := strings.CutSuffix(group, "_stream")
	mk := runnerModels[provider]
	if mk == nil {
		tb.Fatalf("no model for %s", group)
	}
	replies := map[string][]string{"openai_Chat": chatReplies, "openai_Responses": responsesReplies,
		"anthropic": anthropicReplies, "gemini": geminiReplies, "bedrock": bedrockReplies}[provider]
	m, err := mk(newRunnerFixture(tb), &cannedTransport{bodies: replies})
	if err != nil {
		tb.Fatalf("%s: %v", group, err)
	}
	// A Responses run chained by previous_response_id keeps its
	// conversation on the server: it has no transcript to encode.
	var st agent.State
	if err := m.Save(&st); err != nil || len(st.Transcript) == 0 && provider != "openai_Responses" {
		tb.Fatalf("%s: saving the transcript: %v", group, err)
	}
	return func() error { return m.Save(&st) }
}
