package bisect

// Prob formats a probability as the search's reports do: three
// decimals, "> 0.999" and "< 0.001" at the edges (a regression report
// quotes the culprit's so, internal/lkmlreport).
func Prob(p float64) string { return prob(p) }
