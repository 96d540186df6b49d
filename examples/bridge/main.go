// Command bridge gives a model the tools of an MCP server beside Go tools:
// it imports the server's tools into a toolreg registry that already holds
// a Go tool, and runs the OpenAI runner (strict mode) over all of them.
//
// Offline by default: the server is the bundled example MCP server
// (examples/mcpserver), served in memory, and the model is a scripted one
// that speaks the Chat Completions protocol to the real OpenAI SDK client,
// so the transcript is the same on every run. With OPENAI_API_KEY set it
// asks that endpoint instead (OPENAI_BASE_URL and OPENAI_MODEL select
// another server or model), and -server bridges any MCP server that speaks
// stdio.
//
//	go run ./examples/bridge
//	OPENAI_API_KEY=... go run ./examples/bridge "How many km is a marathon?"
//	OPENAI_API_KEY=... go run ./examples/bridge -server "npx -y @modelcontextprotocol/server-everything" "What is 2+3?"
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/examples/mcpserver/tools"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: bridge [flags] [prompt]\n\nOffline by default; set OPENAI_API_KEY (and optionally OPENAI_BASE_URL, OPENAI_MODEL) to use a real model.\n\n")
		flag.PrintDefaults()
	}
	server := flag.String("server", "", `the command line of an MCP server to start over stdio (e.g. "npx -y @modelcontextprotocol/server-everything"); the bundled example server when empty`)
	prefix := flag.String("prefix", "mcp__", "put before the name of each imported tool")
	maxSteps := flag.Int("max-steps", 8, "maximum number of model calls")
	flag.Parse()
	cfg := config{server: strings.Fields(*server), prefix: *prefix, prompt: strings.Join(flag.Args(), " "), maxSteps: *maxSteps, getenv: os.Getenv}
	if err := run(context.Background(), os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		os.Exit(1)
	}
}

// config is what the command line and the environment chose.
type config struct {
	server   []string // the MCP server's command line; empty for the bundled one
	prefix   string
	prompt   string
	maxSteps int
	getenv   func(string) string
}

// logRun is the Go tool beside the imported ones.
var logRun = toolreg.MustNew("log_run", "Adds a run to the user's training log. Call it once the distance is known in kilometres.",
	func(_ context.Context, a struct {
		KM      float64 `json:"km" jsonschema:"minimum=0.1,maximum=500,description=Distance in kilometres"`
		Minutes int     `json:"minutes" jsonschema:"minimum=1,maximum=6000,description=Duration in whole minutes"`
	}) (string, error) {
		return fmt.Sprintf("%g km in %d min logged, the 3rd run this week", a.KM, a.Minutes), nil
	})

// run is the whole program, with its environment passed in for tests.
func run(ctx context.Context, w io.Writer, cfg config) error {
	offline := cfg.getenv("OPENAI_API_KEY") == ""
	if offline && len(cfg.server) > 0 {
		return errors.New("the offline model knows only the bundled server's tools: set OPENAI_API_KEY to bridge another server")
	}

	reg := toolreg.NewRegistry(toolreg.WithDefaultTimeout(time.Minute))
	reg.MustAdd(logRun)
	var running atomic.Bool
	importer, err := toolmcp.NewImporter(reg, toolmcp.Prefix(cfg.prefix), toolmcp.OnChange(func(c toolmcp.Change, err error) {
		if running.Load() { // the server changed its tools during the run, or went away
			fmt.Fprintf(w, "(the server's tools changed: added %v, removed %v, back %v; %v)\n", c.Added, c.Removed, c.Restored, err)
		}
	}))
	if err != nil {
		return err
	}
	session, err := connect(ctx, cfg.server, importer)
	if err != nil {
		return err
	}
	defer session.Close()
	if err := importer.Import(ctx, session); err != nil {
		// The tools that could be imported are; say which were not.
		fmt.Fprintf(w, "not imported: %v\n", err)
	}
	running.Store(true)
	defer running.Store(false) // before the session closes

	remote := map[string]string{} // registry name → MCP name
	for mcpName, name := range importer.Names() {
		remote[name] = mcpName
	}
	fmt.Fprintf(w, "tools: %s (Go)", logRun.Name())
	for _, name := range slices.Sorted(maps.Keys(remote)) {
		fmt.Fprintf(w, ", %s (MCP %s)", name, remote[name])
	}
	fmt.Fprintln(w)

	opts := []option.RequestOption{option.WithMaxRetries(0)}
	model, prompt := cfg.getenv("OPENAI_MODEL"), cfg.prompt
	if offline {
		opts = append(opts, offlineModel(cfg.prefix)...)
		model, prompt = "scripted-offline", offlinePrompt
		fmt.Fprintln(w, "model: scripted offline model (set OPENAI_API_KEY to use a real one)")
	} else {
		opts = append(opts, option.WithAPIKey(cfg.getenv("OPENAI_API_KEY")))
		if base := cfg.getenv("OPENAI_BASE_URL"); base != "" {
			opts = append(opts, option.WithBaseURL(base))
		}
		model = cmp.Or(model, "gpt-4.1-mini")
		prompt = cmp.Or(prompt, offlinePrompt)
		fmt.Fprintf(w, "model: %s\n", model)
	}
	client := openai.NewClient(opts...)
	fmt.Fprintf(w, "user: %s\n", prompt)
	result, err := toolopenai.NewChat(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback()).Run(ctx, &client.Chat.Completions,
		openai.ChatCompletionNewParams{Model: model, Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Answer with the tools you have. Call independent tools in parallel."),
			openai.UserMessage(prompt),
		}}, nil,
		agent.Options{
			MaxSteps: cfg.maxSteps,
			// A tool the server stopped offering stays in the registry
			// (a registry only grows): hide it from the model.
			PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Hide(importer.Unavailable()...) },
			OnEvent:     transcript(w, importer),
		})
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("the model endpoint failed (HTTP %d); check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL: %w", apiErr.StatusCode, err)
		}
		return err
	}
	fmt.Fprintf(w, "assistant: %s\n(%d model calls)\n", result.Answer(), result.Steps())
	return nil
}

// connect starts the MCP server, or serves the bundled one in memory, and
// connects a client whose tools/list_changed handler is the importer's.
func connect(ctx context.Context, command []string, importer *toolmcp.Importer) (*mcp.ClientSession, error) {
	var transport mcp.Transport
	if len(command) == 0 {
		// Its log of each call would repeat the transcript.
		server, err := tools.NewServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return nil, err
		}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := server.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		transport = ct
	} else {
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Stderr = os.Stderr // the server's logs
		transport = &mcp.CommandTransport{Command: cmd}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolreg-bridge", Version: "v0.1.0"},
		&mcp.ClientOptions{ToolListChangedHandler: importer.ToolListChanged})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	return session, nil
}

// transcript prints each call as the model makes it, naming the MCP tool
// behind an imported one (the server may add tools during the run), then
// its result.
func transcript(w io.Writer, importer *toolmcp.Importer) func(agent.Event) {
	return func(e agent.Event) {
		switch e.Kind {
		case agent.CallReady:
			via := "Go"
			for mcpName, name := range importer.Names() {
				if name == e.Call.Name {
					via = "MCP " + mcpName
				}
			}
			fmt.Fprintf(w, "[step %d] calls %s %s (%s)\n", e.Step, e.Call.Name, e.Call.Arguments, via)
		case agent.CallResult:
			status := "ok"
			if e.Output.IsError {
				status = "error"
			}
			fmt.Fprintf(w, "[step %d]   %s %s: %s\n", e.Step, e.Call.Name, status, strings.ReplaceAll(e.Output.Text, "\n", "\n           "))
		}
	}
}
