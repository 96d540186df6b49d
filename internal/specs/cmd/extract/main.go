// Command extract writes the compact request schemas internal/specs checks
// bodies against: it reads a provider's published API document (OpenAPI
// or a Google discovery document), keeps the named request schemas and
// every schema they refer to, converts them to JSON Schema and records
// where the document came from. The commands that made the files under
// internal/specs/testdata are in that package's documentation.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/toolreg/toolreg/internal/specs"
)

func main() {
	var (
		format = flag.String("format", "openapi", "the source's format: openapi or discovery")
		in     = flag.String("in", "", "the source document (JSON)")
		out    = flag.String("out", "", "the file to write")
		roots  = flag.String("roots", "", "comma-separated names of the request schemas to keep")
		src    specs.Source
	)
	flag.StringVar(&src.Repo, "repo", "", "where the source is published, recorded in the output")
	flag.StringVar(&src.Path, "path", "", "the source's path in -repo, recorded in the output")
	flag.StringVar(&src.Commit, "commit", "", "the commit or version of -repo the source is from, recorded in the output")
	flag.Parse()
	if err := run(*format, *in, *out, strings.Split(*roots, ","), src); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

func run(format, in, out string, roots []string, src specs.Source) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("read %s: %w", in, err)
	}
	var s *specs.Schemas
	switch format {
	case "openapi":
		s, err = specs.FromOpenAPI(doc, roots, src)
	case "discovery":
		s, err = specs.FromDiscovery(doc, roots, src)
	default:
		return fmt.Errorf("unknown format %q: want openapi or discovery", format)
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
