// Package nodetest finds what the tests that run Node.js programs need:
// node, and the packages of a lockfile installed beside it.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Node returns the path of node, once dir holds the npm package pkg
// (installed by npm ci from dir's lockfile). Without them the test skips,
// saying how to install them, unless TOOLREG_REQUIRE_NODE is set, as CI
// does: then it fails, so that CI never passes without running it.
func Node(t testing.TB, dir, pkg string) string {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		msg := why + "; to run this test, install Node.js 20 or later and run: cd " + fromRoot(dir) + " && npm ci"
		if os.Getenv("TOOLREG_REQUIRE_NODE") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
		missing("the node packages are not installed")
	}
	return node
}

// fromRoot is dir, relative to the package under test, as a path from the
// root of the module, where a reader of the message stands.
func fromRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for root := filepath.Dir(abs); ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil {
				return filepath.ToSlash(rel)
			}
			return dir
		}
		if root == filepath.Dir(root) {
			return dir
		}
	}
}
