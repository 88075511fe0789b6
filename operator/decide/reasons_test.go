package decide_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	"github.com/flinkop/flinkop/operator/decide"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/events.md")

// reasonsInSource finds the Event reasons the operator's code names: the argument named reason
// (or errReason) of any call to a function or interface method declared in operator/ with
// such a parameter, and the Reason of an Event literal, when it is a string literal or a
// string constant. It returns each reason with where it is named; a reason built at run time
// (reason+"Error") is left to the harness, which checks every Event a scenario records.
func reasonsInSource(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		files = append(files, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	consts, reasonArg := declarations(files)
	found := map[string][]string{}
	for _, e := range reasonExprs(files, reasonArg) {
		var vals []string
		switch x := e.(type) {
		case *ast.BasicLit:
			if v, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING {
				vals = []string{v}
			}
		case *ast.Ident:
			vals = consts[x.Name]
		case *ast.SelectorExpr:
			vals = consts[x.Sel.Name]
		}
		for _, v := range vals {
			found[v] = append(found[v], fset.Position(e.Pos()).String())
		}
	}
	return found
}

// signature is where a function's reason parameter is: its index, and the function's arity.
type signature [2]int

// declarations returns the string constants of files (name → values) and, for each function
// or interface method with a parameter named reason or errReason, its signatures.
func declarations(files []*ast.File) (map[string][]string, map[string][]signature) {
	consts := map[string][]string{}
	reasonArg := map[string][]signature{}
	params := func(name string, ft *ast.FuncType) {
		if sig, ok := reasonParam(ft); ok && !slices.Contains(reasonArg[name], sig) {
			reasonArg[name] = append(reasonArg[name], sig)
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if lit, ok := valueAt(x.Values, i).(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						consts[name.Name] = append(consts[name.Name], v)
					}
				}
			case *ast.FuncDecl:
				params(x.Name.Name, x.Type)
			case *ast.InterfaceType:
				for _, m := range x.Methods.List {
					if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
						params(m.Names[0].Name, ft)
					}
				}
			}
			return true
		})
	}
	return consts, reasonArg
}

// reasonParam is where ft's parameter named reason or errReason is, if it has one.
func reasonParam(ft *ast.FuncType) (signature, bool) {
	i := 0
	for _, f := range ft.Params.List {
		for _, n := range f.Names {
			if n.Name == "reason" || n.Name == "errReason" {
				return signature{i, ft.Params.NumFields()}, true
			}
			i++
		}
	}
	return signature{}, false
}

func valueAt(values []ast.Expr, i int) ast.Expr {
	if i < len(values) {
		return values[i]
	}
	return nil
}

// reasonExprs returns the expressions files pass as a reason: to a function or method of
// reasonArg, or as an Event literal's Reason.
func reasonExprs(files []*ast.File, reasonArg map[string][]signature) []ast.Expr {
	var out []ast.Expr
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				for _, at := range reasonArg[nameOf(x.Fun)] {
					if len(x.Args) == at[1] {
						out = append(out, x.Args[at[0]])
					}
				}
			case *ast.CompositeLit:
				if nameOf(x.Type) != "Event" {
					return true
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok && nameOf(kv.Key) == "Reason" {
						out = append(out, kv.Value)
					}
				}
			}
			return true
		})
	}
	return out
}

// nameOf is the name an identifier or a selector (pkg.Name, x.Method) ends with.
func nameOf(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// TestEveryReasonIsCatalogued: every Event reason the operator's code names is in
// decide.Reasons, and every catalogued reason is named in the code (or built at run time from
// one that is: the nonce Events' "Savepoint"/"Checkpoint" + "Triggered"/"Error").
func TestEveryReasonIsCatalogued(t *testing.T) {
	found := reasonsInSource(t)
	if len(found) < 50 {
		t.Fatalf("found only %d reasons in the source: the scan is broken", len(found))
	}
	for reason, where := range found {
		if !decide.KnownReason(reason) {
			t.Errorf("reason %q (%s) is not in decide.Reasons", reason, strings.Join(where, ", "))
		}
	}
	for _, r := range decide.Reasons {
		if _, named := found[r.Name]; !named {
			t.Errorf("catalogued reason %q is named nowhere in the operator's code", r.Name)
		}
	}
	if !slices.IsSortedFunc(decide.Reasons, func(a, b decide.Reason) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("decide.Reasons is not sorted by name (KnownReason searches it)")
	}
	for _, r := range decide.Reasons {
		if r.Type != decide.Normal && r.Type != decide.Warning || r.On == "" || r.Meaning == "" {
			t.Errorf("catalogue entry %+v: want a type, where it is recorded and a meaning", r)
		}
	}
}

// TestKnownReason: the catalogue's reasons and the kubelet's pod reasons are known, others not.
func TestKnownReason(t *testing.T) {
	for reason, want := range map[string]bool{
		"SpecChanged": true, "ValidationError": true, "CrashLoopBackOff": true, "OOMKilled": true,
		"": false, "Specchanged": false, "Unheard": false,
	} {
		if got := decide.KnownReason(reason); got != want {
			t.Errorf("KnownReason(%q) = %v, want %v", reason, got, want)
		}
	}
}

const beginEvents = "<!-- BEGIN generated by operator/decide.ReasonsMarkdown: go test ./operator/decide -run TestEventsDoc -update -->\n"

// TestEventsDoc: docs/events.md lists the catalogue as it is.
func TestEventsDoc(t *testing.T) {
	fixtures.CheckGenerated(t, "../../docs/events.md", beginEvents, decide.ReasonsMarkdown(), *update,
		"run go test ./operator/decide -run TestEventsDoc -update")
}
