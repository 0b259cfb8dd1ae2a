package decode

import "image"

// A window is the part of an image a conversion writes, and where: the
// cols × rows pixels from (x0, y0) go to the output's pixel (dx, dy), in
// rows of stride pixels.
type window struct {
	x0, y0, cols, rows int
	dx, dy, stride     int
}

// whole is the window of all of a w × h image, into an output of its size.
func whole(w, h int) window { return window{cols: w, rows: h, stride: w} }

// writeYCbCr converts the window win of a decoded JPEG to pixels as
// libjpeg does for TensorFlow, so that only the inverse DCT's rounding
// could separate the two: subsampled chroma is upsampled with libjpeg's
// "fancy" triangle filter (3/4 of the nearer sample, 1/4 of the farther,
// in each subsampled direction, edges replicated) rather than Go's
// replication, and YCbCr becomes RGB with libjpeg's 16-bit fixed-point
// tables. A gray output is the luma plane, which is what libjpeg gives for
// a color JPEG. Chroma is upsampled from the whole image, so that a
// window's pixels are those of the whole image's conversion.
func writeYCbCr(m *image.YCbCr, px *pixelWriter, win window) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	row := func(y int) []uint8 { // luma of the window's row y, and px at its place
		px.i = ((win.dy+y)*win.stride + win.dx) * px.channels
		at := (win.y0+y)*m.YStride + win.x0
		return m.Y[at : at+win.cols]
	}
	if px.channels == 1 {
		for y := range win.rows {
			for _, v := range row(y) {
				px.gray(v, 255)
			}
		}
		return
	}
	hx, vy := 1, 1 // horizontal and vertical subsampling factors
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hx = 2
	case image.YCbCrSubsampleRatio420:
		hx, vy = 2, 2
	case image.YCbCrSubsampleRatio440:
		vy = 2
	case image.YCbCrSubsampleRatio444:
	default: // 4:1:1 and 4:1:0: Go's own conversion
		for y := range win.rows {
			row(y)
			for x := range win.cols {
				c := m.YCbCrAt(b.Min.X+win.x0+x, b.Min.Y+win.y0+y)
				r, g, bl, _ := c.RGBA()
				px.rgba(uint8(r>>8), uint8(g>>8), uint8(bl>>8), 255)
			}
		}
		return
	}
	cw, ch := (w+hx-1)/hx, (h+vy-1)/vy
	cb := make([]uint8, w)
	cr := make([]uint8, w)
	sums := make([]int32, cw)
	for y := range win.rows {
		upsampleRow(cb, m.Cb, m.CStride, cw, ch, win.y0+y, hx, vy, sums)
		upsampleRow(cr, m.Cr, m.CStride, cw, ch, win.y0+y, hx, vy, sums)
		luma := row(y)
		cb, cr := cb[win.x0:win.x0+len(luma)], cr[win.x0:win.x0+len(luma)]
		if px.channels != 3 {
			for x, yv := range luma {
				r, g, bl := libjpegRGB(yv, cb[x], cr[x])
				px.rgba(r, g, bl, 255)
			}
			continue
		}
		// RGB, the common case, written directly.
		out := px.out[px.i : px.i+3*len(luma)]
		for x, yv := range luma {
			o := out[3*x : 3*x+3 : 3*x+3]
			o[0], o[1], o[2] = libjpegRGB(yv, cb[x], cr[x])
		}
		px.i += 3 * len(luma)
	}
}

// upsampleRow fills dst with the full-resolution chroma of image row y
// from plane (cw × ch samples at stride), as libjpeg's h2v1, h1v2 and
// h2v2 fancy upsamplers compute it, including their alternating rounding.
// sums is scratch room for cw column sums.
func upsampleRow(dst, plane []uint8, stride, cw, ch, y, hx, vy int, sums []int32) {
	cy := y / vy
	near := plane[cy*stride : cy*stride+cw]
	if vy == 2 {
		// The vertical step: 3·nearer row + farther row, edges
		// replicated.
		fy := cy - 1
		if y%2 == 1 {
			fy = cy + 1
		}
		fy = min(max(fy, 0), ch-1)
		far := plane[fy*stride : fy*stride+cw]
		sums = sums[:cw]
		for i := range sums {
			sums[i] = 3*int32(near[i]) + int32(far[i])
		}
	}
	switch {
	case hx == 1 && vy == 1:
		copy(dst, near)
	case hx == 1:
		// h1v2: (3·near + far + 1 or 2) >> 2, as libjpeg-turbo.
		bias := int32(1)
		if y%2 == 1 {
			bias = 2
		}
		for x := range dst {
			dst[x] = uint8((sums[x] + bias) >> 2)
		}
	case vy == 1:
		// h2v1: (3·this + neighbour + 1 or 2) >> 2; the outer halves of
		// the edge samples are the samples themselves.
		for i := range cw {
			this := int(near[i])
			left, right := this, this
			lb, rb := 1, 2
			if i > 0 {
				left = int(near[i-1])
			} else {
				lb = 2
			}
			if i < cw-1 {
				right = int(near[i+1])
			} else {
				rb = 1
			}
			if 2*i < len(dst) {
				dst[2*i] = uint8((3*this + left + lb) >> 2)
			}
			if 2*i+1 < len(dst) {
				dst[2*i+1] = uint8((3*this + right + rb) >> 2)
			}
		}
	default:
		// h2v2, horizontally over the column sums (scaled by 4): 3·this
		// + neighbour. Inner samples first, without edge tests.
		last := cw - 1
		for i := 1; i < last && 2*i+1 < len(dst); i++ {
			this := 3 * sums[i]
			dst[2*i] = uint8((this + sums[i-1] + 8) >> 4)
			dst[2*i+1] = uint8((this + sums[i+1] + 7) >> 4)
		}
		for _, i := range [2]int{0, last} {
			this := sums[i]
			left, right := this, this
			if i > 0 {
				left = sums[i-1]
			}
			if i < last {
				right = sums[i+1]
			}
			if 2*i < len(dst) {
				dst[2*i] = uint8((3*this + left + 8) >> 4)
			}
			if 2*i+1 < len(dst) {
				dst[2*i+1] = uint8((3*this + right + 7) >> 4)
			}
		}
	}
}

// libjpegRGB is libjpeg's YCbCr to RGB conversion: ITU-R BT.601 full range
// with 16-bit fixed-point constants and round-half-up. As libjpeg does, it
// looks the products up (ycc) and clamps by table (rangeLimit).
func libjpegRGB(y, cb, cr uint8) (uint8, uint8, uint8) {
	t := &ycc
	yy := int32(y) + 512
	r := rangeLimit[(yy+t.crR[cr])&1023]
	g := rangeLimit[(yy+(t.cbG[cb]+t.crG[cr])>>16)&1023]
	b := rangeLimit[(yy+t.cbB[cb])&1023]
	return r, g, b
}

// ycc holds libjpeg's conversion products for every Cb and Cr: the red and
// blue offsets rounded, and green's two terms, with the rounding, to be
// summed and then shifted as one.
var ycc = func() (t struct{ crR, cbB, crG, cbG [256]int32 }) {
	const (
		scale = 16
		half  = 1 << (scale - 1)
		crR   = 91881  // 1.40200 · 2^16
		cbB   = 116130 // 1.77200 · 2^16
		crG   = 46802  // 0.71414 · 2^16
		cbG   = 22554  // 0.34414 · 2^16
	)
	for i := range 256 {
		c := int32(i) - 128
		t.crR[i] = (crR*c + half) >> scale
		t.cbB[i] = (cbB*c + half) >> scale
		t.crG[i] = -crG*c + half
		t.cbG[i] = -cbG * c
	}
	return t
}()

// rangeLimit clamps v to 0..255 as rangeLimit[(v+512)&1023], for v in
// -512..511, which covers every sum libjpegRGB forms.
var rangeLimit = func() (t [1024]uint8) {
	for i := range t {
		t[i] = clamp8(int32(i) - 512)
	}
	return t
}()

func clamp8(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}
