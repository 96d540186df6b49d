package toolreg

// WithDeferred marks the tool deferred: a run of package agent declares
// it to the model only once the model has found it with the run's tool
// search (agent.SearchToolName), so that a registry of many tools does not
// send every definition in every request. Use it for the tools a task
// rarely needs; a run can defer more (agent.Options.Defer).
//
// Deferral is about definitions only: a deferred tool is offered like any
// other, and a model that calls it before finding it (it knows the name)
// has its call run, its arguments checked as always.
func WithDeferred() Option {
	return Option{func(o *toolOptions) { o.deferred = true }}
}

// Deferred reports whether the tool was declared WithDeferred.
func (t *Tool[A, R]) Deferred() bool { return t.opts.deferred }

// Deferred reports whether t is deferred: it has a Deferred method (a
// tool made with WithDeferred, or a hand-written AnyTool) that says so.
func Deferred(t AnyTool) bool {
	d, ok := t.(interface{ Deferred() bool })
	return ok && d.Deferred()
}
