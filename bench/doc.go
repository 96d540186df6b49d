// Package bench compares the per-call cost of toolreg with the other Go
// libraries that turn a model's tool call into a typed Go call: the MCP
// go-sdk, mark3labs/mcp-go and cloudwego/eino here, genkit in the genkit
// directory (a module of its own, because genkit cannot build with the
// invopop/jsonschema version toolreg needs).
//
// Every path runs the same Go function on the same arguments; only the
// machinery between the model's JSON and the function differs. The
// benchmarks are the whole package: run them with ./run, which prints one
// table for both modules.
//
// This is a module of its own so that the other libraries never enter
// toolreg's go.mod.
package bench

//go:generate go run gen_decl100.go
