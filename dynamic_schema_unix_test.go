//go:build unix

package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestNewDynamicDoesNotOpenAFIFO: a $ref to a FIFO would block the
// library's file loader until a writer came; nothing is opened, so
// NewDynamic returns, refusing the schema.
func TestNewDynamicDoesNotOpenAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "schema.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	schema := json.RawMessage(`{"type":"object","$ref":"file://` + filepath.ToSlash(fifo) + `"}`)
	err := returnsWithin(t, 10*time.Second, "NewDynamic of a $ref to a FIFO", func() error {
		_, err := NewDynamic("d", "A dynamic tool.", schema, func(context.Context, json.RawMessage) (string, error) { return "", nil })
		return err
	})
	if !errors.Is(err, ErrInvalidDeclaration) {
		t.Errorf("NewDynamic = %v, want ErrInvalidDeclaration", err)
	}
}
