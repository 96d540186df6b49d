package adapttest

import (
	"testing"

	"github.com/toolreg/toolreg/agent"
)

// Stored sends a State through JSON, as a host that keeps it does, for a
// test that resumes a run from what it stored.
func Stored(t *testing.T, s *agent.State) *agent.State {
	t.Helper()
	return stored(t, s)
}
