package toolreg

// WithApprovalPolicy makes the calls for which policy returns true wait for
// the host's approval, besides those of tools declared WithApproval: a
// registry-wide rule (every call of a tool tagged "write", every call from
// a given model). Runners ask NeedsApproval before running a call.
func WithApprovalPolicy(policy func(call ToolCall) bool) RegistryOption {
	return RegistryOption{func(r *Registry) { r.approval = policy }}
}

// NeedsApproval reports whether call must wait for the host's approval
// before it runs: its tool was declared WithApproval (or, written by hand,
// has a NeedsApproval method that says so), or the registry's policy says
// so. A call of an unknown tool needs none: it fails at once.
func (r *Registry) NeedsApproval(call ToolCall) bool {
	t, ok := r.Lookup(call.Name)
	if !ok {
		return false
	}
	if a, ok := t.(interface{ NeedsApproval() bool }); ok && a.NeedsApproval() {
		return true
	}
	policy := r.root().approval
	return policy != nil && policy(call)
}
