package toolmcp

import (
	"crypto/sha256"
	"encoding/hex"
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

// maxNameLen is toolreg.ValidName's bound on a name's length.
const maxNameLen = 64

// importName is the registry name of the MCP tool mcpName: prefix, then
// mcpName with every character toolreg.ValidName refuses ('.', and any
// other a server may send) written '_'. A name that would start with a
// digit or '-' gets a leading '_'. A name longer than 64 characters keeps
// its first 55 and ends with '_' and 8 hex digits of the SHA-256 of the
// MCP name, so that long names that share a beginning stay apart.
// exact reports whether the name needed no more than the prefix; two MCP
// names that map to one registry name are told apart by it (see Import).
func importName(prefix, mcpName string) (name string, exact bool) {
	b := []byte(prefix + mcpName)
	exact = true
	for i := len(prefix); i < len(b); i++ {
		switch c := b[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			b[i], exact = '_', false
		}
	}
	if len(b) == 0 || b[0] == '-' || b[0] >= '0' && b[0] <= '9' {
		b, exact = append([]byte{'_'}, b...), false
	}
	if len(b) > maxNameLen {
		sum := sha256.Sum256([]byte(mcpName))
		b, exact = append(b[:maxNameLen-9], '_'), false
		b = hex.AppendEncode(b, sum[:4])
	}
	return string(b), exact
}

// checkPrefix checks a Prefix: it must begin a name toolreg.ValidName
// accepts and leave room for the MCP name.
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := toolreg.ValidName(prefix); err != nil || len(prefix) > maxNameLen/2 {
		return fmt.Errorf("%w: Prefix(%q): a prefix starts with a letter or '_' and holds only letters, digits, '_' and '-', %d characters at most",
			toolreg.ErrInvalidName, prefix, maxNameLen/2)
	}
	return nil
}
