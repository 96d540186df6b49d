package mcp

import (
	"fmt"

	"github.com/toolreg/toolreg"
)

// validName reports whether name follows MCP's tool name rule (SEP-986,
// from protocol revision 2025-11-25; the go-sdk logs names that break it):
// 1 to 128 ASCII letters, digits, '_', '-' and '.'. It is wider than
// toolreg.ValidName, which every provider accepts; Rename serves a tool
// under such a name. The error wraps toolreg.ErrInvalidName.
func validName(name string) error {
	ok := len(name) >= 1 && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			ok = false
		}
	}
	if ok {
		return nil
	}
	shown := name
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	return fmt.Errorf("%w %q: an MCP tool name holds 1 to 128 letters, digits, '_', '-' and '.' (no spaces, commas or slashes)", toolreg.ErrInvalidName, shown)
}
