package decode

import (
	"image"
	"image/color"
)

// A window is the part of an image a conversion writes, and where: the
// cols × rows pixels from (x0, y0) go to the output's pixel (dx, dy), in
// rows of stride pixels.
type window struct {
	x0, y0, cols, rows int
	dx, dy, stride     int
}

// whole is the window of all of a w × h image, into an output of its size.
func whole(w, h int) window { return window{cols: w, rows: h, stride: w} }

// yccPlane is one component of a three-component JPEG: samples at 1/hx
// of the image's width and 1/vy of its height (libjpeg's h_expand and
// v_expand, the largest sampling factor over the component's), in rows of
// stride bytes.
type yccPlane struct {
	pix            []uint8
	stride, hx, vy int
}

// jpegYCbCr is a decoded three-component JPEG whose sampling factors
// image.YCbCr cannot represent: luma below the largest factors (Y 1×1 with
// chroma 2×2), chroma of two samplings, or luma 1×4 and 2×4. Its pixels are
// writeYCC's; At, which only the image.Image interface asks for, replicates
// the samples.
type jpegYCbCr struct {
	planes [3]yccPlane
	rect   image.Rectangle
}

func (m *jpegYCbCr) ColorModel() color.Model { return color.YCbCrModel }
func (m *jpegYCbCr) Bounds() image.Rectangle { return m.rect }
func (m *jpegYCbCr) At(x, y int) color.Color {
	if !(image.Point{x, y}.In(m.rect)) {
		return color.YCbCr{}
	}
	var s [3]uint8
	for i, p := range m.planes {
		s[i] = p.pix[(y-m.rect.Min.Y)/p.vy*p.stride+(x-m.rect.Min.X)/p.hx]
	}
	return color.YCbCr{Y: s[0], Cb: s[1], Cr: s[2]}
}

// writeYCbCr converts the window win of a decoded JPEG to pixels as
// writeYCC does.
func writeYCbCr(m *image.YCbCr, px *pixelWriter, win window) {
	hx, vy := 1, 1 // horizontal and vertical subsampling factors
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hx = 2
	case image.YCbCrSubsampleRatio420:
		hx, vy = 2, 2
	case image.YCbCrSubsampleRatio440:
		vy = 2
	case image.YCbCrSubsampleRatio411:
		hx = 4
	case image.YCbCrSubsampleRatio410:
		hx, vy = 4, 2
	}
	b := m.Bounds()
	writeYCC(&jpegYCbCr{
		planes: [3]yccPlane{
			{m.Y[m.YOffset(b.Min.X, b.Min.Y):], m.YStride, 1, 1},
			{m.Cb[m.COffset(b.Min.X, b.Min.Y):], m.CStride, hx, vy},
			{m.Cr[m.COffset(b.Min.X, b.Min.Y):], m.CStride, hx, vy},
		},
		rect: b,
	}, px, win)
}

// writeYCC converts the window win of a decoded JPEG to pixels as libjpeg
// does for TensorFlow, so that only the inverse DCT's rounding could
// separate the two. Each component is upsampled to the image's size as
// libjpeg's jdsample.c upsamples it: by its "fancy" triangle filter (3/4
// of the nearer sample, 1/4 of the farther, edges replicated) where a
// component is subsampled 2:1 in one or both directions (horizontally
// only if the component is more than two samples wide), and by
// replication at any other integer ratio; a component at the largest
// sampling factors, luma usually, is used as it is. YCbCr becomes RGB
// with libjpeg's 16-bit fixed-point tables; gray is the (upsampled) luma,
// which is what libjpeg gives for a color JPEG. Components are upsampled
// from the whole image, so that a window's pixels are those of the whole
// image's conversion.
func writeYCC(m *jpegYCbCr, px *pixelWriter, win window) {
	w, h := m.rect.Dx(), m.rect.Dy()
	n := 3
	if px.channels == 1 {
		n = 1
	}
	// A full-resolution row of each component that needs upsampling, and
	// room for its column sums, all from one allocation each.
	var rows [3][]uint8
	up, cw := 0, 0
	for _, p := range m.planes[:n] {
		if p.hx != 1 || p.vy != 1 {
			up, cw = up+1, max(cw, (w+p.hx-1)/p.hx)
		}
	}
	buf, sums := make([]uint8, up*w), make([]int32, cw)
	for i, p := range m.planes[:n] {
		if p.hx != 1 || p.vy != 1 {
			rows[i], buf = buf[:w:w], buf[w:]
		}
	}
	for y := range win.rows {
		px.i = ((win.dy+y)*win.stride + win.dx) * px.channels
		for i, p := range m.planes[:n] {
			if p.hx == 1 && p.vy == 1 {
				at := (win.y0+y)*p.stride + win.x0
				rows[i] = p.pix[at : at+win.cols]
				continue
			}
			cw, ch := (w+p.hx-1)/p.hx, (h+p.vy-1)/p.vy
			upsampleRow(rows[i][:w], p.pix, p.stride, cw, ch, win.y0+y, p.hx, p.vy, sums)
		}
		luma, cb, cr := rows[0], rows[1], rows[2]
		if m.planes[0].hx != 1 || m.planes[0].vy != 1 {
			luma = luma[win.x0 : win.x0+win.cols]
		}
		if px.channels == 1 {
			px.i += copy(px.out[px.i:px.i+len(luma)], luma)
			continue
		}
		if m.planes[1].hx != 1 || m.planes[1].vy != 1 {
			cb = cb[win.x0 : win.x0+len(luma)]
		}
		if m.planes[2].hx != 1 || m.planes[2].vy != 1 {
			cr = cr[win.x0 : win.x0+len(luma)]
		}
		cb, cr = cb[:len(luma)], cr[:len(luma)]
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

// upsampleRow fills dst with the full-resolution samples of image row y
// from plane (cw × ch samples at stride, subsampled hx:1 and vy:1), as
// libjpeg's h2v1, h1v2 and h2v2 fancy upsamplers compute them, including
// their alternating rounding, and at other ratios, or 2:1 horizontally
// with at most two samples a row, by replication, as libjpeg's
// int_upsample, h2v1_upsample and h2v2_upsample do. sums is scratch room
// for cw column sums.
func upsampleRow(dst, plane []uint8, stride, cw, ch, y, hx, vy int, sums []int32) {
	cy := y / vy
	if hx > 2 || vy > 2 || hx == 2 && cw <= 2 {
		src := plane[cy*stride : cy*stride+cw]
		for x := range dst {
			dst[x] = src[x/hx]
		}
		return
	}
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
