package plot

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSVGTextDegrades: an SVG plot does not depend on Liberation Serif
// being installed (gonum/plot names it without embedding it, and a wider
// fallback font ran the legend past the image's edge): every text element
// asks for a font stack ending in the generic serif and carries the width
// the layout measured (textLength, spacingAndGlyphs), and each legend entry
// ends inside the image.
func TestSVGTextDegrades(t *testing.T) {
	dir := t.TempDir()
	in := []Input{
		{Path: "a.json", File: sweepFile("a label long enough to reach the edge of the legend", "6.1.0-rt", 1e6, 3)},
		{Path: "b.json", File: sweepFile("b", "6.2.0", 1.3e6, 3)},
	}
	for _, draw := range []struct {
		name string
		in   []Input
	}{{"curves", in}, {"samples", []Input{{Path: "r.json", File: runFile("a run label that is long as well", 1e6, 8)}}}} {
		out := filepath.Join(dir, draw.name+".svg")
		if err := Draw(out, draw.in, Options{}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(strings.NewReader(string(b)))
		var width float64
		texts := 0
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			attr := map[string]string{}
			for _, a := range se.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch se.Name.Local {
			case "svg":
				f := strings.Fields(attr["viewBox"])
				if len(f) == 4 {
					width, _ = strconv.ParseFloat(f[2], 64)
				}
			case "text":
				texts++
				content, _ := d.Token()
				cd, _ := content.(xml.CharData)
				tl, err := strconv.ParseFloat(attr["textLength"], 64)
				if err != nil || tl <= 0 || attr["lengthAdjust"] != "spacingAndGlyphs" {
					t.Errorf("%s: text %q: textLength %q, lengthAdjust %q", draw.name, cd, attr["textLength"], attr["lengthAdjust"])
				}
				if !strings.Contains(attr["style"], "font-family:"+svgFontStack+";") || strings.Contains(attr["style"], "font-family:Liberation Serif;") {
					t.Errorf("%s: text %q: style %q, want the font stack %s", draw.name, cd, attr["style"], svgFontStack)
				}
				if strings.Contains(string(cd), "label") {
					x, _ := strconv.ParseFloat(attr["x"], 64)
					if x+tl > width {
						t.Errorf("%s: legend entry %q ends at %.1f, past the width %.1f", draw.name, cd, x+tl, width)
					}
				}
			}
		}
		if texts < 5 || width == 0 {
			t.Errorf("%s: %d texts, width %v", draw.name, texts, width)
		}
	}
	if _, err := fixSVGText([]byte("<svg><text x=\"1\">a</text></svg>"), nil); err == nil {
		t.Errorf("fixSVGText took 1 text element for 0 widths")
	}
}
