package toolreg

import (
	"hash/maphash"
	"sync/atomic"
)

// snapshot is the registry's tools at one moment, as its readers see them:
// Add publishes a new one and readers never lock. Tools are never removed,
// so a snapshot is extended rather than copied (with): it shares the array
// of its tools and its name table with the snapshots that come after it,
// which only append to them. Adding tools one Add at a time thus costs
// about what adding them in one Add does, however many the registry holds.
type snapshot struct {
	tools    []AnyTool // registration order; later snapshots append past len
	names    []string  // names[i] is the name tools[i] was added under
	index    *nameTable
	timeouts bool // a tool has its own timeout (WithTimeout)
}

// lookup returns the tool of the snapshot named name.
func (s *snapshot) lookup(name string) (AnyTool, bool) {
	if s.index == nil {
		return nil, false
	}
	e := s.index.find(name)
	if e == nil || e.at >= len(s.tools) { // a tool added after this snapshot
		return nil, false
	}
	return e.tool, true
}

// with is s and tools after it, named names (each tool's Name, read once:
// a tool whose Name changes stays under the name it was added with). Only
// the newest snapshot may be extended, under the lock of whoever publishes
// them, and names must be new to s and to each other (the caller has
// checked).
func (s *snapshot) with(tools []AnyTool, names []string) *snapshot {
	next := &snapshot{tools: append(s.tools, tools...), names: append(s.names, names...), index: s.index, timeouts: s.timeouts}
	n := len(next.tools)
	if next.index == nil || 2*n > len(next.index.slots) {
		// A new table twice as large: readers of older snapshots keep
		// the old one. Doubling makes the copying cost a constant per
		// tool over all the Adds.
		grown := newNameTable(2 * n)
		if next.index != nil {
			for i := range next.index.slots {
				if e := next.index.slots[i].Load(); e != nil {
					grown.insert(e)
				}
			}
		}
		next.index = grown
	}
	entries := make([]named, len(names)) // one allocation for the batch
	for i, name := range names {
		entries[i] = named{name: name, at: n - len(names) + i, tool: tools[i]}
		next.index.insert(&entries[i])
	}
	for _, t := range tools {
		next.timeouts = next.timeouts || toolTimeout(t) > 0
	}
	return next
}

// nameTable maps names to their tool's position in the snapshots that
// share it: an open-addressing hash table whose slots are written once, at
// most half of them, so that readers can probe it while the newest
// snapshot's writer fills free slots (a name found at a position past a
// reader's snapshot is not in that snapshot).
type nameTable struct {
	seed  maphash.Seed
	slots []atomic.Pointer[named]
}

type named struct {
	name string
	at   int // in snapshot.tools
	tool AnyTool
}

func newNameTable(n int) *nameTable {
	size := 16
	for size < n {
		size *= 2
	}
	return &nameTable{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[named], size)}
}

func (t *nameTable) find(name string) *named {
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, name) & mask; ; i = (i + 1) & mask {
		if e := t.slots[i].Load(); e == nil || e.name == name {
			return e
		}
	}
}

func (t *nameTable) insert(e *named) {
	mask := uint64(len(t.slots) - 1)
	i := maphash.String(t.seed, e.name) & mask
	for t.slots[i].Load() != nil {
		i = (i + 1) & mask
	}
	t.slots[i].Store(e)
}
