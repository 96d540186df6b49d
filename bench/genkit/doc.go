// Package genkit benchmarks a genkit tool on the shapes of the parent bench
// module, against its own baseline. It is a module of its own because
// genkit's dependency google/dotprompt/go does not compile with
// invopop/jsonschema v0.14.0, which toolreg needs.
package genkit
