package value

// NewLevel returns a pointer to the significance level x, the default value
// of a Level flag (new(Level(x)) needs Go 1.26; go.mod allows older).
func NewLevel(x float64) *Level {
	l := Level(x)
	return &l
}
