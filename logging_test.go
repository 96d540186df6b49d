package toolreg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

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

// syncBuffer is a log's output written by one goroutine and read by the
// test's.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(b.buf.String()), "\n")
}

// TestLoggingATimeoutWhenItHappens: a tool that ignores its 100 ms
// deadline (the tool's, the registry's or the caller's) is logged as the
// timeout the caller got, by the time the call returns, give or take a
// moment; what the tool returns later is not logged at all.
func TestLoggingATimeoutWhenItHappens(t *testing.T) {
	const d = 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		reg   []toolreg.RegistryOption
		tool  []toolreg.Option
		ctx   func() (context.Context, context.CancelFunc)
		error string // the log's error kind
	}{
		{"tool timeout", nil, []toolreg.Option{toolreg.WithTimeout(d)}, background, "tool call timed out"},
		{"registry timeout", []toolreg.RegistryOption{toolreg.WithDefaultTimeout(d)}, nil, background, "tool call timed out"},
		{"caller deadline, isolated calls", []toolreg.RegistryOption{toolreg.WithIsolatedCalls()}, nil, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), d)
		}, "tool call timed out"},
		{"caller cancels, isolated calls", []toolreg.RegistryOption{toolreg.WithIsolatedCalls()}, nil, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(d, cancel)
			return ctx, cancel
		}, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release, returned := make(chan struct{}), make(chan struct{})
			reg := toolreg.NewRegistry(tc.reg...)
			reg.MustAdd(toolreg.MustNew("slow", "Ignores its deadline.", func(context.Context, struct{}) (string, error) {
				<-release
				defer close(returned)
				return "done", nil
			}, tc.tool...))
			var log syncBuffer
			reg.Use(toolreg.Logging(slog.New(slog.NewJSONHandler(&log, nil))))
			ctx, cancel := tc.ctx()
			defer cancel()

			out := reg.Call(ctx, "slow", nil)
			if !out.IsError {
				t.Fatalf("the caller got %+v", out)
			}
			grace := time.Now().Add(50 * time.Millisecond)
			for len(log.lines()) == 0 && time.Now().Before(grace) {
				time.Sleep(time.Millisecond)
			}
			check := func(when string) {
				t.Helper()
				lines := log.lines()
				if len(lines) != 1 {
					t.Fatalf("%s: %d lines logged:\n%s", when, len(lines), strings.Join(lines, "\n"))
				}
				var got map[string]any
				if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
					t.Fatalf("%s: %v: %q", when, err, lines[0])
				}
				delete(got, "time")
				delete(got, "duration")
				want := map[string]any{"level": "WARN", "msg": "tool call failed", "tool": "slow", "call_id": "", "args_bytes": 0.0, "error": tc.error}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: log line (-want +got):\n%s", when, diff)
				}
			}
			check("when the call returned")

			close(release) // the tool now returns "done", which nobody reads
			<-returned
			time.Sleep(20 * time.Millisecond)
			check("after the tool returned")
		})
	}
}

func background() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

// TestLoggingNamesARunnersRefusal: a call a runner refused (Refuse) is
// logged with the kind of its refusal.
func TestLoggingNamesARunnersRefusal(t *testing.T) {
	var buf bytes.Buffer
	r := toolreg.NewRegistry()
	r.Use(toolreg.Logging(slog.New(slog.NewTextHandler(&buf, nil))))
	r.Refuse(context.Background(), toolreg.ToolCall{ID: "c1", Name: "echo"},
		toolreg.Output{Text: "not now", IsError: true, Err: fmt.Errorf("%w: step 1", toolreg.ErrNotOffered)})
	if got := buf.String(); !strings.Contains(got, `error="the tool is not offered in this step"`) || !strings.Contains(got, "level=WARN") {
		t.Errorf("logged %s", got)
	}
}
