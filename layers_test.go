package sluice

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The table of layers in ARCHITECTURE.md is the rule: a package imports
// only packages of its own layer or of layers below it, and every package
// that is not a test's helper has a row. Test files may import what they
// test from, and are not checked. The layers are ranked in the order
// the table first names them, so a row may name a layer again further down.
func TestLayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	rank, testOnly := readLayers(t, "ARCHITECTURE.md")
	// The files of every build the code has: this system's, another Unix
	// and one that is not Unix (their files for the other systems), and the
	// object-store build.
	var out []byte
	for _, build := range []struct{ goos, tags string }{
		{"", ""}, {"", "objectstore"}, {"darwin", ""}, {"windows", ""},
	} {
		cmd := exec.Command(goTool, "list", "-tags="+build.tags, "-json=ImportPath,Imports", "./...")
		if build.goos != "" {
			cmd.Env = append(os.Environ(), "GOOS="+build.goos)
		}
		o, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -tags=%s: %v", build.goos, build.tags, err)
		}
		out = append(out, o...)
	}
	const module = "github.com/sluiceml/sluice"
	local := func(path string) (string, bool) {
		if path == module {
			return "sluice", true
		}
		rel, ok := strings.CutPrefix(path, module+"/")
		return rel, ok
	}
	layerOf := func(pkg string) (int, bool) {
		// A package without a row of its own is of its parent's layer
		// (cmd/sluice-serve's files under it, bench's commands).
		for p := pkg; ; {
			if r, ok := rank[p]; ok {
				return r, true
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				return 0, false
			}
			p = p[:i]
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkg, _ := local(p.ImportPath)
		if testOnly[pkg] || strings.HasPrefix(pkg, "bench/") || strings.HasPrefix(pkg, "tools/") {
			continue // tests' helpers, benchmarks and tools import what they measure
		}
		r, ok := layerOf(pkg)
		if !ok {
			t.Errorf("%s has no row in ARCHITECTURE.md's table of layers", pkg)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := local(imp)
			if !ok {
				continue
			}
			if testOnly[dep] {
				t.Errorf("%s imports %s, which is for tests only", pkg, dep)
				continue
			}
			if d, ok := layerOf(dep); ok && d < r {
				t.Errorf("%s imports %s, a layer above it", pkg, dep)
			}
		}
	}
}

// readLayers returns the rank of each package the table of layers names
// (0 the top) and the packages the paragraphs after it name as tests'
// helpers ("for tests", "only tests import it").
func readLayers(t *testing.T, name string) (rank map[string]int, testOnly map[string]bool) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rank = make(map[string]int)
	testOnly = make(map[string]bool)
	var layers []string
	code := regexp.MustCompile("`([a-z0-9/_-]+)`")
	inTable, done := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case done:
		case strings.HasPrefix(line, "| layer |"):
			inTable = true
		case inTable && strings.HasPrefix(line, "|---"):
		case inTable && strings.HasPrefix(line, "| "):
			cells := strings.Split(line, "|")
			layer := strings.TrimSpace(cells[1])
			i := slices.Index(layers, layer)
			if i < 0 {
				i = len(layers)
				layers = append(layers, layer)
			}
			for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
				rank[m[1]] = i
			}
		case inTable:
			inTable = false
		case len(layers) > 0 && strings.HasPrefix(line, "## "):
			done = true
		case len(layers) > 0 && strings.Contains(line, "`internal/"):
			for _, m := range code.FindAllStringSubmatch(line, -1) {
				if strings.HasPrefix(m[1], "internal/") {
					testOnly[m[1]] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(layers) < 5 {
		t.Fatalf("%s: found %d layers in its table, want its table of layers", name, len(layers))
	}
	return rank, testOnly
}
