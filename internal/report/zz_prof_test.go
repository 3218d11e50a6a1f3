package report

import (
	"io"
	"os"
	"testing"

	"contend/internal/results"
)

func BenchmarkZZCompareFiles(b *testing.B) {
	if os.Getenv("ZZA") == "" {
		b.Skip()
	}
	for i := 0; i < b.N; i++ {
		fa, err := results.Read(os.Getenv("ZZA"), results.WithoutOutputs, results.AsColumns)
		if err != nil {
			b.Fatal(err)
		}
		fb, err := results.Read(os.Getenv("ZZB"), results.WithoutOutputs, results.AsColumns)
		if err != nil {
			b.Fatal(err)
		}
		if err := Compare(io.Discard, []Side{FileSide("a", fa), FileSide("b", fb)}, CompareOptions{}, "text"); err != nil {
			b.Fatal(err)
		}
	}
}
