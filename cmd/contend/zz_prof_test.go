package main

import (
	"io"
	"os"
	"testing"
)

func TestZZProfCompare(t *testing.T) {
	Main([]string{"contend", "compare", "/tmp/tf/data/a.json", "/tmp/tf/data/b.json"}, io.Discard, os.Stderr)
}
func TestZZProfImport(t *testing.T) {
	Main([]string{"contend", "import", "-q", "--metric", `time=took (\d+) ns:ns:lower`, "--out", "/tmp/tf/data/c.json", "/tmp/tf/data/a.log"}, io.Discard, os.Stderr)
}
