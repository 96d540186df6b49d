package toolreg

import "fmt"

// ValidName reports whether name follows the naming rule every provider
// accepts: a letter or underscore, then up to 63 letters, digits, '_' or
// '-'. New and Registry.Add use it; call it to check a name built at run
// time. The error wraps ErrInvalidName.
func ValidName(name string) error {
	ok := len(name) >= 1 && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			ok = false
		}
	}
	if ok {
		return nil
	}
	return &nameError{fmt.Errorf("%w %q: a tool name must start with a letter or '_' and hold only letters, digits, '_' and '-', 64 characters at most "+
		"(OpenAI, Anthropic and Bedrock reject other characters such as '.', ' ' or '/'; Gemini rejects a leading digit or dash)", ErrInvalidName, truncate(name, 80))}
}

// nameError is ValidName's error: its text names ErrInvalidName only, and
// it matches ErrInvalidDeclaration too, so that a host that branches on
// ErrInvalidDeclaration sees every refused declaration.
type nameError struct{ err error }

func (e *nameError) Error() string { return e.err.Error() }

func (e *nameError) Unwrap() []error { return []error{e.err, ErrInvalidDeclaration} }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
