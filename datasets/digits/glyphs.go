package digits

import (
	"image"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomediumitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// canvas is the side of the square a glyph is rasterised on.
const canvas = 48

// A glyph is one digit of one face as ink coverage in [0, 1] on a
// canvas×canvas grid, in three stroke weights, with the geometry the warp
// needs to size and centre it as MNIST does (by bounding box and centre of
// mass).
type glyph struct {
	thin, normal, thick []float32
	cx, cy              float64 // centre of mass
	height              float64 // of the bounding box
	width               float64
}

var (
	glyphsOnce sync.Once
	glyphSets  [][10]glyph // one set of ten digits per face
	glyphsErr  error
)

// loadGlyphs rasterises the digits of every face once per process.
func loadGlyphs() ([][10]glyph, error) {
	glyphsOnce.Do(func() {
		ttfs := [][]byte{
			goregular.TTF, gobold.TTF, goitalic.TTF, gobolditalic.TTF,
			gomedium.TTF, gomediumitalic.TTF,
			gomono.TTF, gomonobold.TTF, gomonoitalic.TTF, gomonobolditalic.TTF,
		}
		faces := []font.Face{basicfont.Face7x13} // a pixel font, scaled up like the rest
		for _, ttf := range ttfs {
			f, err := opentype.Parse(ttf)
			if err != nil {
				glyphsErr = err
				return
			}
			face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 30, DPI: 72, Hinting: font.HintingNone})
			if err != nil {
				glyphsErr = err
				return
			}
			faces = append(faces, face)
		}
		for i, face := range faces {
			var set [10]glyph
			for d := range 10 {
				set[d] = rasterise(face, rune('0'+d), i > 0)
			}
			glyphSets = append(glyphSets, set)
		}
	})
	return glyphSets, glyphsErr
}

// rasterise draws r roughly centred on the canvas and measures it. A pixel
// font's one-pixel strokes cannot be eroded, so erode is false for it.
func rasterise(face font.Face, r rune, erode bool) glyph {
	dst := image.NewAlpha(image.Rect(0, 0, canvas, canvas))
	b, _, _ := face.GlyphBounds(r)
	w, h := (b.Max.X - b.Min.X).Ceil(), (b.Max.Y - b.Min.Y).Ceil()
	d := &font.Drawer{Dst: dst, Src: image.Opaque, Face: face,
		Dot: fixed.P((canvas-w)/2-b.Min.X.Floor(), (canvas-h)/2-b.Min.Y.Floor())}
	d.DrawString(string(r))

	g := glyph{normal: make([]float32, canvas*canvas)}
	var mass, sx, sy float64
	minX, minY, maxX, maxY := canvas, canvas, -1, -1
	for y := range canvas {
		for x := range canvas {
			a := float64(dst.Pix[y*dst.Stride+x]) / 255
			g.normal[y*canvas+x] = float32(a)
			if a > 0.1 {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
			mass += a
			sx += float64(a * (float64(x) + 0.5)) // not fused: see generate.go's draw
			sy += float64(a * (float64(y) + 0.5))
		}
	}
	g.cx, g.cy = sx/mass, sy/mass
	g.width, g.height = float64(maxX-minX+1), float64(maxY-minY+1)
	// Stroke weight: a pixel font's strokes are one pixel wide, so its
	// morphology is scaled with it by the warp; for outline faces one
	// canvas pixel is about a third of an output pixel.
	g.thick = morph(g.normal, func(a, b float32) float32 { return max(a, b) })
	g.thin = g.normal
	if erode {
		g.thin = morph(g.normal, func(a, b float32) float32 { return min(a, b) })
	}
	return g
}

// morph applies a 3×3 max (dilation) or min (erosion) filter.
func morph(src []float32, op func(a, b float32) float32) []float32 {
	dst := make([]float32, len(src))
	for y := range canvas {
		for x := range canvas {
			v := src[y*canvas+x]
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					var n float32
					if xx >= 0 && yy >= 0 && xx < canvas && yy < canvas {
						n = src[yy*canvas+xx]
					}
					v = op(v, n)
				}
			}
			dst[y*canvas+x] = v
		}
	}
	return dst
}

// sample returns img at (x, y) in canvas pixels by bilinear interpolation,
// 0 outside.
func sample(img []float32, x, y float64) float32 {
	x -= 0.5
	y -= 0.5
	fx0, fy0 := math.Floor(x), math.Floor(y)
	x0, y0 := int(fx0), int(fy0)
	if x0 < -1 || y0 < -1 || x0 >= canvas || y0 >= canvas {
		return 0
	}
	fx, fy := float32(x-fx0), float32(y-fy0)
	at := func(x, y int) float32 {
		if uint(x) >= canvas || uint(y) >= canvas {
			return 0
		}
		return img[y*canvas+x]
	}
	// Not fused: see generate.go's draw.
	top := at(x0, y0) + float32((at(x0+1, y0)-at(x0, y0))*fx)
	bot := at(x0, y0+1) + float32((at(x0+1, y0+1)-at(x0, y0+1))*fx)
	return top + float32((bot-top)*fy)
}
