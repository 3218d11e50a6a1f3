// Package report renders comparisons (internal/comparison) for people and
// scripts: Write in the formats of CompareFormats (text: an 80-column mail
// with the headline, the sides, the table and its notes; markdown; csv;
// json; bench: the Go benchmark format for benchstat), HeadlineFor (the
// one line to paste into a mail), the words of verdicts (VerdictWord),
// the run summary of one result file (Summary, the kernel evidence
// section), the verify report (WriteVerify, Equivalence's words) and the
// fleet report (BuildFleet, FleetReport.Write).
package report
