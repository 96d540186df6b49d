package toolreg

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Handler handles one tool call. The registry's dispatch is a Handler;
// middleware wraps it. Like http.Handler, it never fails: every failure is
// an Output.
type Handler interface {
	HandleCall(ctx context.Context, call ToolCall) Output
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, call ToolCall) Output

// HandleCall calls f.
func (f HandlerFunc) HandleCall(ctx context.Context, call ToolCall) Output { return f(ctx, call) }

// Middleware wraps a Handler: it sees every call (name, ID, arguments)
// before the tool and its Output after, and may change either. Use it for
// logging, metrics, authorisation, rewriting what the model reads.
type Middleware func(next Handler) Handler

// Use adds middleware to every call path of the registry: Call, CallAll,
// and so every adapter and the MCP server. The first middleware given is
// the outermost; later Use calls wrap inside earlier ones. Views of the
// registry (Select) share its middleware; Use on a view panics.
func (r *Registry) Use(mws ...Middleware) {
	if r.view != nil {
		panic("toolreg: Use on a view of a registry: add middleware to the registry it views")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mws = append(r.mws, mws...)
	var h Handler = HandlerFunc(r.dispatch)
	for i := len(r.mws) - 1; i >= 0; i-- {
		h = r.mws[i](h)
	}
	r.chain.Store(&chain{h: h, middleware: len(r.mws) > 0})
}

// Logging logs every call at Info (Warn when it failed): the tool, the
// call ID, the size of the arguments (never their content, which may hold
// secrets), the duration and, on failure, the host-facing error.
func Logging(logger *slog.Logger) Middleware {
	return func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			start := time.Now()
			out := next.HandleCall(ctx, call)
			attrs := []slog.Attr{
				slog.String("tool", call.Name),
				slog.String("call_id", call.ID),
				slog.Int("args_bytes", len(call.Arguments)),
				slog.Duration("duration", time.Since(start)),
			}
			if out.IsError {
				attrs = append(attrs, slog.Any("error", out.Err))
				logger.LogAttrs(ctx, slog.LevelWarn, "tool call failed", attrs...)
			} else {
				logger.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
			}
			return out
		})
	}
}

// ErrorText rewrites what the model reads when a tool returns an error:
// text(err) replaces the error's own text, so that secrets or internal
// details in errors stay with the host (Output.Err keeps everything).
// Failures that are not the tool's own error (invalid arguments, unknown
// tool, panic, timeout) keep their text, which holds nothing internal, and
// so does a Retry, whose text the tool wrote for the model.
func ErrorText(text func(err error) string) Middleware {
	return func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			out := next.HandleCall(ctx, call)
			if out.IsError && errors.Is(out.Err, ErrToolFailed) && !errors.Is(out.Err, ErrRetry) {
				out.Text = text(out.Err)
			}
			return out
		})
	}
}
