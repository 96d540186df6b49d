package toolreg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolreg/toolreg/internal/suggest"
)

// unknownToolOutput is what the model reads when it calls a name the
// registry (or view) does not hold: the available tools, closest first, so
// that a misspelt name points at the right tool. A registry of at most
// suggest.ListAll tools lists them all; a larger one the
// suggest.NearestShown nearest and how many there are, so that the text
// and the work stay small in a registry of thousands.
func unknownToolOutput(name string, names []string) Output {
	shown := fmt.Sprintf("%q", truncate(name, 64))
	text := "there is no tool named " + shown
	switch list, all := suggest.Listing(name, slices.Values(names), len(names)); {
	case len(list) == 0:
	case all:
		text += "; available tools: " + strings.Join(list, ", ")
	default:
		text += fmt.Sprintf("; there are %d tools, the nearest to this name: %s", len(names), strings.Join(list, ", "))
	}
	return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: %s", ErrUnknownTool, shown)}
}
