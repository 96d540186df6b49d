package toolgemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
	"google.golang.org/genai"
)

// ModelsClient is the part of the SDK a run needs, plain and streamed:
// client.Models satisfies it.
type ModelsClient interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// ErrBlocked: Gemini blocked the prompt (promptFeedback.blockReason) or
// the response (finishReason SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII and their image forms). The error names the
// reason; RunResult.Final holds the response.
var ErrBlocked = errors.New("blocked by Gemini's content filters")

// RunResult is what a run produced, also when it ends with an error.
type RunResult struct {
	// Contents is the transcript: the request's contents, then each model
	// content as it came (thoughtSignature parts included) and the user
	// content of function responses that answered it.
	Contents []*genai.Content
	// Final is the last response of this call of Run (for a streamed
	// one, the chunks put together); its first candidate holds the model's
	// answer when the run ended without error.
	Final *genai.GenerateContentResponse
	// State is where the run stands, as data: resume it with Run when the
	// run returned agent.ErrPaused. It is never nil.
	State *agent.State
}

// Answer is the text of the final model content, its text parts
// concatenated (thoughts left out); "" if there is none.
func (r *RunResult) Answer() string {
	if r.Final == nil || len(r.Final.Candidates) == 0 || r.Final.Candidates[0] == nil || r.Final.Candidates[0].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Final.Candidates[0].Content.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Steps counts the model calls of the run, resumed runs included.
func (r *RunResult) Steps() int { return r.State.Steps }

// provider names Gemini's runs in their State and CallInfo.
const provider = "gemini"

// Run is the agent loop on generateContent (streamGenerateContent with
// agent.Options.Stream). Its arguments after the client are those of
// client.Models.GenerateContent, then the state and opts, so a call of the
// SDK becomes a run by adding the client, a nil state and opts. It sends
// contents with the registry's function declarations (each step's, see
// agent.Options.PrepareStep), runs every function call of a model turn
// concurrently, sends the results back in one user content in call order,
// and repeats until the model answers without calling a function.
//
// A nil (or zero) state starts a new run from contents. A state that a run
// paused (agent.ErrPaused) resumes that run, once the host has decided its
// pending calls in it: approved calls run, rejected ones tell the model
// why, answered tools run again with the answer; no call that ran runs
// twice. The contents are then the state's transcript, and the contents
// argument is ignored; model and config are the run's. state may come
// from JSON, in another process: the transcript keeps every part as Gemini
// sent it, thoughtSignature included. A state that counts model calls or
// holds a paused turn but no transcript is refused (agent.ErrInvalidState)
// rather than started over from contents.
//
// config is not modified. Its fields go out as they are, except:
//   - Tools: the run's declarations (agent.Step.Declared) are added as one
//     more genai.Tool after the caller's (Google Search, code execution,
//     ...), the same every step, so that the prompt cache holds; when the
//     caller's tools declare functions themselves, they are sent as they
//     are, the same every step, and the registry's are not added.
//   - ToolConfig.FunctionCallingConfig: Mode and AllowedFunctionNames say
//     the step's tool choice (agent.Step.Choice): AUTO, NONE, ANY, or ANY
//     with the one forced function; the config's own are replaced. A step
//     that allows fewer tools than declared (PrepareStep's Only, Hide,
//     OnlyTagged) names them in AllowedFunctionNames, with VALIDATED (the
//     model may answer in text) or ANY (Required); NONE when it allows none.
//     VALIDATED is a preview mode that the v1 API may refuse:
//     WithTrimmedTools declares only the step's tools instead.
//
// Function calls may come without ids: their results are then matched by
// order, and the calls of a paused turn are known by their place
// (agent.Call.Key is "#" and the index).
//
// With agent.Options.Stream, Run asks the model on
// streamGenerateContent (client.GenerateContentStream): opts.OnEvent sees
// the model's text as it arrives (agent.TextDelta; thoughts are not
// reported) and each function call as its part arrives (agent.CallStarted,
// then agent.CallReady: Gemini sends a call whole, so it starts at once,
// while the model writes the next). A stream that breaks off, reports an
// error or ends without a finishReason ends the run with an error; so does
// a response the run cannot go on from, as without streaming. Calls
// started before such an end are cancelled, though one that had finished
// has run; no call runs on a part that did not arrive whole. A run paused
// while streaming may resume without, and the other way round.
//
// Tool failures go back to the model as {"error": ...} responses and the
// run goes on. The run ends with an error, and the transcript so far, when
// the client fails, ctx is done, the response was cut off by a token limit
// (finishReason MAX_TOKENS: toolreg.ErrTruncated; its calls are not run),
// the prompt or the response was blocked (ErrBlocked), the model stopped
// for another reason (MALFORMED_FUNCTION_CALL, ...), MaxSteps model calls
// did not suffice (toolreg.ErrMaxSteps), the model got calls wrong too
// often (toolreg.ErrTooManyRetries), or a tool returned toolreg.StopRun.
// It returns agent.ErrPaused when calls wait for the host: decide them in
// run.State and call Run again with it.
func (a *Adapter) Run(ctx context.Context, client ModelsClient, model string, contents []*genai.Content, config *genai.GenerateContentConfig, state *agent.State, opts agent.Options) (*RunResult, error) {
	if state == nil {
		state = &agent.State{}
	}
	if len(state.Transcript) == 0 && (state.Steps > 0 || len(state.Turn) > 0) {
		// A run went on in it, but the conversation is gone: starting over
		// from contents would hide that from the model.
		return &RunResult{State: state}, fmt.Errorf("gemini: %w: the state holds no transcript to resume", agent.ErrInvalidState)
	}
	m := &runner{a: a, client: client, stream: opts.Stream, model: model}
	if err := m.init(contents, config, state); err != nil {
		return &RunResult{State: state}, err
	}
	loop := &adapt.Run{Registry: a.reg, Model: m, Options: opts, State: state}
	return m.run, loop.Do(ctx)
}

// Model is Gemini's side of a run, for a host that drives runs itself
// (package toolreg/tooltemporal asks it from an activity): it asks model with
// config and keeps the conversation of state, or starts one from contents
// when state holds none. Run uses the same. Model never streams. It
// refuses a nil state: the host holds the State it drives and passes the
// same pointer to the loop.
func (a *Adapter) Model(client ModelsClient, model string, contents []*genai.Content, config *genai.GenerateContentConfig, state *agent.State) (agent.Model, error) {
	m := &runner{a: a, client: client, model: model}
	if state == nil {
		return nil, errors.New("gemini: a model without a state")
	}
	if err := m.init(contents, config, state); err != nil {
		return nil, err
	}
	return m, nil
}

// init readies the runner for a run over state: from the state's
// transcript when it holds one, else from contents.
func (m *runner) init(contents []*genai.Content, config *genai.GenerateContentConfig, state *agent.State) error {
	if len(state.Transcript) > 0 {
		contents = nil // not the caller's slice to decode into
		if err := json.Unmarshal(state.Transcript, &contents); err != nil {
			return fmt.Errorf("gemini: %w: the state's transcript is not a list of contents: %w", agent.ErrInvalidState, err)
		}
	}
	m.config = own(config)
	m.fixedTools = declaresFunctions(m.config.Tools)
	m.run = &RunResult{State: state, Contents: slices.Clone(contents)}
	return nil
}

// own is a copy of config that the SDK may write into: GenerateContent
// fills in the role of the system instruction and the headers of the HTTP
// options, which would otherwise change the caller's.
func own(config *genai.GenerateContentConfig) genai.GenerateContentConfig {
	if config == nil {
		return genai.GenerateContentConfig{}
	}
	c := *config
	if c.SystemInstruction != nil {
		si := *c.SystemInstruction
		c.SystemInstruction = &si
	}
	if c.HTTPOptions != nil {
		h := *c.HTTPOptions
		c.HTTPOptions = &h
	}
	return c
}

func declaresFunctions(tools []*genai.Tool) bool {
	return slices.ContainsFunc(tools, func(t *genai.Tool) bool { return t != nil && len(t.FunctionDeclarations) > 0 })
}

// runner is Gemini's side of the loop, for one run.
type runner struct {
	a          *Adapter
	client     ModelsClient
	stream     bool // ask on streamGenerateContent
	model      string
	config     genai.GenerateContentConfig // the run's own copy
	fixedTools bool                        // the caller's tools declare functions
	decls      adapt.StepTools[*genai.FunctionDeclaration]
	run        *RunResult
}

func (m *runner) Info() agent.RunInfo { return agent.RunInfo{Provider: provider, Model: m.model} }

func (m *runner) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	emit, ready = adapt.Hooks(emit, ready)
	config, err := m.stepConfig(s)
	if err != nil {
		return agent.Reply{}, err
	}
	var resp *genai.GenerateContentResponse
	if m.stream {
		resp, err = streamContent(ctx, m.client, m.model, m.run.Contents, config, s.Number, emit, ready)
	} else {
		resp, err = m.client.GenerateContent(ctx, m.model, m.run.Contents, config)
	}
	if err != nil {
		return agent.Reply{}, fmt.Errorf("gemini: step %d: %w", s.Number, err)
	}
	m.run.Final = resp
	reply := agent.Reply{Usage: usage(resp.UsageMetadata)}
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: reply.Usage, Response: resp})
	cand, err := candidate(resp)
	if err != nil {
		return reply, fmt.Errorf("gemini: step %d: %w", s.Number, err)
	}
	if c := cand.Content; c != nil && len(c.Parts) > 0 {
		m.run.Contents = append(m.run.Contents, c)
	}
	if err := finished(cand); err != nil {
		return reply, fmt.Errorf("gemini: step %d: %w", s.Number, err)
	}
	reply.Calls = m.a.ToolCalls(cand.Content)
	return reply, nil
}

func (m *runner) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	m.run.Contents = append(m.run.Contents, m.a.results(calls, outs))
	return nil
}

// Save writes the transcript as the JSON of the SDK's types, whose byte
// fields (thoughtSignature) encode as base64 and come back unchanged.
func (m *runner) Save(s *agent.State) error {
	b, err := json.Marshal(m.run.Contents)
	s.Transcript = b
	return err
}

// stepConfig is the run's config with the step's tools and tool choice.
func (m *runner) stepConfig(s *agent.Step) (*genai.GenerateContentConfig, error) {
	c := m.config
	declared := s.Declared()
	if m.a.cfg.trim {
		declared = s.Trimmed()
	}
	if !m.fixedTools {
		decls, err := m.decls.For(declared, m.a.declarations)
		if err != nil {
			return nil, err
		}
		if len(decls) > 0 {
			c.Tools = append(slices.Clone(c.Tools), &genai.Tool{FunctionDeclarations: decls})
		}
	}
	mode, names := functionCalling(s.Choice)
	if !m.fixedTools && !m.a.cfg.trim {
		mode, names = stepFunctionCalling(s)
	}
	c.ToolConfig = toolConfig(c.ToolConfig, mode, names, declaresFunctions(c.Tools))
	return &c, nil
}

// declarations are the registry's declarations of tools, in their order.
// They are the caller's, but their schemas are shared with the Adapter's
// cache.
func (a *Adapter) declarations(tools []toolreg.AnyTool) ([]*genai.FunctionDeclaration, error) {
	decls, err := a.defs.Of(tools)
	if err != nil {
		return nil, err
	}
	copies := make([]genai.FunctionDeclaration, len(decls))
	for i, d := range decls {
		copies[i] = *d
		decls[i] = &copies[i]
	}
	return decls, nil
}

// toolConfig is base (not modified) with the step's function calling
// mode and allowed names when functions are declared, and without a
// function calling config when none is: a mode without functions is
// refused.
func toolConfig(base *genai.ToolConfig, mode genai.FunctionCallingConfigMode, names []string, declared bool) *genai.ToolConfig {
	var tc genai.ToolConfig
	if base != nil {
		tc = *base
	}
	tc.FunctionCallingConfig = nil
	if declared {
		var fc genai.FunctionCallingConfig
		if base != nil && base.FunctionCallingConfig != nil {
			fc = *base.FunctionCallingConfig
		}
		fc.Mode, fc.AllowedFunctionNames = mode, names
		tc.FunctionCallingConfig = &fc
	}
	if tc == (genai.ToolConfig{}) {
		return nil
	}
	return &tc
}

// functionCalling is a tool choice as Gemini's mode and allowed names: a
// call is required with ANY, and a forced tool is the one name ANY allows.
func functionCalling(c agent.ToolChoice) (genai.FunctionCallingConfigMode, []string) {
	switch c.Mode {
	case agent.ChoiceNone:
		return genai.FunctionCallingConfigModeNone, nil
	case agent.ChoiceRequired:
		return genai.FunctionCallingConfigModeAny, nil
	case agent.ChoiceTool:
		return genai.FunctionCallingConfigModeAny, []string{c.Tool}
	}
	return genai.FunctionCallingConfigModeAuto, nil
}

// stepFunctionCalling is functionCalling with the step's restriction:
// the declarations are the run's, the same every step, and a step that
// allows fewer names them in allowedFunctionNames, which the API honours
// with ANY (a call required) and VALIDATED (the model decides, its calls
// held to the names), not with AUTO. None allowed is NONE.
func stepFunctionCalling(s *agent.Step) (genai.FunctionCallingConfigMode, []string) {
	allowed, restricted := s.Restriction()
	switch {
	case !restricted || s.Choice.Mode == agent.ChoiceTool || s.Choice.Mode == agent.ChoiceNone:
		return functionCalling(s.Choice)
	case len(allowed) == 0:
		return genai.FunctionCallingConfigModeNone, nil
	case s.Choice.Mode == agent.ChoiceRequired:
		return genai.FunctionCallingConfigModeAny, allowed
	}
	return genai.FunctionCallingConfigModeValidated, allowed
}

// usage counts what Gemini bills: the prompt with what tools put into it
// as input, the candidates with the model's thoughts as output (as OpenAI's
// and Anthropic's output counts include reasoning), so that the two add up
// to totalTokenCount.
func usage(u *genai.GenerateContentResponseUsageMetadata) agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	return agent.Usage{
		InputTokens:  int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
		OutputTokens: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
	}
}

// candidate is the response's first candidate, the one the run follows;
// a blocked prompt or a response without candidates is an error.
func candidate(resp *genai.GenerateContentResponse) (*genai.Candidate, error) {
	if f := resp.PromptFeedback; f != nil && f.BlockReason != "" && f.BlockReason != genai.BlockedReasonUnspecified {
		return nil, fmt.Errorf("%w: the prompt (blockReason %s)%s", ErrBlocked, f.BlockReason, detail(f.BlockReasonMessage))
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil, errors.New("the response has no candidates")
	}
	return resp.Candidates[0], nil
}

// finished reports a candidate the run cannot go on from: one cut off by
// the token limit (or left for a continuation the caller turned off),
// blocked, or stopped for another reason than STOP.
func finished(c *genai.Candidate) error {
	switch r := c.FinishReason; r {
	case genai.FinishReasonStop, genai.FinishReasonUnspecified, "":
		return nil
	case genai.FinishReasonMaxTokens, genai.FinishReasonContinuation:
		// Its function calls may stand for a turn the model did not end.
		return fmt.Errorf("%w (finishReason %s)%s", toolreg.ErrTruncated, r, detail(c.FinishMessage))
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return fmt.Errorf("%w: the response (finishReason %s)%s", ErrBlocked, r, detail(c.FinishMessage))
	default:
		return fmt.Errorf("the model stopped with finishReason %s%s", r, detail(c.FinishMessage))
	}
}

func detail(message string) string {
	if message == "" {
		return ""
	}
	return ": " + message
}

// TurnCalls returns the function calls of the transcript's last content,
// the model's turn a paused turn answers (agent.TurnReader).
func (m *runner) TurnCalls() ([]toolreg.ToolCall, error) {
	contents := m.run.Contents
	if len(contents) == 0 || contents[len(contents)-1] == nil || contents[len(contents)-1].Role != genai.RoleModel {
		return nil, errors.New("gemini: the transcript does not end with the model's content")
	}
	return m.a.ToolCalls(contents[len(contents)-1]), nil
}
