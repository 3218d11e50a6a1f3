// Command contend-plot draws contend result files with gonum/plot. It is
// the helper behind 'contend plot', kept out of the contend binary because
// gonum/plot's package initialisation (its fonts) would add about a
// millisecond to the start of every repetition child. Install it next to
// contend (make build, or go install ./cmd/...).
package main

import (
	"os"

	"contend/internal/plot"
)

func main() { os.Exit(plot.Main(os.Args[1:], os.Stderr)) }
