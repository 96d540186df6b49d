package adapt

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/slot"
	"github.com/toolreg/toolreg/internal/suggest"
)

// Run is one run of the loop.
type Run struct {
	Registry *toolreg.Registry
	Model    agent.Model
	Options  agent.Options
	State    *agent.State // the run's state; a paused one when resuming

	// Exec, when set, runs calls of a turn, each with its CallInfo, and
	// returns their outputs in order (a durable workflow runs each as an
	// activity); nil runs them through the registry at once. A streaming
	// model's early starts call it once per call, from up to the
	// registry's MaxConcurrency goroutines at once.
	Exec func(ctx context.Context, calls []toolreg.ToolCall, infos []toolreg.CallInfo) []toolreg.Output
	// NewID, when set, makes up the id of a run that has none (a durable
	// workflow's must be deterministic); by default 128 random bits.
	NewID func() string
	// Wait, when set, is called when calls wait for the host: it returns
	// once the State's pending calls are decided (a durable workflow waits
	// for a signal, for days if need be), and the run goes on. Without it
	// the run returns agent.ErrPaused.
	Wait func(ctx context.Context, st *agent.State) error

	order []string    // the names the run declared so far, in order (declare)
	step  *agent.Step // the step being asked or run
	mu    sync.Mutex  // guards State.Loaded while a turn's calls run
}

// Do runs the loop until the model answers, the run pauses (agent.ErrPaused)
// or it ends with an error. The State is brought up to date whatever the
// outcome.
//
// Every call the run executes, streamed or not, first or resumed, passes
// one gate, in this order: the step offers its tool (and the tool choice
// allows it), its arguments validate when it needs approval (so that
// nobody approves a call the tool refuses), the host approves it if it
// must, it has not run before in its turn (its id is not in State.Ran),
// and it gets one of the registry's concurrency slots and its tool's
// group's (toolreg.WithGroup; early starts included). A refusal is a result the model reads.
func (r *Run) Do(ctx context.Context) (err error) {
	if err := r.admitState(); err != nil {
		return err
	}
	if err := r.admitLoaded(); err != nil {
		return err
	}
	defer r.seal(&err)
	st := r.State
	info := r.Model.Info()
	st.Provider = info.Provider // admitState refused another provider's State
	if st.Retries == nil {
		st.Retries = map[string]int{}
	}
	if st.RunID == "" {
		st.RunID = r.newID()
	}
	if obs := r.Options.Observer; obs != nil {
		ctx = obs.RunStarted(ctx, info)
		defer func() { obs.RunEnded(ctx, info, err) }()
	}
	defer func() {
		if serr := r.Model.Save(st); serr != nil && err == nil {
			err = fmt.Errorf("agent: saving the run's state: %w", serr)
		}
	}()
	if len(st.Turn) > 0 {
		if pending := st.Pending(); len(pending) > 0 {
			return fmt.Errorf("%w: %s (%s)", agent.ErrUndecided, pending[0].Key(), pending[0].Status)
		}
		turn := st.Turn
		st.Turn = nil
		early, err := r.reask(ctx, st.Steps, turn)
		if err != nil {
			return err
		}
		if err := r.settle(ctx, st.Steps, turn, early); err != nil {
			return err
		}
	}
	maxSteps := r.Options.MaxSteps
	if maxSteps <= 0 {
		maxSteps = agent.DefaultMaxSteps
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if st.Steps >= maxSteps {
			return fmt.Errorf("%w (%d): the model has not finished", toolreg.ErrMaxSteps, maxSteps)
		}
		st.Steps++
		st.Ran = nil // the ids of this turn's calls, once they run
		step := agent.NewDeclaredStep(st.Steps, r.Registry, r.declare())
		r.step = step
		if r.Options.PrepareStep != nil {
			if err := r.Options.PrepareStep(ctx, step); err != nil {
				return err
			}
		}
		if err := step.Check(); err != nil {
			return err
		}
		early := r.starter(ctx, step)
		turn, err := r.ask(ctx, info, step, early)
		if err == nil {
			err = early.agrees(turn.Calls)
		}
		if err != nil || turn.Again || len(turn.Calls) == 0 {
			// A call started before the model failed is cancelled; one
			// that ran is recorded, as no transcript will hold it.
			if ran := r.unsent(early.stop()); err != nil && ran != "" {
				err = fmt.Errorf("%w; calls that had already started, in State.Unsent: %s", err, ran)
			}
			if err != nil || !turn.Again {
				return err
			}
			continue
		}
		if err := r.settle(ctx, st.Steps, r.admit(ctx, step, turn.Calls, early), early); err != nil {
			return err
		}
	}
}

// admit passes the calls of a fresh turn through the first gates: a call
// of a tool the step does not offer, a repeated call id, or a call that
// needs approval with arguments its tool refuses gets its result (the
// refusal) at once; a call that needs approval waits for the host; the
// others may run.
func (r *Run) admit(ctx context.Context, step *agent.Step, turn []toolreg.ToolCall, early *starter) []agent.Call {
	calls := make([]agent.Call, len(turn))
	var seen map[string]bool // the ids admitted so far; made on first use
	for i, c := range turn {
		if !early.readied(i) {
			r.emit(agent.Event{Kind: agent.CallReady, Step: step.Number, Call: c})
		}
		calls[i] = agent.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Index: i, Status: agent.StatusApproved}
		r.gate(ctx, step, &calls[i], &seen, early)
	}
	return calls
}

// gate passes one call through the first gates, c approved to run unless
// they say otherwise: a refusal goes to early as the call's result, and a
// call that needs approval waits for the host (StatusApproval). seen
// holds the ids of the turn's calls gated so far.
func (r *Run) gate(ctx context.Context, step *agent.Step, c *agent.Call, seen *map[string]bool, early *starter) {
	id := r.callID(step.Number, *c)
	if early.started(c.Index) { // it passed the gate as it was handed over, and ran
		put(seen, id, true)
		return
	}
	call := c.ToolCall()
	if out, refused := r.refuse(step, call, id, *seen, r.State.Ran); refused {
		early.refused(c.Index, r.tell(ctx, step.Number, *c, out))
		return
	}
	put(seen, id, true)
	if r.Registry.NeedsApproval(ctx, call) {
		if out, ok := r.Registry.Check(call); !ok {
			early.refused(c.Index, r.tell(ctx, step.Number, *c, out))
			return
		}
		c.Status = agent.StatusApproval
	}
}

// reask passes the calls of a checkpointed turn that had not run
// (StatusAsked) through the gates a new turn's calls pass, as the model
// asked for them: the store may have changed them, and a call that needs
// approval waits for the host again. It returns the refusals, for finish;
// nil when no call was asked.
func (r *Run) reask(ctx context.Context, n int, calls []agent.Call) (*starter, error) {
	var early *starter
	var seen map[string]bool
	for i := range calls {
		c := &calls[i]
		if c.Status != agent.StatusAsked {
			continue
		}
		if early == nil {
			step, err := r.stepFor(ctx, n)
			if err != nil {
				return nil, err
			}
			early = r.starter(ctx, step)
		}
		c.Status = agent.StatusApproved
		r.gate(ctx, early.step, c, &seen, early)
	}
	return early, nil
}

// tell passes a refused call through the registry's middleware, which
// records it with the Output the model reads. Not in a run whose calls
// Exec runs (a durable workflow): its middleware runs with the calls, in
// activities, and would record a refusal again on every replay.
func (r *Run) tell(ctx context.Context, step int, c agent.Call, out toolreg.Output) toolreg.Output {
	if r.Exec != nil {
		return out
	}
	call := c.ToolCall()
	call.ID = r.callID(step, c)
	return r.Registry.Refuse(toolreg.WithCallInfo(ctx, r.callInfo(step, []agent.Call{c})), call, out)
}

// refuse reports the Output of a call that may not run: its tool is not
// offered in the step, or its id ran already in the turn (seen holds the
// ids of the turn's calls admitted so far, ran the State's Ran).
func (r *Run) refuse(step *agent.Step, c toolreg.ToolCall, id string, seen map[string]bool, ran []string) (toolreg.Output, bool) {
	if cr, ok := r.Model.(CallRefuser); ok {
		if out, refused := cr.RefuseCall(step, c); refused {
			return out, true
		}
	}
	if !step.Allows(c.Name) {
		// The tool search is the loop's, known whether or not the step
		// declares it: not offered, like a registry tool hidden.
		if _, ok := r.Registry.Lookup(c.Name); !ok && c.Name != agent.SearchToolName {
			// An unknown tool: the registry's words, naming only what the
			// step allows.
			text, shown := suggest.UnknownTool(c.Name, step.Allowed())
			return toolreg.Output{Text: text, IsError: true, Err: fmt.Errorf("%w: %s", toolreg.ErrUnknownTool, shown)}, true
		}
		return notOffered(step, c.Name), true
	}
	if seen[id] || slices.Contains(ran, id) {
		return repeated(c.Name, id), true
	}
	return toolreg.Output{}, false
}

// CallRefuser is a Model whose provider can send a call in a form the
// request did not declare (a function under another namespace than its
// own), which the model maps to a name no tool has: RefuseCall refuses
// such a call with words only the model can give (where the tool is), its
// Err wrapping agent.ErrNotOffered; any other call it leaves to the loop.
type CallRefuser interface {
	RefuseCall(step *agent.Step, c toolreg.ToolCall) (toolreg.Output, bool)
}

func notOffered(step *agent.Step, name string) toolreg.Output {
	text := fmt.Sprintf("tool %q is not available at this point", name)
	// The name is right, only not offered: a few tools are listed in the
	// step's order, many by the nearest few and a count.
	if allowed := step.Allowed(); len(allowed) > 0 && len(allowed) <= suggest.ListAll {
		text += "; the tools you may call now: " + strings.Join(allowed, ", ")
	} else if len(allowed) > 0 {
		text += "; " + suggest.ListTools(name, allowed, "the tools you may call now", "tools you may call now")
	} else {
		text += "; call no tool now, answer with text"
	}
	return toolreg.Output{Text: text, IsError: true, Err: fmt.Errorf("%w: step %d: tool %q", agent.ErrNotOffered, step.Number, name)}
}

func repeated(name, id string) toolreg.Output {
	return toolreg.Output{
		Text:    fmt.Sprintf("this call of %q (id %q) has already run and its result was given; it does not run twice", name, id),
		IsError: true,
		Err:     fmt.Errorf("%w: tool %q, call %q", agent.ErrRepeatedCall, name, id),
	}
}

// callID is the id a call runs with: the provider's, or one made up from
// the run's id, the step and the call's place in its turn, which stays the
// same across a pause.
func (r *Run) callID(step int, c agent.Call) string {
	if c.ID != "" {
		return c.ID
	}
	return r.State.RunID + "." + strconv.Itoa(step) + "." + strconv.Itoa(c.Index)
}

// newID makes up a run's id: NewID's, or 128 random bits.
func (r *Run) newID() string {
	if r.NewID != nil {
		return r.NewID()
	}
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// unsent records the calls started early of a turn the model did not
// complete, and names them for the run's error ("" for none).
func (r *Run) unsent(ran []agent.Call) string {
	var names []string
	for _, c := range ran {
		r.State.Unsent = append(r.State.Unsent, c)
		r.State.Ran = append(r.State.Ran, r.callID(r.State.Steps, c))
		r.emit(agent.Event{Kind: agent.CallResult, Step: r.State.Steps, Call: c.ToolCall(), Output: c.Result.Output()})
		names = append(names, fmt.Sprintf("%s (%s)", c.Name, c.Key()))
	}
	return strings.Join(names, ", ")
}

// settle finishes a turn and, while it pauses and the run has a Wait,
// waits for the host's decisions and finishes it again.
func (r *Run) settle(ctx context.Context, step int, calls []agent.Call, early *starter) error {
	err := r.finish(ctx, step, calls, early)
	for r.Wait != nil && errors.Is(err, agent.ErrPaused) {
		if err := r.Wait(ctx, r.State); err != nil {
			return err
		}
		if pending := r.State.Pending(); len(pending) > 0 {
			return fmt.Errorf("%w: %s (%s)", agent.ErrUndecided, pending[0].Key(), pending[0].Status)
		}
		turn := r.State.Turn
		r.State.Turn = nil
		err = r.finish(ctx, step, turn, nil)
	}
	return err
}

// ask makes the step's model call, seen by the Observer. The stream it
// reads is watched by early: a stream that breaks its rules is ended, and
// the error says why.
func (r *Run) ask(ctx context.Context, info agent.RunInfo, step *agent.Step, early *starter) (agent.Reply, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	early.cancelAsk = cancel
	askModel := func(ctx context.Context) (agent.Reply, error) {
		reply, err := r.Model.Ask(ctx, step, early.emit, early.start)
		early.close() // a hand-over after the response is not heard
		if broken := early.brokenErr(); broken != nil {
			err = broken
		}
		return reply, err
	}
	obs := r.Options.Observer
	if obs == nil {
		return askModel(ctx)
	}
	call := agent.ModelCall{RunInfo: info, Step: step.Number}
	mctx := obs.ModelCallStarted(ctx, call)
	reply, err := askModel(mctx)
	obs.ModelCallEnded(mctx, call, reply.Usage, err)
	return reply, err
}

// finish runs the calls of a turn that may run (the approved, the answered;
// early holds those already started, and the refusals of the turn's
// gates), pauses the run (agent.ErrPaused) if calls wait for the host, and
// otherwise sends the results back. An error ends the run.
func (r *Run) finish(ctx context.Context, step int, calls []agent.Call, early *starter) error {
	st := r.State
	offer, err := r.stepFor(ctx, step)
	if err != nil {
		return err
	}
	outs := make([]*toolreg.Output, len(calls)) // nil: the call has no result (yet)
	given := make([]toolreg.Output, len(calls)) // what outs point at, but a run's results
	give := func(i int, out toolreg.Output) {
		given[i] = out
		outs[i] = &given[i]
	}
	var run []int
	for i, c := range calls {
		switch c.Status {
		case agent.StatusDone:
			give(i, c.Result.Output()) // nil-safe: a lost result reads as one
		case agent.StatusRejected:
			reason := c.Reason
			if reason == "" {
				reason = "no reason given"
			}
			give(i, toolreg.Output{Text: fmt.Sprintf("the host did not allow this call of %q: %s", c.Name, reason), IsError: true, Err: errRejected})
		case agent.StatusApproved, agent.StatusAnswered:
			run = append(run, i)
		}
	}
	var started map[int]toolreg.Output
	if early != nil {
		started = early.wait()
	}
	var toRun []toolreg.ToolCall
	var toRunAt []int
	for _, i := range run {
		if out, ok := started[i]; ok && calls[i].Status == agent.StatusApproved {
			give(i, out)
			continue
		}
		id := r.callID(step, calls[i])
		call := calls[i].ToolCall()
		// A resumed turn's calls pass the step's gate again: the State
		// may have been edited, or the host's PrepareStep changed.
		if out, refused := r.refuse(offer, call, id, nil, st.Ran); refused {
			give(i, r.tell(ctx, step, calls[i], out))
			continue
		}
		call.ID = id
		toRun = append(toRun, call)
		toRunAt = append(toRunAt, i)
	}
	// The turn is saved as the model asked for it, then as its calls
	// complete (Options.Checkpoint).
	cp, err := r.checkpoint(ctx, step, calls, outs)
	if err != nil {
		return err
	}
	if len(toRun) > 0 && cp != nil && !r.Options.CheckpointTurns {
		if err := cp.run(toRun, toRunAt); err != nil {
			return err
		}
	} else if len(toRun) > 0 {
		results := r.exec(ctx, step, calls, toRun)
		for j, i := range toRunAt {
			outs[i] = &results[j]
		}
		if err := cp.save(); err != nil {
			return err
		}
	}

	// Interrupts and approvals still to give pause the run, unless a tool
	// stopped it.
	var stop []error
	paused := false
	for i := range calls {
		c := &calls[i]
		if out := outs[i]; out != nil {
			if ie := interrupt(out.Err); ie != nil {
				c.Status, c.Question, c.Answer, outs[i] = agent.StatusInterrupted, ie.Question, nil, nil
				paused = true
				continue
			}
			c.Status, c.Result = agent.StatusDone, agent.ResultOf(*out)
			if id := r.callID(step, *c); !slices.Contains(st.Ran, id) {
				st.Ran = append(st.Ran, id)
			}
			if errors.Is(out.Err, toolreg.ErrStopRun) {
				stop = append(stop, out.Err)
			}
			continue
		}
		paused = paused || c.Status == agent.StatusApproval
	}
	if paused && len(stop) == 0 {
		st.Turn = calls
		return agent.ErrPaused
	}

	tcalls := make([]toolreg.ToolCall, len(calls))
	touts := make([]toolreg.Output, len(calls))
	for i, c := range calls {
		tcalls[i] = c.ToolCall()
		if outs[i] == nil { // waiting, but a tool stopped the run
			touts[i] = toolreg.Output{Text: fmt.Sprintf("the call of %q did not run: the run was stopped", c.Name), IsError: true, Err: toolreg.ErrStopRun}
			continue
		}
		touts[i] = *outs[i]
	}
	if err := r.Model.Answer(tcalls, touts); err != nil {
		return err
	}
	for i, c := range tcalls {
		r.emit(agent.Event{Kind: agent.CallResult, Step: step, Call: c, Output: touts[i]})
	}
	if len(stop) > 0 {
		return errors.Join(stop...)
	}
	return r.countRetries(tcalls, touts)
}

var errRejected = errors.New("the host rejected the call")

// interrupt is the question of a call whose tool interrupted it (err
// matches *toolreg.InterruptError), or nil; a call that did not fail asks
// for nothing, and costs no errors.As.
func interrupt(err error) *toolreg.InterruptError {
	if err == nil {
		return nil
	}
	var ie *toolreg.InterruptError
	if errors.As(err, &ie) {
		return ie
	}
	return nil
}

// countRetries counts the calls a model got wrong, and ends the run past
// the options' bounds.
func (r *Run) countRetries(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	st := r.State
	for i, c := range calls {
		switch out := outs[i]; {
		case errors.Is(out.Err, toolreg.ErrInvalidArguments) || errors.Is(out.Err, toolreg.ErrRetry) || errors.Is(out.Err, agent.ErrNotOffered):
			st.Retries[c.Name]++
			st.RunRetries++
		case !out.IsError:
			delete(st.Retries, c.Name)
		}
	}
	perTool, perRun := bound(r.Options.MaxRetries, agent.DefaultMaxRetries), bound(r.Options.MaxRunRetries, agent.DefaultMaxRunRetries)
	for _, c := range calls {
		if n := st.Retries[c.Name]; perTool >= 0 && n > perTool {
			return fmt.Errorf("%w: tool %q failed %d times in a row (the bound is %d)", toolreg.ErrTooManyRetries, c.Name, n, perTool)
		}
	}
	if perRun >= 0 && st.RunRetries > perRun {
		return fmt.Errorf("%w: %d failed calls in the run (the bound is %d)", toolreg.ErrTooManyRetries, st.RunRetries, perRun)
	}
	return nil
}

func bound(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// exec runs calls of the turn calls, with Exec or through the registry.
// Each call carries its id (callID).
func (r *Run) exec(ctx context.Context, step int, turn []agent.Call, calls []toolreg.ToolCall) []toolreg.Output {
	if i := slices.IndexFunc(calls, r.isSearch); i >= 0 {
		// The tool search is the loop's: its calls are answered here, the
		// others run as they would.
		outs := make([]toolreg.Output, len(calls))
		var rest []toolreg.ToolCall
		var at []int
		for i, c := range calls {
			if r.isSearch(c) {
				outs[i] = r.answerSearch(ctx, r.step, c) // finish made it step's (stepFor)
				continue
			}
			rest, at = append(rest, c), append(at, i)
		}
		if len(rest) > 0 {
			for j, out := range r.exec(ctx, step, turn, rest) {
				outs[at[j]] = out
			}
		}
		return outs
	}
	info := r.callInfo(step, turn)
	if r.Exec == nil {
		return r.Registry.CallAll(toolreg.WithCallInfo(ctx, info), calls)
	}
	infos := make([]toolreg.CallInfo, len(calls))
	for i, c := range calls {
		infos[i] = info(c)
		infos[i].ID, infos[i].Tool = c.ID, c.Name
	}
	return r.Exec(ctx, calls, infos)
}

// isSearch reports whether c calls the run's tool search: a registry tool
// of its name is the registry's, in a run that defers nothing or whose
// provider searches natively (ownSearch), where the gate refused a call
// of the name the registry lacks as not offered.
func (r *Run) isSearch(c toolreg.ToolCall) bool {
	if c.Name != agent.SearchToolName || !r.ownSearch() {
		return false
	}
	_, held := r.Registry.Lookup(c.Name)
	return !held
}

// stepFor is the step numbered n: the one being run, or, for a paused
// turn resumed, the step PrepareStep makes for its number again, so that
// the turn's calls and its tool search are held to what the step offered
// when the model was asked.
func (r *Run) stepFor(ctx context.Context, n int) (*agent.Step, error) {
	if r.step != nil && r.step.Number == n {
		return r.step, nil
	}
	step := agent.NewDeclaredStep(n, r.Registry, r.declare())
	if r.Options.PrepareStep != nil {
		if err := r.Options.PrepareStep(ctx, step); err != nil {
			return nil, err
		}
	}
	r.step = step
	return step, nil
}

// callInfo tells each call of the turn its CallInfo; the calls it is asked
// about carry their ids (callID).
func (r *Run) callInfo(step int, calls []agent.Call) func(toolreg.ToolCall) toolreg.CallInfo {
	var answers map[string]json.RawMessage // by call id; nil for none
	for _, c := range calls {
		if c.Status == agent.StatusAnswered {
			if answers == nil {
				answers = map[string]json.RawMessage{}
			}
			answers[r.callID(step, c)] = c.Answer
		}
	}
	var retries map[string]int // as they stand when the calls start
	if len(r.State.Retries) > 0 {
		retries = maps.Clone(r.State.Retries)
	}
	// Copies, not the State: a tool may ask for its Info after the turn,
	// while the next run of the State writes it.
	provider, runID := r.State.Provider, r.State.RunID
	return func(call toolreg.ToolCall) toolreg.CallInfo {
		return toolreg.CallInfo{ID: call.ID, Step: step, Provider: provider, RunID: runID,
			Attempt: retries[call.Name] + 1, Answer: answers[call.ID]}
	}
}

func (r *Run) emit(e agent.Event) {
	if r.Options.OnEvent != nil {
		r.Options.OnEvent(e)
	}
}

// starter watches the stream of one model call and runs the calls a
// streaming provider hands over while the model is still writing: each
// passes the gate (offered, not needing approval, not repeated) and waits
// for one of the registry's concurrency slots. A call starts at most once;
// a stream that hands a call over twice, writes more of it after it was
// complete, or writes arguments past the tool's limit is ended
// (agent.ErrBrokenStream).
//
// Its maps and the early calls' context are made on first use: a model
// that hands no call over (one that does not stream) costs none of them.
type starter struct {
	r         *Run
	step      *agent.Step
	parent    context.Context         // the run's, of which ctx is made
	cancelAsk context.CancelCauseFunc // ends the model call
	slots     slot.Sema               // concurrent early calls; held with mu
	wg        sync.WaitGroup

	mu      sync.Mutex
	ctx     context.Context // the early calls', once one is queued
	cancel  context.CancelFunc
	ready   map[int]toolreg.ToolCall // handed over, by index
	ids     map[string]bool          // ids of the calls started
	whole   map[string]bool          // provider ids of the calls handed over
	written map[string]int           // streamed argument bytes, by call
	queue   []int
	outs    map[int]toolreg.Output // of the calls that ran, and the turn's refusals
	ran     map[int]bool
	queued  map[int]bool // started: passed the gate, queued to run
	closed  bool         // the model call is over: no more hand-overs
	broken  error
	running int       // calls taken from the queue and not over yet
	idle    sync.Cond // on mu: a call is over, or a worker gave its slot back
}

func (r *Run) starter(ctx context.Context, step *agent.Step) *starter {
	s := &starter{r: r, step: step, parent: ctx}
	s.slots.Limit = int32(r.Registry.MaxConcurrency())
	s.idle.L = &s.mu
	return s
}

// put sets m[k] to v, making the map on first use.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// cancelCalls ends the hand-overs and cancels the early calls' context,
// if one was made: no call is queued after it. The caller holds mu.
func (s *starter) cancelCalls() {
	s.closed = true
	if s.cancel != nil {
		s.cancel()
	}
}

// close ends the hand-overs of the model call: a model that hands a call
// over after its response is complete is not heard.
func (s *starter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

// started reports whether the call at index i passed the gate when it was
// handed over and was queued to run.
func (s *starter) started(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued[i]
}

// breakf ends the stream; the caller holds mu.
func (s *starter) breakf(format string, a ...any) {
	if s.broken == nil {
		s.broken = fmt.Errorf("%w: step %d: %s", agent.ErrBrokenStream, s.step.Number, fmt.Sprintf(format, a...))
		if s.cancelAsk != nil {
			s.cancelAsk(s.broken)
		}
	}
}

func (s *starter) brokenErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// emit passes the stream's events on, checking the arguments as they
// come: more of a call already complete, or more than its tool takes,
// ends the stream. Nothing is passed on once the stream is broken.
func (s *starter) emit(e agent.Event) {
	s.mu.Lock()
	if e.Kind == agent.ArgumentsDelta && s.broken == nil {
		key := e.Call.ID
		if key == "" {
			key = "\x00" + e.Call.Name
		}
		put(&s.written, key, s.written[key]+len(e.Delta))
		limit := s.r.Registry.MaxArgumentBytes(e.Call.Name)
		switch {
		case e.Call.ID != "" && s.whole[e.Call.ID]:
			s.breakf("more arguments of call %s (%q) after they were complete", e.Call.ID, e.Call.Name)
		case s.written[key] > limit:
			s.breakf("the arguments of call %s (%q) grew past the tool's limit of %d bytes", e.Call.ID, e.Call.Name, limit)
		}
	}
	broken := s.broken != nil
	s.mu.Unlock()
	if !broken {
		s.r.emit(e)
	}
}

// start is a Model's ready: the call at index i of the turn is complete.
func (s *starter) start(i int, call toolreg.ToolCall) {
	s.mu.Lock()
	if s.broken != nil || s.closed {
		s.mu.Unlock()
		return
	}
	if prev, twice := s.ready[i]; twice {
		s.breakf("call %d (%q) was handed over twice", i, prev.Name)
		s.mu.Unlock()
		return
	}
	put(&s.ready, i, call)
	if call.ID != "" {
		put(&s.whole, call.ID, true)
	}
	s.mu.Unlock()
	s.r.emit(agent.Event{Kind: agent.CallReady, Step: s.step.Number, Call: call})
	// With checkpoints, a call starts once the reply that asks for it is
	// whole and saved: one that ran before would run again after a crash.
	if s.r.Options.Checkpoint != nil || s.r.Registry.NeedsApproval(s.parent, call) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	id := s.r.callID(s.step.Number, agent.Call{ID: call.ID, Index: i})
	if _, refused := s.r.refuse(s.step, call, id, s.ids, nil); refused {
		return // the turn's gate refuses it again, with its words
	}
	put(&s.ids, id, true)
	put(&s.queued, i, true)
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithCancel(s.parent)
		s.ctx = slot.WithHolder(s.ctx, s) // a call waiting for its group gives its slot back
	}
	s.queue = append(s.queue, i)
	if s.slots.TryAcquire() {
		s.wg.Add(1)
		go s.work()
	}
}

// Release gives back the slot of a worker whose call waits for its tool's
// group, and starts another for the calls queued, if any.
func (s *starter) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots.Release()
	if len(s.queue) > 0 && s.ctx.Err() == nil && s.slots.TryAcquire() {
		s.wg.Add(1)
		go s.work()
	}
}

// Reclaim takes a slot again for a call that waited for its group.
func (s *starter) Reclaim(ctx context.Context) {
	if s.slots.Acquire(ctx) != nil {
		s.slots.Force()
	}
}

// work runs queued early calls, one at a time, until none is left or the
// calls are cancelled.
func (s *starter) work() {
	defer s.wg.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) > 0 && s.ctx.Err() == nil {
		s.runNext()
	}
	s.slots.Release()
	s.idle.Broadcast()
}

// runNext runs the first queued call and records its output. The caller
// holds mu, which runNext lets go of while the call runs.
func (s *starter) runNext() {
	i := s.queue[0]
	s.queue = s.queue[1:]
	call, ctx := s.ready[i], s.ctx
	s.running++
	s.mu.Unlock()
	c := agent.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments, Index: i}
	run := call
	run.ID = s.r.callID(s.step.Number, c)
	out := s.r.exec(ctx, s.step.Number, []agent.Call{c}, []toolreg.ToolCall{run})[0]
	s.mu.Lock()
	put(&s.outs, i, out)
	put(&s.ran, i, true)
	s.running--
	s.idle.Broadcast()
}

// readied reports whether the call at index i was handed over.
func (s *starter) readied(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ready[i]
	return ok
}

// refused gives the call at index i the Output of a gate that refused it.
func (s *starter) refused(i int, out toolreg.Output) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ran[i] {
		put(&s.outs, i, out)
	}
}

// agrees checks the model's complete response: no two calls with one id
// (a turn's calls are told apart by it), and each call handed over is
// there, at its index, with the same id, name and arguments, or a call ran
// with what the transcript does not hold.
func (s *starter) agrees(calls []toolreg.ToolCall) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := map[string]int{}
	for i, c := range calls {
		if c.ID == "" {
			continue
		}
		if j, twice := ids[c.ID]; twice {
			s.breakf("calls %d and %d have the same id %q", j, i, c.ID)
			return s.broken
		}
		ids[c.ID] = i
	}
	for i, c := range s.ready {
		switch {
		case i < 0 || i >= len(calls):
			s.breakf("call %d (%q) was handed over, but the response holds %d calls", i, c.Name, len(calls))
		case c.ID != calls[i].ID || c.Name != calls[i].Name || !sameJSON(c.Arguments, calls[i].Arguments):
			s.breakf("call %d was handed over as %q (id %q) with arguments other than the response's %q (id %q)", i, c.Name, c.ID, calls[i].Name, calls[i].ID)
		}
	}
	return s.broken
}

// sameJSON reports whether a and b are the same arguments: the same bytes,
// the same JSON but for white space, or the same values written another
// way. A provider's SDK may hand back the final response's arguments
// re-encoded (Bedrock's document type writes an object's members in sorted
// order and strings with escapes of its own), so only the values must
// agree: numbers as written, members by name. The bytes are equal on the
// usual path; the values are compared only when they are not.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes()) {
		return true
	}
	va, erra := jsonValue(a)
	vb, errb := jsonValue(b)
	return erra == nil && errb == nil && reflect.DeepEqual(va, vb)
}

// jsonValue is raw decoded, its numbers kept as written. JSON that a tool
// would refuse as such (a member named twice, invalid UTF-8: RFC 7493) is
// an error, so that it never agrees with another writing of its values.
func jsonValue(raw json.RawMessage) (any, error) {
	if !jsontext.Value(raw).IsValid() {
		return nil, errors.New("not I-JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

// stop cancels the calls started early and waits for them to end: at once
// for tools that honour their context, and for any tool under a registry
// that bounds its calls (toolreg.WithIsolatedCalls, a timeout); a tool that
// ignores its context otherwise holds the run until it returns, as it would
// hold any caller. It returns those that ran, done, in order.
func (s *starter) stop() []agent.Call {
	s.mu.Lock()
	s.cancelCalls()
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var ran []agent.Call
	for i := range s.ready {
		if s.ran[i] {
			c := s.ready[i]
			ran = append(ran, agent.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Index: i, Status: agent.StatusDone, Result: agent.ResultOf(s.outs[i])})
		}
	}
	slices.SortFunc(ran, func(a, b agent.Call) int { return a.Index - b.Index })
	return ran
}

// wait returns the outputs of the calls started early, by index, once they
// are over, and the refusals of the turn's gates. The starter is done:
// nothing writes the map after.
//
// A call still queued when the model's response is over is run here, on
// the loop's goroutine, when a slot is free: a worker started for it may
// not have been scheduled yet, and the loop would only wait for it. A
// worker that finds the queue empty only gives its slot back, under mu,
// so wait waits for the calls that run, not for the workers.
func (s *starter) wait() map[int]toolreg.Output {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		queued := len(s.queue) > 0 && s.ctx.Err() == nil
		switch {
		case queued && s.slots.TryAcquire():
			s.runNext()
			s.slots.Release()
		case !queued && s.running == 0:
			s.cancelCalls()
			return s.outs
		default:
			s.idle.Wait()
		}
	}
}

// Hooks returns emit and ready, or funcs that do nothing for those that
// are nil: a host may call a Model's Ask without either.
func Hooks(emit func(agent.Event), ready func(int, toolreg.ToolCall)) (func(agent.Event), func(int, toolreg.ToolCall)) {
	if emit == nil {
		emit = func(agent.Event) {}
	}
	if ready == nil {
		ready = func(int, toolreg.ToolCall) {}
	}
	return emit, ready
}
