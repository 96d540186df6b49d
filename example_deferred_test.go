package toolreg_test

import (
	"context"
	"fmt"

	"github.com/toolreg/toolreg"
)

// A tool the model rarely needs is deferred: a run declares it once the
// model has found it with the run's tool search.
func ExampleWithDeferred() {
	export := toolreg.MustNew("export_report", "Exports the quarter's report as CSV.",
		func(context.Context, struct{}) (string, error) { return "done", nil },
		toolreg.WithDeferred())
	now := toolreg.MustNew("now", "The current time.", func(context.Context, struct{}) (string, error) { return "noon", nil })
	fmt.Println(toolreg.Deferred(export), toolreg.Deferred(now))
	// Output:
	// true false
}
