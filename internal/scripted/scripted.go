// Package scripted runs the examples of the module's packages on a
// scripted model of package toolregtest/fakemodel, from replies written
// one line each, so that the examples run offline as a user's tests
// would.
package scripted

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// Turns are the turns of replies: a reply "name {arguments}" (several
// joined by "; ") calls tools, any other answers with its text.
func Turns(replies ...string) []fakemodel.Turn {
	var turns []fakemodel.Turn
	for _, reply := range replies {
		if !strings.Contains(reply, "{") {
			turns = append(turns, fakemodel.Text(reply))
			continue
		}
		var calls []fakemodel.ToolCall
		for _, c := range strings.Split(reply, "; ") {
			name, args, _ := strings.Cut(c, " ")
			calls = append(calls, fakemodel.ToolCall{Name: name, Args: args})
		}
		turns = append(turns, fakemodel.Calls(calls...))
	}
	return turns
}

// Model is a scripted model for an example, and the stand-in for the
// test it serves.
type Model struct {
	*fakemodel.Server
	t *exampleT
}

// New starts a Model playing turns. Close it when the example ends.
func New(turns ...fakemodel.Turn) Model {
	t := &exampleT{}
	return Model{fakemodel.New(t, turns...), t}
}

// Close ends the stand-in test: the server closes, and turns never asked
// for are printed as a failure, which the example's output then shows.
func (m Model) Close() {
	for i := len(m.t.cleanups) - 1; i >= 0; i-- {
		m.t.cleanups[i]()
	}
}

// exampleT stands in for the *testing.T of a test: it prints what would
// fail the test.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
