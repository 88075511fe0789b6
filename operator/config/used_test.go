package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/config"
)

// readThrough are the Options fields the rest of the operator reads through a method of the
// package (the method's name), not by name.
var readThrough = map[string]string{
	"SnapshotAllowedPathPrefixes": "SnapshotPathPrefixes",
	// The caps are applied to the limits they cap when the options are read.
	"SavepointHistoryMaxCountThreshold": "SavepointHistoryMaxCount",
	"SavepointHistoryMaxAgeThreshold":   "SavepointHistoryMaxAge",
}

// TestEveryParsedOptionIsUsed: each field of Options, which an option marked read fills, is
// read somewhere outside this package (by its name, or by the method readThrough names), in
// code that is not a test. An option parsed and then ignored would be marked read in
// docs/configuration.md while doing nothing.
func TestEveryParsedOptionIsUsed(t *testing.T) {
	root := fixtures.MustModuleRoot(t)
	used := selectorsOutside(t, root, filepath.Join(root, "operator", "config"))
	typ := reflect.TypeOf(config.Options{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if via, ok := readThrough[name]; ok {
			name = via
		}
		if !used[name] {
			t.Errorf("Options.%s is parsed but nothing outside operator/config reads it", typ.Field(i).Name)
		}
	}
}

// selectorsOutside are the names selected (x.Name) in the module's non-test Go files outside
// dir.
func selectorsOutside(t *testing.T, root, dir string) map[string]bool {
	t.Helper()
	used := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (path == dir || strings.HasPrefix(d.Name(), ".") || d.Name() == "bin" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				used[s.Sel.Name] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}
