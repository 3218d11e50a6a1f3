// Package report renders comparisons (internal/comparison) for people and
// scripts: Write in the formats of CompareFormats (text: an 80-column mail
// with the headline, the sides, the table and its notes; markdown; csv;
// json; bench: the Go benchmark format for benchstat), HeadlineFor (the
// one line to paste into a mail) and the words of verdicts (VerdictWord,
// FormatP, ChangeCells), which the fleet report (internal/fleet) uses too.
package report
