package tooltemporal

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolreg/toolreg/agent"
)

// countingObserver records what an Observer is told, a line a call.
type countingObserver struct {
	mu    sync.Mutex
	calls []string
}

func (o *countingObserver) add(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf(format, args...))
}

func (o *countingObserver) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.calls...)
}

func (o *countingObserver) RunStarted(ctx context.Context, run agent.RunInfo) context.Context {
	o.add("run started")
	return ctx
}

func (o *countingObserver) RunEnded(_ context.Context, _ agent.RunInfo, err error) {
	o.add("run ended: %v", err)
}

func (o *countingObserver) ModelCallStarted(ctx context.Context, call agent.ModelCall) context.Context {
	o.add("model call %d started", call.Step)
	return ctx
}

func (o *countingObserver) ModelCallEnded(_ context.Context, call agent.ModelCall, usage agent.Usage, err error) {
	o.add("model call %d ended: %+v %v", call.Step, usage, err)
}
