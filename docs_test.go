package contend

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goNames indexes the Go identifiers of the module: per package name
// (the package clause: run, harness, results, ...), the top-level names,
// the methods and fields as Type.Name, and, in all, every one of them.
type goNames struct {
	pkg  map[string]map[string]bool
	all  map[string]bool
	file map[string]bool  // base names of every file in the repository
	text *strings.Builder // every Go file, shell script and Makefile
}

func indexGo(t *testing.T) goNames {
	t.Helper()
	n := goNames{pkg: map[string]map[string]bool{}, all: map[string]bool{}, file: map[string]bool{}, text: &strings.Builder{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		n.file[d.Name()] = true
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sh") || d.Name() == "Makefile" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n.text.Write(b)
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		p := strings.TrimSuffix(f.Name.Name, "_test")
		if n.pkg[p] == nil {
			n.pkg[p] = map[string]bool{}
		}
		add := func(s string) { n.pkg[p][s], n.all[s] = true, true }
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 {
					add(recvName(d.Recv.List[0].Type) + "." + d.Name.Name)
				}
				add(d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						add(s.Name.Name)
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, fn := range fl.Names {
									add(s.Name.Name + "." + fn.Name)
									n.all[fn.Name] = true
								}
							}
						}
						if it, ok := s.Type.(*ast.InterfaceType); ok {
							for _, m := range it.Methods.List {
								for _, mn := range m.Names {
									add(s.Name.Name + "." + mn.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, vn := range s.Names {
							add(vn.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// TestHackingNames: every file path and Go identifier that
// docs/HACKING.md names in backquotes exists (a name with the NAME
// placeholder is a pattern, not checked), and every relative link of
// README.md and docs/*.md leads to a file.
func TestHackingNames(t *testing.T) {
	text, err := os.ReadFile("docs/HACKING.md")
	if err != nil {
		t.Fatal(err)
	}
	names := indexGo(t)
	cNames, _ := filepath.Glob("native/*.[ch]")
	var csrc strings.Builder
	for _, f := range cNames {
		b, _ := os.ReadFile(f)
		csrc.Write(b)
	}
	pathRe := regexp.MustCompile(`^[\w.-]+(/[\w.*-]*)+$|^[\w.-]+\.(go|c|h|sh|py|md|yml|ini|stdout)$`)
	identRe := regexp.MustCompile(`^([A-Za-z_]\w*(\.[A-Za-z_]\w*)*)(\(\)|\(\.\.\.\)|\{\.\.\.\})?$`)
	checked := 0
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(text), -1) {
		s := m[1]
		if strings.Contains(s, "NAME") {
			continue
		}
		switch {
		case pathRe.MatchString(s):
			checked++
			if !strings.Contains(s, "/") {
				if !names.file[s] {
					t.Errorf("docs/HACKING.md names `%s`: no file of that name in the repository", s)
				}
				continue
			}
			if strings.Contains(s, "*") {
				if g, _ := filepath.Glob(s); len(g) == 0 {
					t.Errorf("docs/HACKING.md names `%s`: nothing matches", s)
				}
				continue
			}
			if _, err := os.Stat(strings.TrimSuffix(s, "/")); err != nil {
				t.Errorf("docs/HACKING.md names `%s`: %v", s, err)
			}
		case identRe.MatchString(s):
			id := identRe.FindStringSubmatch(s)[1]
			parts := strings.Split(id, ".")
			switch {
			case parts[0] == "C":
				// cgo's names are C's.
			case regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`).MatchString(id):
				// An environment variable or a C constant: read somewhere.
				checked++
				if !strings.Contains(names.text.String(), id) && !strings.Contains(csrc.String(), id) {
					t.Errorf("docs/HACKING.md names `%s`: no source reads it", s)
				}
			case strings.HasPrefix(id, "ct_"):
				checked++
				if !strings.Contains(csrc.String(), id) {
					t.Errorf("docs/HACKING.md names `%s`: not in native/", s)
				}
			case len(parts) == 1:
				// A bare word is checked when it looks like Go: exported,
				// or camelCase (doJob); "nop" or "abba" are words.
				if id == strings.ToLower(id) {
					continue
				}
				checked++
				if !names.all[id] {
					t.Errorf("docs/HACKING.md names `%s`: no such Go identifier", s)
				}
			case names.pkg[parts[0]] != nil && len(parts) <= 3:
				checked++
				if !names.pkg[parts[0]][strings.Join(parts[1:], ".")] {
					t.Errorf("docs/HACKING.md names `%s`: package %s has no %s", s, parts[0], strings.Join(parts[1:], "."))
				}
			case len(parts) == 2 && names.all[parts[0]]:
				checked++
				if !names.all[id] {
					t.Errorf("docs/HACKING.md names `%s`: %s has no %s", s, parts[0], parts[1])
				}
			}
		}
	}
	// The picture is a code block, not backquoted: its pkg.Name words.
	for _, m := range regexp.MustCompile(`\b([a-z]+)\.([A-Za-z_]\w*)\b`).FindAllStringSubmatch(string(text), -1) {
		if names.pkg[m[1]] != nil && m[1] != "main" && !strings.Contains(m[2], "NAME") && !regexp.MustCompile(`^(go|c|h|md|sh|py|json|jsonl|txt)$`).MatchString(m[2]) {
			checked++
			if !names.pkg[m[1]][m[2]] {
				t.Errorf("docs/HACKING.md names %s.%s: package %s has no %s", m[1], m[2], m[1], m[2])
			}
		}
	}
	if checked < 150 {
		t.Errorf("checked only %d names of docs/HACKING.md: the patterns no longer see them", checked)
	}
	t.Logf("%d names of docs/HACKING.md checked", checked)

	docs, _ := filepath.Glob("docs/*.md")
	for _, f := range append(docs, "README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`).FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), m[1])); err != nil {
				t.Errorf("%s links to %s: %v", f, m[1], err)
			}
		}
	}
}

// TestReadmeOutputsFormat: the README's output blocks are those
// scripts/readme-outputs.sh writes (names, order, stamp, commands,
// indentation), whatever figures they hold.
func TestReadmeOutputsFormat(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command("bash", "scripts/readme-outputs.sh", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/readme-outputs.sh --check: %v\n%s", err, out)
	}
}
