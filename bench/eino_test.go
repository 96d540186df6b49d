package bench

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/components/tool/utils"
)

// einoInvokableRun is utils.InferTool and InvokableRun: JSON string in,
// string out, decoded by sonic, with no validation.
func einoInvokableRun[A any](tb testing.TB, sh shape[A]) call {
	t, err := utils.InferTool(toolName, toolDesc, sh.fn)
	if err != nil {
		tb.Fatal(err)
	}
	args := string(sh.args)
	return func(ctx context.Context) (string, error) {
		return t.InvokableRun(ctx, args)
	}
}
