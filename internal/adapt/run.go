package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Run is one run of the loop.
type Run struct {
	Registry *toolreg.Registry
	Model    agent.Model
	Options  agent.Options
	State    *agent.State // the run's state; a paused one when resuming

	// Exec, when set, runs a turn's calls, each with its CallInfo, and
	// returns their outputs in order (a durable workflow runs each as an
	// activity); nil runs them through the registry at once.
	Exec func(ctx context.Context, calls []toolreg.ToolCall, infos []toolreg.CallInfo) []toolreg.Output
	// Wait, when set, is called when calls wait for the host: it returns
	// once the State's pending calls are decided (a durable workflow waits
	// for a signal, for days if need be), and the run goes on. Without it
	// the run returns agent.ErrPaused.
	Wait func(ctx context.Context, st *agent.State) error
}

// Do runs the loop until the model answers, the run pauses (agent.ErrPaused)
// or it ends with an error. The State is brought up to date whatever the
// outcome.
func (r *Run) Do(ctx context.Context) (err error) {
	if err := r.admit(); err != nil {
		return err
	}
	defer r.seal(&err)
	st := r.State
	info := r.Model.Info()
	if st.Provider != "" && st.Provider != info.Provider {
		return fmt.Errorf("agent: a state of provider %q cannot resume on %q", st.Provider, info.Provider)
	}
	st.Provider = info.Provider
	if st.Retries == nil {
		st.Retries = map[string]int{}
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
		if err := r.settle(ctx, st.Steps, turn, nil); err != nil {
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
		step := agent.NewStep(st.Steps, r.Registry)
		if r.Options.PrepareStep != nil {
			if err := r.Options.PrepareStep(ctx, step); err != nil {
				return err
			}
		}
		if err := step.Check(); err != nil {
			return err
		}
		early := r.starter(ctx, st.Steps)
		turn, err := r.ask(ctx, info, step, early)
		if err != nil || turn.Again || len(turn.Calls) == 0 {
			early.stop() // a call started before the model failed is cancelled
			if err != nil || !turn.Again {
				return err
			}
			continue
		}
		calls := make([]agent.Call, len(turn.Calls))
		for i, c := range turn.Calls {
			if !early.readied(i) {
				r.emit(agent.Event{Kind: agent.CallReady, Step: st.Steps, Call: c})
			}
			calls[i] = agent.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Index: i, Status: agent.StatusApproved}
			if r.Registry.NeedsApproval(c) {
				calls[i].Status = agent.StatusApproval
			}
		}
		if err := r.settle(ctx, st.Steps, calls, early); err != nil {
			return err
		}
	}
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

// ask makes the step's model call, seen by the Observer.
func (r *Run) ask(ctx context.Context, info agent.RunInfo, step *agent.Step, early *starter) (agent.Reply, error) {
	obs := r.Options.Observer
	if obs == nil {
		return r.Model.Ask(ctx, step, r.emit, early.start)
	}
	call := agent.ModelCall{RunInfo: info, Step: step.Number}
	mctx := obs.ModelCallStarted(ctx, call)
	reply, err := r.Model.Ask(mctx, step, r.emit, early.start)
	obs.ModelCallEnded(mctx, call, reply.Usage, err)
	return reply, err
}

// finish runs the calls of a turn that may run (the approved, the answered;
// early holds those already started), pauses the run (agent.ErrPaused) if
// calls wait for the host, and otherwise sends the results back. An error
// ends the run.
func (r *Run) finish(ctx context.Context, step int, calls []agent.Call, early *starter) error {
	st := r.State
	outs := make([]*toolreg.Output, len(calls))
	var run []int
	for i, c := range calls {
		switch c.Status {
		case agent.StatusDone:
			out := c.Result.Output()
			outs[i] = &out
		case agent.StatusRejected:
			reason := c.Reason
			if reason == "" {
				reason = "no reason given"
			}
			out := toolreg.Output{Text: fmt.Sprintf("the host did not allow this call of %q: %s", c.Name, reason), IsError: true, Err: errRejected}
			outs[i] = &out
		case agent.StatusApproved, agent.StatusAnswered:
			run = append(run, i)
		}
	}
	if early != nil {
		started := early.wait()
		for _, i := range run {
			if out, ok := started[i]; ok && calls[i].Status == agent.StatusApproved {
				outs[i] = &out
			}
		}
	}
	var toRun []toolreg.ToolCall
	var toRunAt []int
	for _, i := range run {
		if outs[i] == nil {
			toRun = append(toRun, calls[i].ToolCall())
			toRunAt = append(toRunAt, i)
		}
	}
	if len(toRun) > 0 {
		results := r.exec(ctx, step, calls, toRun)
		for j, i := range toRunAt {
			outs[i] = &results[j]
		}
	}

	// Interrupts and approvals still to give pause the run, unless a tool
	// stopped it.
	var stop []error
	paused := false
	for i := range calls {
		c := &calls[i]
		if out := outs[i]; out != nil {
			var ie *toolreg.InterruptError
			if errors.As(out.Err, &ie) {
				c.Status, c.Question, c.Answer, outs[i] = agent.StatusInterrupted, ie.Question, nil, nil
				paused = true
				continue
			}
			c.Status, c.Result = agent.StatusDone, agent.ResultOf(*out)
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

// countRetries counts the calls a model got wrong, and ends the run past
// the options' bounds.
func (r *Run) countRetries(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	st := r.State
	for i, c := range calls {
		switch out := outs[i]; {
		case errors.Is(out.Err, toolreg.ErrInvalidArguments) || errors.Is(out.Err, toolreg.ErrRetry):
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
func (r *Run) exec(ctx context.Context, step int, turn []agent.Call, calls []toolreg.ToolCall) []toolreg.Output {
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

// callInfo tells each call of the turn its CallInfo.
func (r *Run) callInfo(step int, calls []agent.Call) func(toolreg.ToolCall) toolreg.CallInfo {
	answers := map[string]json.RawMessage{}
	for _, c := range calls {
		if c.Status == agent.StatusAnswered {
			answers[c.Key()] = c.Answer
		}
	}
	keys := map[string]string{} // by id, for calls that have one
	retries := map[string]int{}
	for name, n := range r.State.Retries {
		retries[name] = n
	}
	for _, c := range calls {
		keys[c.ID] = c.Key()
	}
	return func(call toolreg.ToolCall) toolreg.CallInfo {
		info := toolreg.CallInfo{Step: step, Provider: r.State.Provider, Attempt: retries[call.Name] + 1}
		if call.ID != "" {
			info.Answer = answers[keys[call.ID]]
		} else {
			for _, c := range calls { // no id: match by name and arguments
				if c.ID == "" && c.Name == call.Name && string(c.Arguments) == string(call.Arguments) {
					info.Answer = answers[c.Key()]
				}
			}
		}
		return info
	}
}

func (r *Run) emit(e agent.Event) {
	if r.Options.OnEvent != nil {
		r.Options.OnEvent(e)
	}
}

// starter runs the calls a streaming provider hands over while the model
// is still writing: those that need no approval start at once.
type starter struct {
	r      *Run
	ctx    context.Context
	cancel context.CancelFunc
	step   int
	mu     sync.Mutex
	wg     sync.WaitGroup
	ready  map[int]bool
	outs   map[int]toolreg.Output
}

func (r *Run) starter(ctx context.Context, step int) *starter {
	ctx, cancel := context.WithCancel(ctx)
	return &starter{r: r, ctx: ctx, cancel: cancel, step: step, ready: map[int]bool{}, outs: map[int]toolreg.Output{}}
}

func (s *starter) readied(i int) bool { return s.ready[i] }

func (s *starter) start(i int, call toolreg.ToolCall) {
	s.ready[i] = true
	s.r.emit(agent.Event{Kind: agent.CallReady, Step: s.step, Call: call})
	if s.r.Registry.NeedsApproval(call) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		calls := []agent.Call{{ID: call.ID, Name: call.Name, Arguments: call.Arguments, Index: i}}
		out := s.r.exec(s.ctx, s.step, calls, []toolreg.ToolCall{call})[0]
		s.mu.Lock()
		s.outs[i] = out
		s.mu.Unlock()
	}()
}

// stop cancels the calls started early and waits for them to end, which
// the registry makes prompt.
func (s *starter) stop() {
	s.cancel()
	s.wg.Wait()
}

// wait returns the outputs of the calls started early, by index, once they
// are over.
func (s *starter) wait() map[int]toolreg.Output {
	s.wg.Wait()
	s.cancel()
	return s.outs
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
