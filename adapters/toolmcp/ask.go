package toolmcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// A served tool that asks a question (toolreg.Interrupt) asks the MCP
// client. See AddTools for what the client sees.

// inputID names the one input request of an input_required result.
const inputID = "answer"

// askWait bounds how long a client over a session may take to answer a
// question, besides the call's own context; a variable for the tests.
var askWait = 10 * time.Minute

// askTTL is how long a question sent in an input_required result may be
// answered: its requestState says when it was asked.
const askTTL = time.Hour

// maxRequestState bounds, in bytes, the requestState a client echoes: a
// form, and for a relayed question the answers given before it.
const maxRequestState = 2 * (maxElicitMessage + maxElicitSchema + maxElicitations*maxAnswerBytes)

// protocolMRTR is the first revision that asks with input_required results
// rather than server-to-client requests.
const protocolMRTR = "2026-07-28"

// call runs the registry's tool, with answer as CallInfo.Answer when the
// client answered a question of the tool.
func (a *Adapter) call(ctx context.Context, name string, arguments, answer json.RawMessage) toolreg.Output {
	if answer != nil {
		ctx = toolreg.WithCallInfo(ctx, func(c toolreg.ToolCall) toolreg.CallInfo {
			return toolreg.CallInfo{ID: c.ID, Answer: answer}
		})
	}
	return a.reg.Call(ctx, name, arguments)
}

// run runs one served call to its result, asking the client each
// question the tool asks.
func (a *Adapter) run(ctx context.Context, req *mcp.CallToolRequest, name, mcpName string, arguments json.RawMessage, shape output) *mcp.CallToolResult {
	var answer json.RawMessage
	if p := req.Params; p != nil && (p.RequestState != "" || len(p.InputResponses) > 0) {
		ans, res := a.answered(mcpName, arguments, p)
		if res != nil {
			return res
		}
		answer = ans
	}
	for asked := 0; ; asked++ {
		out := a.call(ctx, name, arguments, answer)
		var ie *toolreg.InterruptError
		if !errors.As(out.Err, &ie) {
			return shape.result(mcpName, out)
		}
		f, err := formOf(ie.Question)
		// A question an imported server asked (a tool of an Importer served
		// again): the client's reply, decline and cancel included, goes
		// back to that server.
		relay, _ := ElicitationOf(ie.Question)
		if err != nil {
			return refusal("tool %q asks a question this MCP client cannot be asked: %v; the call did not complete", mcpName, err)
		}
		ss := req.Session
		if !canElicit(ss) {
			return refusal("tool %q asks the user a question, and this MCP client does not support elicitation, so it cannot be asked; the call did not complete", mcpName)
		}
		if multiRoundTrip(ss) {
			return a.inputRequired(mcpName, arguments, f, relay)
		}
		if asked == maxElicitations {
			return refusal("tool %q asked more than %d questions in one call; the call did not complete", mcpName, maxElicitations)
		}
		ans, res := askLive(ctx, ss, mcpName, f, relay)
		if res != nil {
			return res
		}
		answer = ans
	}
}

// multiRoundTrip reports whether the client asks with input_required
// results (2026-07-28 and later), as the SDK decides it.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= protocolMRTR
}

// canElicit reports whether the client said it can be asked, or said
// nothing that tells.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true // askLive says why not
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation != nil
}

// refusal is the error result of a call whose question could not be
// asked or answered: the model reads why.
func refusal(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// askLive asks the client over its session (elicitation/create) and
// waits, up to askWait, for the answer.
func askLive(ctx context.Context, ss *mcp.ServerSession, mcpName string, f *form, relay *Elicitation) (json.RawMessage, *mcp.CallToolResult) {
	if ss == nil {
		return nil, refusal("tool %q asks a question, and this call has no MCP session to ask it over; the call did not complete", mcpName)
	}
	ctx, cancel := context.WithTimeout(ctx, askWait)
	defer cancel()
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: f.message, RequestedSchema: f.schema})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, refusal("tool %q asked a question that was not answered in time; the call did not complete", mcpName)
	case err != nil:
		// The SDK checks the answer against the schema itself: its
		// error may be the client's answer refused, not the client's.
		return nil, refusal("tool %q asked a question, and the MCP client could not be asked or its answer was refused (%s); the call did not complete", mcpName, peerText(err.Error(), 300))
	}
	return reply(mcpName, f, relay, res)
}

// reply maps the client's answer: accept to the answer the tool reads,
// decline and cancel to a result the model reads; for a question relayed
// from an imported server, each to the answer that server hears.
func reply(mcpName string, f *form, relay *Elicitation, res *mcp.ElicitResult) (json.RawMessage, *mcp.CallToolResult) {
	if res == nil {
		return nil, refusal("tool %q asked a question and the MCP client gave no answer; the call did not complete", mcpName)
	}
	switch res.Action {
	case "accept":
		ans, err := f.content(res.Content)
		if err != nil {
			return nil, refusal("tool %q asked a question and the answer was refused: %v; the call did not complete", mcpName, err)
		}
		if relay != nil {
			return relayed(relay.answer(&mcp.ElicitResult{Action: "accept", Content: res.Content}))
		}
		return ans, nil
	case "decline", "cancel":
		if relay != nil {
			return relayed(relay.answer(&mcp.ElicitResult{Action: res.Action}))
		}
	}
	switch res.Action {
	case "decline":
		return nil, refusal("the user declined to answer the question of tool %q; the call did not complete", mcpName)
	case "cancel":
		return nil, refusal("the user dismissed the question of tool %q without answering; the call did not complete", mcpName)
	}
	return nil, refusal("tool %q asked a question and the MCP client answered with action %q, not accept, decline or cancel; the call did not complete", mcpName, peerText(res.Action, 50))
}

func relayed(a ElicitationAnswer) (json.RawMessage, *mcp.CallToolResult) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, refusal("the answer could not be passed on")
	}
	return b, nil
}

// askState is what a requestState holds: the form asked, of which call,
// and when. The client echoes it; the MAC makes it the server's. It holds
// the form, not the tool's question, which may hold more than the client
// was shown.
type askState struct {
	Tool     string          `json:"t"`
	Args     []byte          `json:"a"` // SHA-256 of the arguments
	Message  string          `json:"m"`
	Schema   json.RawMessage `json:"s"`
	Fallback bool            `json:"f,omitempty"`
	Relay    *Elicitation    `json:"e,omitempty"` // the imported server's question, with the answers given before
	Asked    int64           `json:"at"`          // Unix seconds
}

// inputRequired is the result that asks a client of 2026-07-28 or later
// the question: the client answers by calling again with the same
// arguments, the answer and the requestState.
func (a *Adapter) inputRequired(mcpName string, arguments json.RawMessage, f *form, relay *Elicitation) *mcp.CallToolResult {
	sum := sha256.Sum256(arguments)
	payload, err := json.Marshal(askState{Tool: mcpName, Args: sum[:], Message: f.message, Schema: f.schema, Fallback: f.fallback, Relay: relay, Asked: time.Now().Unix()})
	if err != nil {
		return refusal("tool %q asks a question that could not be sent", mcpName)
	}
	state := base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(a.mac(payload))
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputID: &mcp.ElicitParams{Mode: "form", Message: f.message, RequestedSchema: f.schema}},
		RequestState:  state,
	}
}

func (a *Adapter) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, a.key[:])
	m.Write(payload)
	return m.Sum(nil)
}

// answered reads the answer of a call made again after an input_required
// result: the requestState must be one this adapter gave for this tool and
// these arguments, within askTTL, and the answer valid under its schema.
// Otherwise the result says what was wrong, and the tool is not called.
func (a *Adapter) answered(mcpName string, arguments json.RawMessage, p *mcp.CallToolParamsRaw) (json.RawMessage, *mcp.CallToolResult) {
	bad := func(why string) (json.RawMessage, *mcp.CallToolResult) {
		return nil, refusal("the answer to a question of tool %q was refused: %s; call the tool again without inputResponses and requestState to be asked again", mcpName, why)
	}
	if len(p.RequestState) > maxRequestState {
		return bad(fmt.Sprintf("the requestState is %d bytes long, more than this server ever sends", len(p.RequestState)))
	}
	enc, sig, ok := strings.Cut(p.RequestState, ".")
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || err2 != nil || !hmac.Equal(mac, a.mac(payload)) {
		return bad("the requestState is not one this server gave (it may have restarted)")
	}
	var st askState
	if err := json.Unmarshal(payload, &st); err != nil {
		return bad("the requestState is not one this server gave")
	}
	sum := sha256.Sum256(arguments)
	if st.Tool != mcpName || !hmac.Equal(st.Args, sum[:]) {
		return bad("the requestState was given for another call; answer with the arguments of the call that was asked")
	}
	if time.Since(time.Unix(st.Asked, 0)) > askTTL {
		return bad(fmt.Sprintf("the question was asked more than %v ago", askTTL))
	}
	f, err := newForm(st.Message, st.Schema)
	if err != nil {
		return bad(err.Error())
	}
	f.fallback = st.Fallback
	if len(p.InputResponses) != 1 {
		return bad(fmt.Sprintf("%d inputResponses came; one, %q, was asked for", len(p.InputResponses), inputID))
	}
	res, ok := p.InputResponses[inputID].(*mcp.ElicitResult)
	if !ok {
		return bad(fmt.Sprintf("inputResponses holds no elicitation result under %q", inputID))
	}
	return reply(mcpName, f, st.Relay, res)
}
