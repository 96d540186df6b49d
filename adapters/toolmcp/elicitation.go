package toolmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// An imported server that asks the user a question during a call
// (elicitation/create, or an input_required result from 2026-07-28 on)
// pauses the run: see Importer.Elicit.

// elicitationKind marks the question of an Elicitation among the
// questions a run's tools ask.
const elicitationKind = "mcp.elicitation"

// Elicitation is the question an imported tool's server asked during a
// call, as the run's paused call holds it (agent.Call.Question): read it
// with ElicitationOf, show Message and a form for RequestedSchema to the
// user, and answer with Accept, Decline or Cancel.
type Elicitation struct {
	Kind            string          `json:"kind"`   // "mcp.elicitation"
	Server          string          `json:"server"` // who asks: the server, as it names itself
	Tool            string          `json:"tool"`   // the tool's MCP name
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"` // a flat object of primitives, as MCP allows
	// Key identifies the question (a digest of the tool, the message and
	// the schema): an answer is given only to the same question.
	Key string `json:"key"`
	// Answered holds the answers given to the questions the server asked
	// before this one in the same call, by Key: the call is made again
	// from its start, and the server asks them again.
	Answered map[string]*mcp.ElicitResult `json:"answered,omitempty"`
}

// ElicitationAnswer is the answer to an Elicitation, to give to
// agent.State.Answer: the answers to every question of the call so far,
// by Key. Make it with Elicitation.Accept, Decline or Cancel.
type ElicitationAnswer struct {
	Answers map[string]*mcp.ElicitResult `json:"mcpElicitationAnswers"`
}

// ElicitationOf reads question, a paused call's question, as the
// Elicitation of an imported server; ok is false for a question that is
// not one.
func ElicitationOf(question json.RawMessage) (e *Elicitation, ok bool) {
	if json.Unmarshal(question, &e) != nil || e == nil || e.Kind != elicitationKind {
		return nil, false
	}
	return e, true
}

// Accept answers the question with content, checked against the
// requested schema first: an error (ErrElicitation) says what is wrong,
// and nothing is answered.
func (e *Elicitation) Accept(content map[string]any) (ElicitationAnswer, error) {
	f, err := newForm(e.Message, e.RequestedSchema)
	if err != nil {
		return ElicitationAnswer{}, err
	}
	if _, err := f.content(content); err != nil {
		return ElicitationAnswer{}, err
	}
	return e.answer(&mcp.ElicitResult{Action: "accept", Content: content}), nil
}

// Decline answers that the user refuses to answer; the server decides what
// its tool does then.
func (e *Elicitation) Decline() ElicitationAnswer {
	return e.answer(&mcp.ElicitResult{Action: "decline"})
}

// Cancel answers that the user dismissed the question without choosing.
func (e *Elicitation) Cancel() ElicitationAnswer {
	return e.answer(&mcp.ElicitResult{Action: "cancel"})
}

func (e *Elicitation) answer(r *mcp.ElicitResult) ElicitationAnswer {
	answers := maps.Clone(e.Answered)
	if answers == nil {
		answers = map[string]*mcp.ElicitResult{}
	}
	answers[e.Key] = r
	return ElicitationAnswer{Answers: answers}
}

// asking is one call of an imported tool in flight: the answers it was
// given, and the question it has to ask the host, if any.
type asking struct {
	cs      *mcp.ClientSession
	tool    *importedTool
	answers map[string]*mcp.ElicitResult

	mu       sync.Mutex
	asked    int          // questions the server asked in this call
	question *Elicitation // the first question without an answer
	err      error        // an elicitation refused: the call fails with it
}

type askingKey struct{}

// asks is the call's asking, made from the host's answer: the call made
// again after a pause has the answers of its questions.
func (t *importedTool) asks(ctx context.Context, cs *mcp.ClientSession) (*asking, error) {
	a := &asking{cs: cs, tool: t}
	raw := toolreg.Info(ctx).Answer
	if raw == nil {
		return a, nil
	}
	var ans ElicitationAnswer
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Answers == nil {
		return nil, callError(ErrElicitation, nil, "the host's answer to the question of %s is not an answer to an MCP elicitation (answer with Elicitation.Accept, Decline or Cancel); the call was not made", t.im.link.Load().server)
	}
	if len(ans.Answers) > maxElicitations {
		return nil, callError(ErrElicitation, nil, "the host's answer holds %d answers; a call asks at most %d questions", len(ans.Answers), maxElicitations)
	}
	a.answers = ans.Answers
	return a, nil
}

// track adds a to the calls in flight until the returned func is called.
func (im *Importer) track(a *asking) func() {
	im.amu.Lock()
	if im.asking == nil {
		im.asking = map[*asking]bool{}
	}
	im.asking[a] = true
	im.amu.Unlock()
	return func() {
		im.amu.Lock()
		delete(im.asking, a)
		im.amu.Unlock()
	}
}

// errAskLater is what an imported server hears when its question goes to
// the host: the host answers when the run resumes, and the call is made
// again then.
var errAskLater = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the question is passed to the user, who answers later; the tool will be called again with the answer"}

// Elicit answers an imported server's question (elicitation/create, or an
// input request of an input_required result): set it as the
// ElicitationHandler of the mcp.Client the session is made with, beside
// ToolListChanged. A question asked during a call of an imported tool
// pauses the run, as a Go tool's toolreg.Interrupt does:
//
//   - the first time, the server hears that the question is passed on
//     (an error), what it returns is dropped, and the call's result is an
//     interrupt whose question is an Elicitation (ElicitationOf reads it
//     from agent.State.Pending);
//   - the host answers when it likes, in this process or another from a
//     stored State: State.Answer(key, answer), answer from the
//     Elicitation's Accept, Decline or Cancel; Accept checks the content
//     against the server's schema;
//   - when the run resumes, the call is made again, from its start, with
//     the same arguments, and this time Elicit answers the same question
//     (same tool, message and schema) from the host's answer, checked
//     against the schema again. A server that then asks another question
//     pauses the run again; the answer to it (from the new Elicitation)
//     carries the earlier answers along, so that no process has to keep
//     them. An answer made by hand that leaves them out gets the earlier
//     questions asked again.
//
// The request of the live call cannot wait a day, hence the call made
// again. So a server before 2026-07-28 runs its tool up to its question
// once per question, plus once to the end: a tool with side effects
// before its question must make them idempotent, as for any retried call.
// A server of 2026-07-28 answers each round as a request of its own
// anyway (its input_required result and requestState), so the call made
// again is one more round to it.
//
// Bounds, as a server can lie: a form the SDK's client refuses (a property
// that is not a primitive) fails the call with the SDK's reason; one over
// 16 kB or 50 properties, a message over 4,000 bytes, more than 10
// questions in one call, a URL elicitation, or a host's answer not valid
// under the schema fails it with an error that matches ErrElicitation and
// says which bound; the model reads it.
//
// Over a session before 2026-07-28, the server's question comes on its own,
// and is matched to the imported call in flight on that session. When
// several are in flight and none holds an answer to the question, it
// cannot be told which asked: the server gets a cancel, and the calls
// go on without a pause. A question asked outside a call gets a cancel
// too.
func (im *Importer) Elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no params"}
	}
	a := im.caller(ctx, req)
	if a == nil {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	return a.elicit(req.Params)
}

// caller finds the call in flight that asks req: the call whose context
// the SDK's multi round-trip passes on, or the call on req's session.
func (im *Importer) caller(ctx context.Context, req *mcp.ElicitRequest) *asking {
	if a, ok := ctx.Value(askingKey{}).(*asking); ok {
		return a
	}
	im.amu.Lock()
	defer im.amu.Unlock()
	var on []*asking
	for a := range im.asking {
		if a.cs == req.Session {
			on = append(on, a)
		}
	}
	if len(on) == 1 {
		return on[0]
	}
	var holds []*asking // the calls that have an answer to the question
	for _, a := range on {
		if a.tool != nil && a.answers[questionKey(a.tool.mcpName, req.Params.Message, req.Params.RequestedSchema)] != nil {
			holds = append(holds, a)
		}
	}
	if len(holds) == 1 {
		return holds[0]
	}
	return nil
}

// questionKey identifies a question of a tool.
func questionKey(tool, message string, schema any) string {
	s, _ := json.Marshal(schema)
	sum := sha256.Sum256([]byte(tool + "\x00" + message + "\x00" + string(s)))
	return hex.EncodeToString(sum[:12])
}

// elicit answers one question of the call from the host's answers, or
// keeps it for the host.
func (a *asking) elicit(p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := func(err error) (*mcp.ElicitResult, error) {
		if a.err == nil {
			a.err = err
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if a.err != nil {
		return nil, errAskLater
	}
	a.asked++
	if a.asked > maxElicitations {
		return fail(fmt.Errorf("%w: the server asked more than %d questions in one call", ErrElicitation, maxElicitations))
	}
	if p.Mode == "url" || p.URL != "" {
		return fail(fmt.Errorf("%w: the server asked the user to open a URL; only forms can be asked", ErrElicitation))
	}
	if len(p.Message) > maxElicitMessage {
		return fail(fmt.Errorf("%w: the server's question is %d bytes long; up to %d are allowed", ErrElicitation, len(p.Message), maxElicitMessage))
	}
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil || p.RequestedSchema == nil {
		return fail(fmt.Errorf("%w: the server's question has no requestedSchema", ErrElicitation))
	}
	f, err := newForm(p.Message, schema)
	if err != nil {
		return fail(err)
	}
	key := questionKey(a.tool.mcpName, p.Message, p.RequestedSchema)
	if ans := a.answers[key]; ans != nil {
		switch ans.Action {
		case "accept":
			if _, err := f.content(ans.Content); err != nil {
				return fail(fmt.Errorf("the host's answer: %w", err))
			}
			return &mcp.ElicitResult{Action: "accept", Content: ans.Content}, nil
		case "decline", "cancel":
			return &mcp.ElicitResult{Action: ans.Action}, nil
		default:
			return fail(fmt.Errorf("%w: the host answered with action %q, not accept, decline or cancel", ErrElicitation, peerText(ans.Action, 50)))
		}
	}
	if len(a.answers) >= maxElicitations {
		return fail(fmt.Errorf("%w: the server asked more than %d questions in one call", ErrElicitation, maxElicitations))
	}
	if a.question == nil {
		a.question = &Elicitation{Kind: elicitationKind, Server: ownName(a.cs), Tool: a.tool.mcpName,
			Message: p.Message, RequestedSchema: schema, Key: key, Answered: a.answers}
	}
	return nil, errAskLater
}

// outcome is what the call returns when the server asked: the question
// for the host, or the error of a question refused; nil when it asked
// nothing that is left to answer.
func (a *asking) outcome() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.err != nil:
		return callError(ErrElicitation, a.err, "tool %q asked the user a question that cannot be passed on: %v", a.tool.Name(), a.err)
	case a.question != nil:
		return toolreg.Interrupt(a.question)
	}
	return nil
}

// ownName is the name a session's server gives itself, bounded.
func ownName(cs *mcp.ClientSession) string {
	if res := cs.InitializeResult(); res != nil && res.ServerInfo != nil {
		return peerText(res.ServerInfo.Name, maxServerName)
	}
	return ""
}
