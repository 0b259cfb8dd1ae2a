package decode

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"
)

// writeYCbCr, written for speed, converts every subsampling, size and
// channel count to the same pixels as refWriteYCbCr, the plain form of
// libjpeg's conversion that was checked against TensorFlow.
func TestWriteYCbCrMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411,
		image.YCbCrSubsampleRatio410}
	for _, ratio := range ratios {
		for _, size := range [][2]int{{1, 1}, {2, 2}, {3, 5}, {4, 3}, {5, 2}, {8, 8}, {17, 9}, {16, 31}} {
			m := image.NewYCbCr(image.Rect(0, 0, size[0], size[1]), ratio)
			for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
				for i := range p {
					p[i] = uint8(rng.Uint32())
				}
			}
			for _, channels := range []int{1, 3, 4} {
				n := size[0] * size[1] * channels
				got := pixelWriter{out: make([]uint8, n), channels: channels}
				want := pixelWriter{out: make([]uint8, n), channels: channels}
				writeYCbCr(m, &got, whole(size[0], size[1]))
				refWriteYCbCr(m, &want)
				if !bytes.Equal(got.out, want.out) || got.i != n {
					t.Errorf("%v %v, %d channels: pixels differ from the reference", ratio, size, channels)
				}
				// A window of the image, placed inside a larger output,
				// holds the whole conversion's pixels there.
				w, h := size[0], size[1]
				win := window{x0: w / 3, y0: h / 4, cols: w - w/3 - w/5, rows: h - h/4 - h/6, dx: 1, dy: 2, stride: w + 3}
				part := pixelWriter{out: make([]uint8, (h+2)*(w+3)*channels), channels: channels}
				writeYCbCr(m, &part, win)
				for y := range win.rows {
					at := ((win.dy+y)*win.stride + win.dx) * channels
					from := ((win.y0+y)*w + win.x0) * channels
					if !bytes.Equal(part.out[at:at+win.cols*channels], want.out[from:from+win.cols*channels]) {
						t.Errorf("%v %v, %d channels, %+v: row %d differs from the whole image's", ratio, size, channels, win, y)
					}
				}
			}
		}
	}
}

// libjpegRGB's tables give its formula's value for every Y, Cb and Cr.
func TestLibjpegRGBTables(t *testing.T) {
	for y := range 256 {
		for cb := range 256 {
			for cr := range 256 {
				r, g, b := libjpegRGB(uint8(y), uint8(cb), uint8(cr))
				wr, wg, wb := refLibjpegRGB(uint8(y), uint8(cb), uint8(cr))
				if r != wr || g != wg || b != wb {
					t.Fatalf("Y %d Cb %d Cr %d: %d %d %d, want %d %d %d", y, cb, cr, r, g, b, wr, wg, wb)
				}
			}
		}
	}
}

// refLibjpegRGB is libjpeg's YCbCr to RGB conversion computed plainly:
// ITU-R BT.601 full range, 16-bit fixed-point constants, round-half-up.
func refLibjpegRGB(y, cb, cr uint8) (uint8, uint8, uint8) {
	const (
		scale = 16
		half  = 1 << (scale - 1)
		crR   = 91881
		cbB   = 116130
		crG   = 46802
		cbG   = 22554
	)
	yy := int32(y)
	cbv, crv := int32(cb)-128, int32(cr)-128
	r := yy + (crR*crv+half)>>scale
	g := yy + (-cbG*cbv-crG*crv+half)>>scale
	b := yy + (cbB*cbv+half)>>scale
	return clamp8(r), clamp8(g), clamp8(b)
}

// refWriteYCbCr and refUpsampleRow are writeYCbCr and upsampleRow as they
// were first written, plainly, and checked against TensorFlow.
func refWriteYCbCr(m *image.YCbCr, px *pixelWriter) {
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
	refWriteYCC(&jpegYCbCr{
		planes: [3]yccPlane{{m.Y, m.YStride, 1, 1}, {m.Cb, m.CStride, hx, vy}, {m.Cr, m.CStride, hx, vy}},
		rect:   m.Bounds(),
	}, px)
}

// refWriteYCC upsamples each component of m to a full plane with
// refUpsampleRow and then converts.
func refWriteYCC(m *jpegYCbCr, px *pixelWriter) {
	w, h := m.rect.Dx(), m.rect.Dy()
	var full [3][]uint8
	for i, p := range m.planes {
		full[i] = make([]uint8, w*h)
		for y := range h {
			refUpsampleRow(full[i][y*w:(y+1)*w], p.pix, p.stride, (w+p.hx-1)/p.hx, (h+p.vy-1)/p.vy, y, p.hx, p.vy)
		}
	}
	for i := range w * h {
		if px.channels == 1 {
			px.gray(full[0][i], 255)
			continue
		}
		r, g, bl := refLibjpegRGB(full[0][i], full[1][i], full[2][i])
		px.rgba(r, g, bl, 255)
	}
}

// upsampleRow fills dst with the full-resolution chroma of image row y
// from plane (cw × ch samples at stride), as libjpeg's h2v1, h1v2 and
// h2v2 fancy upsamplers compute it, including their alternating rounding.
func refUpsampleRow(dst, plane []uint8, stride, cw, ch, y, hx, vy int) {
	// Vertical step: a weighted row sum, 3·nearer + farther (or 4·row).
	cy := y / vy
	if hx > 2 || vy > 2 || hx == 2 && cw <= 2 {
		// libjpeg's replicating upsamplers (int_upsample, h2v1_upsample
		// and h2v2_upsample, these two for two samples or fewer a row).
		for x := range dst {
			dst[x] = plane[cy*stride+x/hx]
		}
		return
	}
	near := plane[cy*stride : cy*stride+cw]
	colsum := func(i int) int {
		if vy == 1 {
			return int(near[i]) * 4
		}
		fy := cy - 1
		if y%2 == 1 {
			fy = cy + 1
		}
		fy = min(max(fy, 0), ch-1)
		return 3*int(near[i]) + int(plane[fy*stride+i])
	}
	if hx == 1 {
		bias := 1 // h1v2: (3·near + far + 1 or 2) >> 2, as libjpeg-turbo
		if y%2 == 1 {
			bias = 2
		}
		for x := range dst {
			if vy == 1 {
				dst[x] = near[x]
			} else {
				dst[x] = uint8((colsum(x) + bias) >> 2)
			}
		}
		return
	}
	if vy == 1 {
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
		return
	}
	// h2v2, horizontally over column sums scaled by 4: 3·this + neighbour.
	for i := range cw {
		this := colsum(i)
		left, right := this, this
		if i > 0 {
			left = colsum(i - 1)
		}
		if i < cw-1 {
			right = colsum(i + 1)
		}
		if 2*i < len(dst) {
			dst[2*i] = uint8((3*this + left + 8) >> 4)
		}
		if 2*i+1 < len(dst) {
			dst[2*i+1] = uint8((3*this + right + 7) >> 4)
		}
	}
}
