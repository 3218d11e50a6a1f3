package plot

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgFontStack is the font-family an SVG's text asks for: the font the
// layout was measured with (gonum/plot's Liberation Serif, which is not
// embedded), the fonts with the same metrics (Times New Roman, Tinos,
// Times), then any serif.
const svgFontStack = `'Liberation Serif', 'Times New Roman', Tinos, Times, serif`

// svgCanvas is gonum/plot's SVG canvas whose text degrades where Liberation
// Serif is not installed: every <text> element names svgFontStack and has
// the width the layout gave it (textLength, with lengthAdjust
// spacingAndGlyphs), so a wider fallback font is squeezed into the space
// measured for it instead of running past the legend's box or the image's
// edge.
type svgCanvas struct {
	*vgsvg.Canvas
	widths []vg.Length // of each FillString, in order
}

// FillString draws str as vgsvg does and records its measured width.
func (c *svgCanvas) FillString(f font.Face, pt vg.Point, str string) {
	c.widths = append(c.widths, f.Width(str))
	c.Canvas.FillString(f, pt, str)
}

// WriteTo writes the SVG with each text element's font stack and width.
func (c *svgCanvas) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := c.Canvas.WriteTo(&buf); err != nil {
		return 0, err
	}
	b, err := fixSVGText(buf.Bytes(), c.widths)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// fixSVGText gives the i-th <text> element of svg the width widths[i] and
// svgFontStack in place of the one family vgsvg names.
func fixSVGText(svg []byte, widths []vg.Length) ([]byte, error) {
	parts := bytes.Split(svg, []byte("<text "))
	if len(parts)-1 != len(widths) {
		return nil, fmt.Errorf("svg: %d text elements for %d strings drawn", len(parts)-1, len(widths))
	}
	var out bytes.Buffer
	out.Grow(len(svg) + len(widths)*96)
	out.Write(parts[0])
	for i, p := range parts[1:] {
		fmt.Fprintf(&out, `<text textLength="%.4g" lengthAdjust="spacingAndGlyphs" `, widths[i].Points())
		end := bytes.IndexByte(p, '>')
		if end < 0 {
			return nil, fmt.Errorf("svg: text element %d not closed", i+1)
		}
		attrs := string(p[:end])
		if j := strings.Index(attrs, "font-family:"); j >= 0 {
			k := strings.IndexByte(attrs[j:], ';')
			if k < 0 {
				return nil, fmt.Errorf("svg: text element %d: font-family not ended", i+1)
			}
			attrs = attrs[:j] + "font-family:" + svgFontStack + attrs[j+k:]
		}
		out.WriteString(attrs)
		out.Write(p[end:])
	}
	return out.Bytes(), nil
}
