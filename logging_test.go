package toolreg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// secret stands for a token the model passed in its arguments.
const secret = "sk-live-7f3a9c1e5b"

type loginArgs struct {
	User  string `json:"user" jsonschema:"enum=alice,enum=bob"`
	Token string `json:"token" jsonschema:"maxLength=8"`
}

// TestLoggingKeepsArgumentsOut: whatever way a call fails, the log names
// the tool, the call, the kind of failure and, for invalid arguments, the
// fields at fault, and never a value the model sent (an *ArgumentError's
// text quotes them; a tool's error or a panic may too).
func TestLoggingKeepsArgumentsOut(t *testing.T) {
	login := toolreg.MustNew("login", "Logs a user in with a token.", func(_ context.Context, a loginArgs) (string, error) {
		switch a.User {
		case "alice":
			return "", fmt.Errorf("token %s was revoked", a.Token)
		case "bob":
			panic("bad token " + a.Token)
		}
		return "ok", nil
	})
	reg := toolreg.NewRegistry()
	reg.MustAdd(login)
	var buf bytes.Buffer
	reg.Use(toolreg.Logging(slog.New(slog.NewJSONHandler(&buf, nil))))

	for _, tc := range []struct {
		name string
		tool string
		args string
		want map[string]any // the attributes of the log line, but duration
	}{
		{"invalid arguments", "login", `{"user":"` + secret + `","token":"` + secret + `"}`, map[string]any{
			"level": "WARN", "msg": "tool call failed", "tool": "login", "call_id": "c1", "args_bytes": 58.0,
			"error": "invalid arguments", "fields": []any{"token", "user"},
		}},
		{"not JSON", "login", `{"token":"` + secret, map[string]any{
			"level": "WARN", "msg": "tool call failed", "tool": "login", "call_id": "c1", "args_bytes": 28.0,
			"error": "invalid arguments", "fields": []any{""},
		}},
		{"tool error quoting an argument", "login", `{"user":"alice","token":"` + secret[:8] + `"}`, map[string]any{
			"level": "WARN", "msg": "tool call failed", "tool": "login", "call_id": "c1", "args_bytes": 35.0,
			"error": "tool failed",
		}},
		{"panic quoting an argument", "login", `{"user":"bob","token":"` + secret[:8] + `"}`, map[string]any{
			"level": "WARN", "msg": "tool call failed", "tool": "login", "call_id": "c1", "args_bytes": 33.0,
			"error": "tool panicked",
		}},
		{"unknown tool", "logout", `{"token":"` + secret + `"}`, map[string]any{
			"level": "WARN", "msg": "tool call failed", "tool": "logout", "call_id": "c1", "args_bytes": 30.0,
			"error": "unknown tool",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf.Reset()
			out := reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "c1", Name: tc.tool, Arguments: json.RawMessage(tc.args)}})[0]
			if !out.IsError {
				t.Fatalf("the call succeeded: %+v", out)
			}
			if strings.Contains(buf.String(), secret[:8]) {
				t.Errorf("the log holds an argument value:\n%s", buf.String())
			}
			var got map[string]any
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("%v:\n%s", err, buf.String())
			}
			delete(got, "time")
			delete(got, "duration")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("log line (-want +got):\n%s", diff)
			}
		})
	}
}
