package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// mcpDialect is the registry served over MCP, as a client's tools/list
// receives it. Sizes measures it; Snapshot does not show it yet.
var mcpDialect = form{"mcp", mcpToolsList, splitArray}

// mcpToolsList serves reg with toolmcp.AddTools to an in-memory client and
// returns the tools of every tools/list page, as the server wrote them.
func mcpToolsList(reg *toolreg.Registry) (json.RawMessage, error) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "toolregtest", Version: "v0"}, nil)
	if _, err := toolmcp.AddTools(srv, reg); err != nil {
		return nil, err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	rec := &recorder{Transport: ct}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolregtest", Version: "v0"}, nil).Connect(ctx, rec, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	rec.start()
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
	}
	var tools []json.RawMessage
	for _, r := range rec.results() {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(r, &page); err != nil {
			return nil, fmt.Errorf("a tools/list result: %w", err)
		}
		tools = append(tools, page.Tools...)
	}
	return json.Marshal(tools)
}

// recorder is a client transport that keeps the raw result of every
// response read once start is called: the bytes the server sent, which
// the client's decoded values (schemas as maps) no longer hold in order.
type recorder struct {
	mcp.Transport
	mu  sync.Mutex
	on  bool
	got []json.RawMessage
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recording{Connection: c, r: r}, nil
}

func (r *recorder) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = true
}

func (r *recorder) results() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

type recording struct {
	mcp.Connection
	r *recorder
}

func (c *recording) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.r.mu.Lock()
		if c.r.on {
			c.r.got = append(c.r.got, resp.Result)
		}
		c.r.mu.Unlock()
	}
	return msg, err
}
