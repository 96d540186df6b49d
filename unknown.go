package toolreg

import (
	"fmt"
	"strings"

	"github.com/toolreg/toolreg/internal/suggest"
)

// unknownToolOutput is what the model reads when it calls a name the
// registry (or view) does not hold: the available tools, closest first, so
// that a misspelt name points at the right tool. A registry of at most
// suggest.ListAll tools lists them all; a larger one the
// suggest.NearestShown nearest and how many there are, so that the text
// and the work stay small in a registry of thousands.
func unknownToolOutput(name string, tools []AnyTool) Output {
	shown := fmt.Sprintf("%q", truncate(name, 64))
	text := "there is no tool named " + shown
	names := func(yield func(string) bool) {
		for _, t := range tools {
			if !yield(t.Name()) {
				return
			}
		}
	}
	switch list, all := suggest.Listing(name, names, len(tools)); {
	case len(list) == 0:
	case all:
		text += "; available tools: " + strings.Join(list, ", ")
	default:
		text += fmt.Sprintf("; there are %d tools, the nearest to this name: %s", len(tools), strings.Join(list, ", "))
	}
	return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: %s", ErrUnknownTool, shown)}
}
