package toolmcp_test

import (
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// Deferred defers everything an import brings: a run declares those tools
// once the model has found them with its tool search.
func ExampleDeferred() {
	reg := toolreg.NewRegistry()
	im, _ := toolmcp.NewImporter(reg, toolmcp.Prefix("files__"), toolmcp.Deferred())
	session, err := importFrom(filesServer(), im)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	for _, t := range reg.Tools() {
		fmt.Println(t.Name(), toolreg.Deferred(t))
	}
	// Output:
	// files__delete_file true
	// files__read_text true
}
