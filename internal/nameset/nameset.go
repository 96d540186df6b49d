// Package nameset answers whether a name is one of a list of tool names,
// in constant time however long the list.
package nameset

import "slices"

// Of reports whether a name is one of names (a step's tools): through a
// set for a long list, so that filtering a large registry by a step's
// tools stays linear in the registry's size.
func Of(names []string) func(string) bool {
	if len(names) <= 16 {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return func(n string) bool {
		_, ok := set[n]
		return ok
	}
}
