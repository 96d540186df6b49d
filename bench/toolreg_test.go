package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/toolreg/toolreg"
)

// toolregInvoke calls Tool.Invoke: validation against the compiled schema,
// strict decode into Args, the call.
func toolregInvoke[A any](tb testing.TB, sh shape[A]) call {
	t := toolreg.MustNew(toolName, toolDesc, sh.fn)
	return func(ctx context.Context) (string, error) {
		return outputText(t.Invoke(ctx, sh.args))
	}
}

// toolregRegistryCall adds the lookup by name of Registry.Call.
func toolregRegistryCall[A any](tb testing.TB, sh shape[A]) call {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew(toolName, toolDesc, sh.fn))
	return func(ctx context.Context) (string, error) {
		return outputText(reg.Call(ctx, toolName, sh.args))
	}
}

func outputText(out toolreg.Output) (string, error) {
	if out.IsError {
		return "", errors.New(out.Text)
	}
	return out.Text, nil
}

// toolregSchema is toolreg's input schema for A, for the libraries whose
// own inference cannot read A's tags.
func toolregSchema[A any](tb testing.TB, sh shape[A]) []byte {
	tb.Helper()
	t, err := toolreg.New(toolName, toolDesc, sh.fn)
	if err != nil {
		tb.Fatal(err)
	}
	return t.InputSchema()
}
