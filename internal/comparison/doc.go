// Package comparison is the comparison of result files: the model that
// every renderer of 'contend compare' (internal/report: text, markdown,
// csv, json, bench; the fleet) reads, and that other formats adapt.
//
// Build takes the sides (each a list of Parts: a result file and the
// configurations selected in it) and Options (level, noise band, test,
// metrics, Holm families, boot cost) and returns a *Comparison:
//
//	c, err := comparison.Build([]comparison.Side{a, b}, comparison.Options{})
//	for _, p := range c.Pairs {          // each side after the first against the first
//		for _, row := range p.Rows {     // one metric: c.Headline's row first
//			row.Metric.Name, row.Metric.Unit // the metric
//			row.Identical                    // every value the same: not tested, Cmp nil
//			row.NA, row.NB, row.MedianA, row.MedianB // counts and medians, with or without Cmp
//			row.Cmp.SummaryA.Median, row.Cmp.SummaryB.Median
//			row.Cmp.Estimate, row.Cmp.ChangeLo, row.Cmp.ChangeHi // HL change B/A-1 and its interval
//			row.Cmp.AdjustedP, row.Cmp.Verdict                   // Holm-adjusted p, the verdict
//		}
//	}
//
// c.Sides[i] holds each side's name, parts and counts and its values
// (Values); the rest of Comparison is what the reports say beside the
// table: differences of parameters and environment, outliers, the checks
// between the files of a pooled side, the boot level (when the sides span
// boots, BootUnit: the boot is the unit of the verdicts, BootRowOf), the
// evidence metrics only some sides have. Each PairReport carries its unit
// of replication and its instability, each BootRow its centres, and
// Comparison.PerBoot the per-boot table: Build computes every number a
// report prints, before any is printed, as benchstat computes its table
// before rendering it. The package decides and computes; it writes
// nothing, and the renderers compute nothing (the words of a verdict,
// such as report.VerdictWord, are the renderers').
package comparison
