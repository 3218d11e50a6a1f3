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
	"unicode"
	"unicode/utf8"
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
// README.md, docs/*.md and notes/*.md leads to a file.
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
		if names.pkg[m[1]] != nil && m[1] != "main" && !strings.Contains(m[2], "NAME") && !regexp.MustCompile(`^(go|c|h|md|sh|py|json|jsonl|txt|config)$`).MatchString(m[2]) {
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
	notes, _ := filepath.Glob("notes/*.md")
	for _, f := range append(append(docs, notes...), "README.md") {
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

// TestNoFragments: no paragraph of the README or of the manual's pages
// that took its text (docs/commands.md, docs/workloads.md) starts in lower
// case or with a closing parenthesis: such a paragraph is the second half
// of a sentence whose first half was lost (the README's "without), and the
// change is ..." after its output blocks were regenerated). Code blocks,
// headings, lists, tables, markers and images are not paragraphs.
func TestNoFragments(t *testing.T) {
	for _, f := range []string{"README.md", "docs/commands.md", "docs/workloads.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range fragments(string(b)) {
			t.Errorf("%s:%d: a paragraph starts mid-sentence: %q", f, p.line, p.text)
		}
	}
}

// fragment is a paragraph that starts mid-sentence, at line.
type fragment struct {
	line int
	text string
}

// lowerNames are the names written in lower case that may start a
// paragraph.
var lowerNames = map[string]bool{"contend": true, "faultme": true, "osim": true, "semop-multi": true, "mutex": true, "will-it-scale": true, "sysbench": true, "jq": true, "perf": true}

// fragments returns the paragraphs of the Markdown text that start in
// lower case (but for a name of lowerNames) or with ")".
func fragments(text string) []fragment {
	var out []fragment
	fenced, prevBlank := false, true
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			prevBlank = false
			continue
		}
		if fenced {
			continue
		}
		first := prevBlank
		prevBlank = strings.TrimSpace(l) == ""
		if !first || prevBlank || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		r, _ := utf8.DecodeRuneInString(l)
		name := strings.TrimSuffix(strings.Fields(l)[0], "'s")
		if (unicode.IsLower(r) && !lowerNames[strings.TrimRight(name, ",.:;")]) || r == ')' {
			out = append(out, fragment{i + 1, l})
		}
	}
	return out
}

// TestFragmentsFindsTheLostHalf: the check sees the README's old fragment
// and lets a sentence that only continues after an example pass when it
// starts as a sentence.
func TestFragmentsFindsTheLostHalf(t *testing.T) {
	text := "Intro.\n\n<!-- end -->\n\nwithout), and the change is somewhere between\n\n)\n\ncontend runs on Linux.\n\nThe patch is faster, p = 2/126 (no run\nwithout), and the change is\n\n    contend run x\n\n(`kernel.x` stands for the knob.)\n\n- a list\n\n| a | table |\n"
	got := fragments(text)
	if len(got) != 2 || got[0].line != 5 || got[1].line != 7 {
		t.Errorf("fragments = %+v, want lines 5 and 7", got)
	}
}
