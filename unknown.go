package toolreg

import (
	"fmt"

	"github.com/toolreg/toolreg/internal/suggest"
)

// unknownToolOutput is what the model reads when it calls a name the
// registry (or view) does not hold: the available tools, closest first, so
// that a misspelt name points at the right tool. A registry of at most
// suggest.ListAll tools lists them all; a larger one the
// suggest.NearestShown nearest and how many there are, so that the text
// and the work stay small in a registry of thousands.
func unknownToolOutput(name string, names []string) Output {
	text, shown := suggest.UnknownTool(name, names)
	return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: %s", ErrUnknownTool, shown)}
}
