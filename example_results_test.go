package toolreg_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg"
)

// readLog returns a log far longer than a model should read whole.
func readLog(context.Context, struct{}) (string, error) {
	return "started\n" + strings.Repeat("a line of the log\n", 10_000) + "stopped: out of disk", nil
}

// A tool whose results are long and seldom needed whole keeps a smaller
// limit than the registry's: the model reads the start and the end of the
// log, and a notice of what it does not see.
func ExampleWithMaxResultBytes() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("read_log", "Reads the server's log.", readLog, toolreg.WithMaxResultBytes(100)))
	out := reg.Call(context.Background(), "read_log", nil)
	fmt.Println(out.Text)
	fmt.Println(out.IsError, out.Cut.TextBytes, out.Cut.LeftOut)
	// Output:
	// started
	// a line of the log
	// a line of the log
	// a line of the log
	//
	// [... 179.9 kB (179946 bytes) of this result left out here, of 180.0 kB in all: only its start and its end are shown. If you need what is missing, call the tool again asking for less, such as a narrower query or one page of the result. ...]
	// stopped: out of disk
	// false 180028 179946
}

// The registry's limit holds every tool without one of its own;
// NoResultLimit turns it off, for the registry or for one tool.
func ExampleWithDefaultMaxResultBytes() {
	reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(20_000))
	reg.MustAdd(
		toolreg.MustNew("read_log", "Reads the server's log.", readLog),
		toolreg.MustNew("read_whole_log", "Reads the server's log, all of it.", readLog, toolreg.WithMaxResultBytes(toolreg.NoResultLimit)),
	)
	for _, name := range []string{"read_log", "read_whole_log"} {
		out := reg.Call(context.Background(), name, nil)
		fmt.Println(name, len(out.Text) < 20_500, out.Cut != nil)
	}
	// Output:
	// read_log true true
	// read_whole_log false false
}

// A host that keeps the whole of every cut result stores it in its spill,
// and the notice gives the model the reference, which a tool of the host's
// can read a page at a time.
func ExampleWithResultSpill() {
	stored := map[string]string{}
	spill := func(ctx context.Context, call toolreg.ToolCall, whole toolreg.Output) (string, error) {
		ref := fmt.Sprintf("results/%d", len(stored)+1)
		stored[ref] = whole.Text
		return ref, nil
	}
	reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(1000), toolreg.WithResultSpill(spill))
	reg.MustAdd(toolreg.MustNew("read_log", "Reads the server's log.", readLog))
	out := reg.Call(context.Background(), "read_log", nil)
	for _, line := range strings.Split(out.Text, "\n") {
		if strings.HasPrefix(line, "[...") {
			fmt.Println(line)
		}
	}
	fmt.Println(out.Cut.Ref, len(stored["results/1"]))
	// Output:
	// [... 179.0 kB (179046 bytes) of this result left out here, of 180.0 kB in all: only its start and its end are shown. If you need what is missing, call the tool again asking for less, such as a narrower query or one page of the result. The whole result is stored as "results/1". ...]
	// results/1 180028
}
