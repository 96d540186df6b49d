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
	var refuse Handler = HandlerFunc(refused)
	for i := len(r.mws) - 1; i >= 0; i-- {
		refuse = r.mws[i](refuse)
	}
	r.chain.Store(&chain{h: h, refuse: refuse, middleware: len(r.mws) > 0})
}

// Logging logs every call at Info (Warn when it failed): the tool, the
// call ID, the size of the arguments, the duration and, on failure, its
// kind (the text of the sentinel it wraps, such as "invalid arguments" or
// "tool call timed out"; "context canceled" for a cancelled call) and, for
// invalid arguments, the paths of the fields at fault. A call that a
// timeout of the library ends (WithTimeout, WithDefaultTimeout, or any end
// of its context under WithIsolatedCalls) is logged as the timeout the
// caller gets, when it gets it; what a tool that ignores its context
// returns later is not logged. Any other call is logged as what it
// returns, when it returns; a result held to its limit (ResultCut) with
// the whole Text's length and the bytes left out. It never
// logs what the model sent: not the arguments, and not the error's text,
// which quotes them (see ArgumentError) or holds whatever a tool or a
// panic put there. To log those details, write a middleware that reads
// Output.Err and decides what may reach your logs.
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
			if out.Cut != nil { // held to its result limit: see ResultCut
				attrs = append(attrs, slog.Int("result_bytes", out.Cut.TextBytes), slog.Int("left_out_bytes", out.Cut.LeftOut))
			}
			if out.IsError {
				attrs = append(attrs, slog.String("error", errorKind(out.Err)))
				var ae *ArgumentError
				if errors.As(out.Err, &ae) {
					paths := make([]string, len(ae.Problems))
					for i, p := range ae.Problems {
						paths[i] = p.Path
					}
					attrs = append(attrs, slog.Any("fields", paths))
				}
				logger.LogAttrs(ctx, slog.LevelWarn, "tool call failed", attrs...)
			} else {
				logger.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
			}
			return out
		})
	}
}

// errorKinds are the sentinels a failure is named by. A tool's own error
// comes first: it wraps ErrToolFailed and whatever the tool wrapped, which
// may be another sentinel.
var errorKinds = []error{ErrStopRun, ErrToolFailed, ErrToolPanic, ErrUnknownTool, ErrInvalidArguments, ErrOverloaded, ErrNotOffered, ErrRepeatedCall,
	ErrTimeout, ErrInvalidResult, ErrInternal, context.Canceled}

// errorKind names the sentinel err wraps, "other" for an error of a
// middleware that wraps none.
func errorKind(err error) string {
	for _, k := range errorKinds {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return "other"
}

// ErrorText rewrites what the model reads when a tool returns an error,
// which otherwise reaches it verbatim (see New): text(err) replaces the
// error's own text, a StopRun's included, so that secrets or internal
// details in errors stay with the host (Output.Err keeps everything).
// Failures that are not the tool's own error (invalid arguments, unknown
// tool, panic, timeout) keep their text, which holds nothing internal, and
// so does a Retry, whose text the tool wrote for the model. Use it with
// Registry.Use on any registry whose tools pass up errors they did not
// write.
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
