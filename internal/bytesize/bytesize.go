// Package bytesize words a number of bytes for a model to read, in the one
// form every message of the library uses.
package bytesize

import "fmt"

// String is n bytes as the model reads it: "1 byte", "812 bytes",
// "1.2 kB", "3.4 MB" (decimal units, as providers state their limits).
func String(n int) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
}
