package toolregtest_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/toolreg/toolreg/toolregtest"
)

// A schema whose every level asks for many items of long strings would
// make arguments of gigabytes: the generator gives up at once, as it
// does past its bound of values, rather than after minutes.
// (Before the bound of bytes, the first took 49s, the second 9.6s.)
func TestArgumentsForHugeEnds(t *testing.T) {
	for name, schema := range map[string]string{
		"nested minItems of long strings": `{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000,
			"items":{"type":"array","minItems":1000,"items":{"type":"string","minLength":1000}}}}},"required":["a"]}`,
		"nested minItems of integers": `{"type":"object","properties":{"a":{"type":"array","minItems":1000,"uniqueItems":true,
			"items":{"type":"array","minItems":300,"items":{"type":"integer"}}}},"required":["a"]}`,
	} {
		done := make(chan error, 1)
		go func() {
			_, err := toolregtest.ArgumentsFor(json.RawMessage(schema), 1)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, toolregtest.ErrUnsatisfiable) {
				t.Errorf("%s: err = %v, want ErrUnsatisfiable", name, err)
			}
		case <-time.After(20 * time.Second): // a second or two; under -race a few
			t.Errorf("%s: ArgumentsFor did not end within 20s", name)
		}
	}
}
