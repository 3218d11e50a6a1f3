package evidence

import (
	"math"
	"strings"
	"testing"
)

// A perf script excerpt of three samples (periods 1, 1 and 2 ms): the
// leaf is the first frame; a symbol twice on one stack counts once in
// children; an unnamed frame is named by its object.
const scriptSample = `contend 25140    1000000 
	ffffffff816193b5 folio_add_file_rmap_ptes+0x15 ([kernel.kallsyms])
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	           9431a runtime.open.abi0 (/work/bin/contend)

contend 25141    1000000 
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	           9431a runtime.open.abi0 (/work/bin/contend)

faultme 25142    2000000 
	    7f0012345678 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
	           9431a runtime.open.abi0 (/work/bin/contend)

`

func TestFoldScript(t *testing.T) {
	p, err := foldScript(strings.NewReader(scriptSample))
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 3 || p.Total != 4e6 {
		t.Fatalf("samples %d total %v, want 3 and 4e6", p.Samples, p.Total)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("self folio_add_file_rmap_ptes", p.Self["folio_add_file_rmap_ptes"], 25)
	near("self filemap_map_pages", p.Self["filemap_map_pages"], 25)
	near("self libc", p.Self["[unknown] (libc.so.6)"], 50)
	near("children filemap_map_pages", p.Children["filemap_map_pages"], 50) // once per sample
	near("children runtime.open.abi0", p.Children["runtime.open.abi0"], 100)
	if got := p.Folded["runtime.open.abi0;filemap_map_pages;folio_add_file_rmap_ptes"]; got != 1e6 {
		t.Errorf("folded stack = %v, want 1e6: %v", got, p.Folded)
	}
	if got := Top(p.Self, 25, 2); len(got) != 2 || got[0] != "[unknown] (libc.so.6)" || got[1] != "filemap_map_pages" {
		t.Errorf("Top = %v", got)
	}
}
