package toolregtest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolreg/toolreg/toolregtest"
)

// A pattern whose repetitions match the empty string writes nothing as it
// repeats, so the size bound never stops it: with a large maxLength the
// generator must still answer at once, with an error when nothing fits.
func TestArgumentsForEmptyRepetitionEnds(t *testing.T) {
	for _, pattern := range []string{`^a(?:)*$`, `^a(?:(?:)*)*$`, `^a(?:\b)*$`} {
		schema := json.RawMessage(`{"type":"object","properties":{"s":{"type":"string","pattern":` +
			string(must(json.Marshal(pattern))) + `,"minLength":2,"maxLength":1000000000}},"required":["s"]}`)
		done := make(chan error, 1)
		go func() {
			_, err := toolregtest.ArgumentsFor(schema, 1)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("pattern %q: ArgumentsFor made a string of at least 2 characters matching ^a$", pattern)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("pattern %q, maxLength 1e9: ArgumentsFor did not end within 5s", pattern)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
