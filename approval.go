package toolreg

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// WithApprovalPolicy makes the calls for which policy returns true wait for
// the host's approval, besides those of tools declared WithApproval or
// WithApprovalIf: a registry-wide rule over the raw call (every call of a
// tool tagged "write", every call from a given model). Runners ask
// NeedsApproval before running a call. To decide on a tool's own typed
// arguments, use WithApprovalIf.
func WithApprovalPolicy(policy func(call ToolCall) bool) RegistryOption {
	return RegistryOption{func(r *Registry) { r.approval = policy }}
}

// WithApprovalIf makes the calls of the tool for which approve returns
// true wait for the host's approval, as WithApproval makes all of them: a
// rule over the call's own arguments (a payment above a sum, a file
// outside a folder). approve sees the arguments as the function would,
// validated, decoded and with defaults applied, and the context of the
// run (the host's values in it). Arguments the tool refuses need no
// approval: they go back to the model, which may call again. A panic in
// approve counts as true. In a durable run (package toolreg/tooltemporal) the
// rule runs in the workflow, so it must be deterministic: decide on the
// arguments and the context's values, not on the clock or a database. A must be the tool's Args type (json.RawMessage
// for a NewDynamic tool), or New fails.
func WithApprovalIf[A any](approve func(ctx context.Context, args A) bool) Option {
	return Option{func(o *toolOptions) {
		if approve != nil {
			o.approveIf = approve
		}
	}}
}

// checkApproveIf checks at declaration that a WithApprovalIf predicate
// takes the tool's Args.
func (t *Tool[A, R]) checkApproveIf() error {
	if t.opts.approveIf == nil {
		return nil
	}
	if _, ok := t.opts.approveIf.(func(context.Context, A) bool); !ok {
		return fmt.Errorf("%w: tool %q: WithApprovalIf takes a func(context.Context, %v) bool, the tool's arguments, not a %T",
			ErrInvalidDeclaration, t.name, reflect.TypeFor[A](), t.opts.approveIf)
	}
	return nil
}

// NeedsApprovalFor reports whether a call of the tool with arguments must
// wait for the host's approval: the tool was declared WithApproval, or
// WithApprovalIf's rule says so of the arguments.
func (t *Tool[A, R]) NeedsApprovalFor(ctx context.Context, arguments json.RawMessage) (needs bool) {
	if t.opts.approval {
		return true
	}
	approve, ok := t.opts.approveIf.(func(context.Context, A) bool)
	if !ok {
		return false
	}
	defer func() {
		if recover() != nil {
			needs = true // a rule that fails asks the host
		}
	}()
	var a A
	if _, ok := t.decode(arguments, &a); !ok {
		return false // refused when it runs, and the model reads why
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return approve(ctx, a)
}

// NeedsApproval reports whether call must wait for the host's approval
// before it runs: its tool was declared WithApproval, or WithApprovalIf's
// rule says so of its arguments (a tool written by hand: it has a
// NeedsApproval() bool method that says so), or the registry's policy
// says so. A call of an unknown tool needs none: it fails at once. ctx is
// the run's, which WithApprovalIf's rule reads.
func (r *Registry) NeedsApproval(ctx context.Context, call ToolCall) bool {
	t, ok := r.Lookup(call.Name)
	if !ok {
		return false
	}
	switch a := t.(type) {
	case interface {
		NeedsApprovalFor(context.Context, json.RawMessage) bool
	}:
		if a.NeedsApprovalFor(ctx, call.Arguments) {
			return true
		}
	case interface{ NeedsApproval() bool }:
		if a.NeedsApproval() {
			return true
		}
	}
	policy := r.root().approval
	return policy != nil && policy(call)
}
