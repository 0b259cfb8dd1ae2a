// Package apicheck type-checks snippets of Go code against the module's
// packages, read from source, for tests that a wrong use of an API does
// not compile: an option given to a stage that does not take it, a name
// kept out of a package's API.
package apicheck

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// Run type-checks each case's Code as the body of a function with params
// (such as "p *input.Pipeline") in a file importing imports, and reports
// a case that compiles when Want is not empty, or fails without Want in
// its errors, or fails when Want is empty. Packages are read from source from
// the test's directory, which must be inside the module.
func Run(t *testing.T, imports []string, params string, cases []struct{ Code, Want string }) {
	t.Helper()
	if testing.Short() {
		t.Skip("type-checks packages from source")
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	var header strings.Builder
	header.WriteString("package snippet\n\nimport (\n")
	for _, path := range imports {
		fmt.Fprintf(&header, "\t%q\n", path)
	}
	header.WriteString(")\n")
	for i, c := range cases {
		src := fmt.Sprintf("%s\nfunc f(%s) {\n\t%s\n}\n", header.String(), params, c.Code)
		// A file name in the test's directory lets the importer resolve
		// the module's packages.
		name, _ := filepath.Abs(fmt.Sprintf("snippet%d.go", i))
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.Code, err)
		}
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			// A snippet need not use every import.
			if !strings.Contains(err.Error(), "imported and not used") {
				errs = append(errs, err.Error())
			}
		}}
		conf.Check("snippet", fset, []*ast.File{f}, nil)
		got := strings.Join(errs, "\n")
		switch {
		case c.Want == "" && len(errs) > 0:
			t.Errorf("%s\ndoes not compile: %s", c.Code, got)
		case c.Want != "" && len(errs) == 0:
			t.Errorf("%s\ncompiles; want an error containing %q", c.Code, c.Want)
		case c.Want != "" && !strings.Contains(got, c.Want):
			t.Errorf("%s\nfails with %s\nwant an error containing %q", c.Code, got, c.Want)
		}
	}
}
