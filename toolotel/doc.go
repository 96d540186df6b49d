// Package toolotel records OpenTelemetry traces and metrics of toolreg's tool
// calls and agent runs, following the OpenTelemetry semantic conventions
// for generative AI. It is a module of its own, so that a program that uses
// toolreg without OpenTelemetry never gets its dependencies.
//
// Its name is toolotel, not otel, so that it sits beside
// go.opentelemetry.io/otel without an alias:
//
//	reg.Use(toolotel.Middleware())                       // a span and metrics per tool call
//	run, err := chat.Run(ctx, client, params, nil, agent.Options{
//		Observer: toolotel.NewObserver(),                // a span per run and per model call
//	})
//
// Both record with the global providers unless WithTracerProvider and
// WithMeterProvider say otherwise; with none set up, they cost next to
// nothing. Neither records what the model sent or read unless WithContent
// says so.
//
// Over MCP, package otelmcp makes a client's trace context (sent in a
// request's _meta, or in the HTTP headers of the streamable transport) the
// parent of the tool spans, so that the client's trace goes on into the
// server.
//
// Logs stay with log/slog (toolreg.Logging): a handler that adds the trace
// and span ids of the record's context to each record joins the two; see
// the README's Observability section.
package toolotel
