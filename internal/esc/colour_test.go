package esc

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestColouredNotATerminal checks that into a buffer or a pipe the text
// goes to w as it comes, uncoloured, and that neither is a terminal.
func TestColouredNotATerminal(t *testing.T) {
	var b bytes.Buffer
	w, done := Coloured(NewWriter(&b), func(string) string { return "" }, strings.ToUpper)
	w.Write([]byte("faster\n"))
	if err := done(); err != nil || b.String() != "faster\n" {
		t.Errorf("into a buffer: %q, %v", b.String(), err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if IsTTY(&b) || IsTTY(pw) {
		t.Error("a buffer or a pipe taken for a terminal")
	}
}
