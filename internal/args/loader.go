package args

import (
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrExternalReference is in the error of a schema that refers to a
// document outside itself ($ref, $dynamicRef, $schema or an $id that
// moves the base to another document): a tool's schema is a closed
// document, so nothing is loaded, from the file system, the network or
// anywhere else. The meta-schemas of the drafts the validator knows are
// built in and need no loading.
var ErrExternalReference = errors.New("the schema refers to a document outside itself")

// NewCompiler returns a validator compiler for schemas that come from
// outside the program: draft 2020-12 unless the schema's $schema names
// another known draft, and a loader that refuses every URL. Every
// compiler of the project is made here, tests' included, so no schema
// reaches past its own document: the library's default loader reads
// file:// URLs, which would put a file's content, or the host's error
// text, into a message the model reads, and block on a FIFO.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuse{})
	return c
}

// refuse is a loader that loads nothing. Its error names the URL, which
// the schema itself wrote (resolved against its base), and nothing of the
// machine.
type refuse struct{}

func (refuse) Load(url string) (any, error) {
	return nil, fmt.Errorf("%w (%q): nothing outside the schema is loaded; put the definition under \"$defs\" and refer to it as \"#/$defs/name\"", ErrExternalReference, url)
}
