package main

import (
	"testing"

	"github.com/toolreg/toolreg/toolregtest/providers"
)

// TestDefinitionBudget holds the demo's tools to a budget of tokens, as a
// project would hold its own: every request carries both definitions.
// With -v it logs their sizes in every dialect.
func TestDefinitionBudget(t *testing.T) {
	reg := registry()
	t.Logf("the tools' definitions:\n%s", providers.Sizes(reg))
	providers.CheckBudget(t, reg, providers.Budget{ToolTokens: 200, RequestTokens: 300})
}
