package decode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A small baseline JPEG encoder, so that the decoder can be tested on what
// image/jpeg's encoder never writes: every chroma subsampling, restart
// intervals, non-interleaved scans, 16-bit quantization tables, Huffman
// codes up to 16 bits long and declared gray sampling factors.

// jpegSpec describes a test JPEG.
type jpegSpec struct {
	w, h    int
	gray    bool
	hv      byte    // luma's sampling factors, h<<4 | v (0 for 0x11); a gray image's are only declared
	restart int     // restart interval in MCUs
	scans   [][]int // frame components of each scan; nil for one scan of all
	q16     bool    // 16-bit quantization tables with values over 255, in an SOF1 file
	ids     []byte  // component IDs, 1, 2, 3 if nil
}

func (s jpegSpec) String() string {
	c := "ycbcr"
	if s.gray {
		c = "gray"
	}
	return fmt.Sprintf("%s %dx%d hv=%02x restart=%d scans=%v q16=%v", c, s.w, s.h, s.hv, s.restart, s.scans, s.q16)
}

// The test encoder's Huffman tables: DC codes of 2 to 11 bits, AC codes
// of 2 to 16, both valid (no code all one bits).
var (
	tjDCCounts = [16]uint8{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	tjACCounts = [16]uint8{0, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 35}
)

// tjACSymbols lists every baseline AC symbol, end of block first, the
// shorter runs and sizes before the longer (so given the shorter codes).
func tjACSymbols() []byte {
	syms := []byte{0x00}
	for sum := 1; sum <= 25; sum++ {
		for size := 1; size <= 10; size++ {
			if run := sum - size; run >= 0 && run <= 15 {
				syms = append(syms, byte(run<<4|size))
			}
		}
	}
	return append(syms, 0xf0)
}

type tjCode struct {
	code uint32
	len  uint
}

// tjCodes assigns canonical codes (T.81 Annex C) to syms.
func tjCodes(counts [16]uint8, syms []byte) map[byte]tjCode {
	m := map[byte]tjCode{}
	code, k := uint32(0), 0
	for l := 1; l <= 16; l++ {
		for range counts[l-1] {
			m[syms[k]] = tjCode{code, uint(l)}
			code++
			k++
		}
		code <<= 1
	}
	return m
}

type tjBitWriter struct {
	out []byte
	acc uint32
	n   uint
}

func (w *tjBitWriter) put(bits uint32, n uint) {
	for i := n; i > 0; i-- {
		w.acc = w.acc<<1 | bits>>(i-1)&1
		if w.n++; w.n == 8 {
			w.out = append(w.out, byte(w.acc))
			if byte(w.acc) == 0xff {
				w.out = append(w.out, 0) // stuffing
			}
			w.acc, w.n = 0, 0
		}
	}
}

// flush pads the last byte with one bits.
func (w *tjBitWriter) flush() {
	for w.n != 0 {
		w.put(1, 1)
	}
}

// tjSample is component c's sample at (x, y): gradients, waves and noise,
// so that blocks have coefficients of every size.
func tjSample(c, x, y int) float64 {
	noise := float64((x*7919+y*104729+c*31337)*2654435761%251) / 251
	v := 128 + 70*math.Sin(float64(x)/5+float64(c)) + 40*math.Cos(float64(y)/7) + 40*noise - 20
	if (x/8+y/8)%5 == 0 {
		v = 60 + 10*float64(c) // some flat blocks
	}
	return max(0, min(255, v))
}

// encodeTestJPEG encodes an image as s describes it.
func encodeTestJPEG(s jpegSpec) []byte {
	nComp := 3
	if s.gray {
		nComp = 1
	}
	hv := s.hv
	if hv == 0 {
		hv = 0x11
	}
	ids := s.ids
	if ids == nil {
		ids = []byte{1, 2, 3}
	}
	// Layout factors: a gray image's are 1×1 whatever it declares.
	hs, vs := []int{int(hv >> 4), 1, 1}, []int{int(hv & 15), 1, 1}
	if s.gray {
		hs[0], vs[0] = 1, 1
	}
	hMax, vMax := hs[0], vs[0]
	mcusX, mcusY := (s.w+8*hMax-1)/(8*hMax), (s.h+8*vMax-1)/(8*vMax)

	var q [2][64]int
	for y := range 8 {
		for x := range 8 {
			q[0][8*y+x] = 1 + 2*(x+y)
			q[1][8*y+x] = 2 + 3*(x+y)
			if s.q16 {
				q[0][8*y+x] = 1 + 40*(x+y)
				q[1][8*y+x] = 3 + 37*(x+y)
			}
		}
	}
	var cosT [8][8]float64
	for x := range 8 {
		for u := range 8 {
			cosT[x][u] = math.Cos(float64(2*x+1) * float64(u) * math.Pi / 16)
		}
	}
	// block returns the quantized coefficients of component c's block
	// (bx, by), in zigzag order; samples past the component's edge
	// replicate it.
	block := func(c, bx, by int) [64]int {
		cw := (s.w*hs[c] + hMax - 1) / hMax
		ch := (s.h*vs[c] + vMax - 1) / vMax
		var f [8][8]float64
		for y := range 8 {
			for x := range 8 {
				f[y][x] = tjSample(c, min(8*bx+x, cw-1), min(8*by+y, ch-1)) - 128
			}
		}
		var out [64]int
		for v := range 8 {
			for u := range 8 {
				sum := 0.0
				for y := range 8 {
					for x := range 8 {
						sum += f[y][x] * cosT[x][u] * cosT[y][v]
					}
				}
				cu, cv := 1.0, 1.0
				if u == 0 {
					cu = math.Sqrt2 / 2
				}
				if v == 0 {
					cv = math.Sqrt2 / 2
				}
				qt := q[min(c, 1)][8*v+u]
				out[slices.Index(unzig[:64], uint8(8*v+u))] = int(math.Round(sum * cu * cv / 4 / float64(qt)))
			}
		}
		return out
	}

	var b []byte
	seg := func(marker byte, payload ...byte) {
		b = append(b, 0xff, marker, byte((len(payload)+2)>>8), byte(len(payload)+2))
		b = append(b, payload...)
	}
	b = append(b, 0xff, jpegSOI)
	for t := range min(nComp, 2) {
		var p []byte
		if s.q16 {
			p = append(p, 0x10|byte(t))
			for k := range 64 {
				v := q[t][unzig[k]]
				p = append(p, byte(v>>8), byte(v))
			}
		} else {
			p = append(p, byte(t))
			for k := range 64 {
				p = append(p, byte(q[t][unzig[k]]))
			}
		}
		seg(jpegDQT, p...)
	}
	sof := []byte{8, byte(s.h >> 8), byte(s.h), byte(s.w >> 8), byte(s.w), byte(nComp)}
	for c := range nComp {
		f := byte(0x11)
		if c == 0 {
			f = hv
		}
		sof = append(sof, ids[c], f, byte(min(c, 1)))
	}
	if s.q16 {
		seg(jpegSOF1, sof...)
	} else {
		seg(jpegSOF0, sof...)
	}
	dcSyms := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	acSyms := tjACSymbols()
	for t := range min(nComp, 2) {
		seg(jpegDHT, append(append([]byte{byte(t)}, tjDCCounts[:]...), dcSyms...)...)
		seg(jpegDHT, append(append([]byte{0x10 | byte(t)}, tjACCounts[:]...), acSyms...)...)
	}
	if s.restart > 0 {
		seg(jpegDRI, byte(s.restart>>8), byte(s.restart))
	}
	dcCodes, acCodes := tjCodes(tjDCCounts, dcSyms), tjCodes(tjACCounts, acSyms)

	scans := s.scans
	if scans == nil {
		scans = [][]int{make([]int, nComp)}
		for c := range nComp {
			scans[0][c] = c
		}
	}
	for _, comps := range scans {
		p := []byte{byte(len(comps))}
		for _, c := range comps {
			t := byte(min(c, 1))
			p = append(p, ids[c], t<<4|t)
		}
		seg(jpegSOS, append(p, 0, 63, 0)...)

		w := tjBitWriter{out: b}
		pred := make([]int, nComp)
		putValue := func(v int) (size uint, bits uint32) {
			a := max(v, -v)
			for a>>size != 0 {
				size++
			}
			if v < 0 {
				v += 1<<size - 1
			}
			return size, uint32(v)
		}
		encodeBlock := func(c, bx, by int) {
			coef := block(c, bx, by)
			size, bits := putValue(coef[0] - pred[c])
			pred[c] = coef[0]
			w.put(dcCodes[byte(size)].code, dcCodes[byte(size)].len)
			w.put(bits, size)
			run := 0
			for k := 1; k < 64; k++ {
				if coef[k] == 0 {
					run++
					continue
				}
				for ; run >= 16; run -= 16 {
					w.put(acCodes[0xf0].code, acCodes[0xf0].len)
				}
				size, bits := putValue(coef[k])
				sym := byte(run<<4) | byte(size)
				w.put(acCodes[sym].code, acCodes[sym].len)
				w.put(bits, size)
				run = 0
			}
			if run > 0 {
				w.put(acCodes[0].code, acCodes[0].len)
			}
		}
		mx, my := mcusX, mcusY
		if len(comps) == 1 {
			c := comps[0]
			mx = ((s.w*hs[c]+hMax-1)/hMax + 7) / 8
			my = ((s.h*vs[c]+vMax-1)/vMax + 7) / 8
		}
		for m := range mx * my {
			if s.restart > 0 && m > 0 && m%s.restart == 0 {
				w.flush()
				w.out = append(w.out, 0xff, jpegRST0+byte((m/s.restart-1)%8))
				clear(pred)
			}
			for _, c := range comps {
				if len(comps) == 1 {
					encodeBlock(c, m%mx, m/mx)
					continue
				}
				for by := range vs[c] {
					for bx := range hs[c] {
						encodeBlock(c, (m%mx)*hs[c]+bx, (m/mx)*vs[c]+by)
					}
				}
			}
		}
		w.flush()
		b = w.out
	}
	return append(b, 0xff, jpegEOI)
}

// jpegTestSpecs are the generated test images.
func jpegTestSpecs() []jpegSpec {
	var specs []jpegSpec
	for _, size := range [][2]int{{1, 1}, {7, 9}, {16, 16}, {33, 17}, {50, 41}} {
		specs = append(specs, jpegSpec{w: size[0], h: size[1], gray: true})
		for _, hv := range []byte{0x11, 0x12, 0x21, 0x22, 0x41, 0x42} {
			specs = append(specs, jpegSpec{w: size[0], h: size[1], hv: hv})
		}
	}
	return append(specs,
		jpegSpec{w: 33, h: 17, gray: true, hv: 0x22}, // declared 2×2, coded 1×1
		jpegSpec{w: 40, h: 24, gray: true, restart: 1},
		jpegSpec{w: 40, h: 40, gray: true, restart: 7},
		jpegSpec{w: 50, h: 41, hv: 0x22, restart: 1},
		jpegSpec{w: 50, h: 41, hv: 0x21, restart: 5},
		jpegSpec{w: 50, h: 41, hv: 0x22, restart: 11},
		jpegSpec{w: 50, h: 41, hv: 0x22, scans: [][]int{{0}, {1}, {2}}},
		jpegSpec{w: 50, h: 41, hv: 0x42, scans: [][]int{{2}, {0}, {1}}, restart: 3},
		jpegSpec{w: 35, h: 19, hv: 0x12, scans: [][]int{{0}, {1, 2}}},
		jpegSpec{w: 35, h: 19, hv: 0x22, scans: [][]int{{0, 2}, {1}}, restart: 2},
		jpegSpec{w: 50, h: 41, hv: 0x22, q16: true},
		jpegSpec{w: 50, h: 41, gray: true, q16: true, restart: 3},
	)
}

// benchJPEG is a 224×224 4:2:0 JPEG made as BenchmarkImage makes its own.
func benchJPEG(tb testing.TB) []byte {
	const w, h = 224, 224
	rgb := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			rgb.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, rgb, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

type jpegTestCase struct {
	name string
	data []byte
	spec *jpegSpec // for generated images
}

// jpegTestCases are every test JPEG: files, generated images and the
// benchmark's.
func jpegTestCases(t *testing.T) []jpegTestCase {
	var cases []jpegTestCase
	for _, dir := range []string{"images", "jpeg"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.jp*g"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, jpegTestCase{f, data, nil})
		}
	}
	for _, s := range jpegTestSpecs() {
		cases = append(cases, jpegTestCase{s.String(), encodeTestJPEG(s), &s})
	}
	return append(cases, jpegTestCase{"bench", benchJPEG(t), nil})
}

// jpegDiff compares img with image/jpeg's decoding of the same file: the
// same type, bounds, subsampling, strides and plane lengths, and samples
// that differ by at most maxDiff. It returns the largest difference.
func jpegDiff(img, want image.Image) (int, error) {
	if fmt.Sprintf("%T", img) != fmt.Sprintf("%T", want) || img.Bounds() != want.Bounds() {
		return 0, fmt.Errorf("%T %v, image/jpeg %T %v", img, img.Bounds(), want, want.Bounds())
	}
	maxDiff := 0
	// planes compares the samples of the image, cols × rows at stride:
	// not the blocks that pad MCUs, which a progressive JPEG's DC scan
	// codes and image/jpeg leaves zero.
	planes := func(got, want []byte, stride, cols, rows int) error {
		if len(got) != len(want) {
			return fmt.Errorf("plane of %d bytes, image/jpeg %d", len(got), len(want))
		}
		for y := range rows {
			for x := range cols {
				maxDiff = max(maxDiff, abs(int(got[y*stride+x])-int(want[y*stride+x])))
			}
		}
		return nil
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	switch m := img.(type) {
	case *image.Gray:
		g := want.(*image.Gray)
		if m.Stride != g.Stride {
			return 0, fmt.Errorf("stride %d, image/jpeg %d", m.Stride, g.Stride)
		}
		return maxDiff, planes(m.Pix, g.Pix, m.Stride, w, h)
	case *image.YCbCr:
		c := want.(*image.YCbCr)
		if m.SubsampleRatio != c.SubsampleRatio || m.YStride != c.YStride || m.CStride != c.CStride {
			return 0, fmt.Errorf("%v, strides %d %d; image/jpeg %v, %d %d", m.SubsampleRatio, m.YStride, m.CStride, c.SubsampleRatio, c.YStride, c.CStride)
		}
		// The chroma planes' extent, from the bounds of a chroma sample.
		cr := m.COffset(w-1, h-1) - m.COffset(0, 0)
		cw, ch := cr%m.CStride+1, cr/m.CStride+1
		return maxDiff, errors.Join(planes(m.Y, c.Y, m.YStride, w, h),
			planes(m.Cb, c.Cb, m.CStride, cw, ch), planes(m.Cr, c.Cr, m.CStride, cw, ch))
	}
	return 0, fmt.Errorf("unexpected %T", img)
}

// The decoder agrees with image/jpeg on every test JPEG but for the inverse
// DCT's rounding, through one reused decoder (to catch state carried from
// one image to the next): within 2 with JDCT_ISLOW, as accurate as
// image/jpeg's, and within 24 with JDCT_IFAST, whose error grows with the
// quality (18 on testdata/jpeg/pil_q100_444.jpg, where TensorFlow's pixels
// are as far from image/jpeg's). A generated image with restart markers
// decodes exactly as without them.
func TestJPEGDecoderMatchesImageJPEG(t *testing.T) {
	for _, accurate := range []bool{false, true} {
		tol := 24
		if accurate {
			tol = 2
		}
		t.Run(fmt.Sprintf("accurate=%v", accurate), func(t *testing.T) {
			testJPEGDecoderMatchesImageJPEG(t, accurate, tol)
		})
	}
}

func testJPEGDecoderMatchesImageJPEG(t *testing.T, accurate bool, tol int) {
	d, plain := jpegDecoder{accurate: accurate}, jpegDecoder{accurate: accurate}
	worst := 0
	for _, c := range jpegTestCases(t) {
		want, wantErr := jpeg.Decode(bytes.NewReader(c.data))
		img, err := d.decode(c.data, 1<<30)
		if s := c.spec; s != nil && s.restart > 0 && err == nil {
			s := *s
			s.restart = 0
			other, err := plain.decode(encodeTestJPEG(s), 1<<30)
			if err != nil {
				t.Fatalf("%s without restarts: %v", c.name, err)
			}
			if maxDiff, err := jpegDiff(img, other); err != nil || maxDiff != 0 {
				t.Errorf("%s: %v, differs by up to %d from the image without restarts", c.name, err, maxDiff)
			}
			// image/jpeg counts a restart interval in the frame's MCUs
			// even in a scan of one component, where T.81 (A.2.2) and
			// libjpeg count blocks: it misreads a luma scan with more
			// than one block to the frame's MCU.
			if s.scans != nil && s.hv != 0x11 && slices.ContainsFunc(s.scans, func(c []int) bool { return len(c) == 1 && c[0] == 0 }) {
				continue
			}
		}
		switch {
		case strings.Contains(c.name, "progressive_restart"):
			// image/jpeg fails on restart markers in progressive
			// scans ("missing 0xff00 sequence"), which libjpeg reads
			// (TestDecodeJPEGMatchesTensorFlow).
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		case strings.Contains(c.name, "tables_"):
			// Huffman tables left out: image/jpeg refuses every such
			// file, libjpeg decodes the sequential ones with the
			// standard tables and refuses the progressive ones
			// (TestDecodeJPEGTablesMatchTensorFlow).
			continue
		case strings.Contains(c.name, "nodht"):
			// No Huffman tables: image/jpeg refuses what libjpeg
			// decodes with the standard ones (TestDecodeJPEGMatchesTensorFlow).
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		case strings.Contains(c.name, "cj_prog_") || strings.Contains(c.name, "cj_rst_"):
			// Progressive JPEGs libjpeg smooths and damaged ones it
			// resynchronizes, each its own way: held to TensorFlow's
			// pixels (TestDecodeJPEGSmoothingMatchesTensorFlow,
			// TestDecodeJPEGResyncMatchesTensorFlow).
			continue
		case err == nil && wantErr != nil && strings.Contains(wantErr.Error(), "subsampling ratio"):
			// Sampling factors image/jpeg refuses, which libjpeg
			// upsamples (TestDecodeJPEGSamplingMatchesTensorFlow).
			continue
		case errors.Is(err, errJPEGUnsupported) && filepath.Dir(c.name) == "testdata/jpeg":
			t.Logf("%s: unsupported, image/jpeg: %T %v", c.name, want, wantErr)
			continue
		case err != nil || wantErr != nil:
			t.Errorf("%s: %v; image/jpeg: %v", c.name, err, wantErr)
			continue
		}
		maxDiff, err := jpegDiff(img, want)
		if err != nil || maxDiff > tol {
			t.Errorf("%s: %v, samples differ by up to %d", c.name, err, maxDiff)
		}
		worst = max(worst, maxDiff)
	}
	t.Logf("samples differ from image/jpeg's by up to %d", worst)
}

// editProgSOS returns a copy of data, a progressive JPEG, with edit
// applied to the header of its scan number i.
func editProgSOS(data []byte, i int, edit func(p []byte)) []byte {
	data = slices.Clone(data)
	at := 0
	for range i + 1 {
		at += bytes.Index(data[at:], []byte{0xff, jpegSOS}) + 2
	}
	n := int(data[at])<<8 | int(data[at+1])
	edit(data[at+2 : at+n])
	return data
}

// jpegSeg is a marker segment of a test file.
type jpegSeg struct {
	marker  byte
	payload []byte
}

// splitJPEG cuts a test file into its segments from SOI's successor to the
// first SOS, and the rest, from the first scan's data on.
func splitJPEG(data []byte) (segs []jpegSeg, rest []byte) {
	for i := 2; ; {
		n := int(data[i+2])<<8 | int(data[i+3])
		segs = append(segs, jpegSeg{data[i+1], data[i+4 : i+2+n]})
		i += 2 + n
		if data[i-n-1] == jpegSOS {
			return segs, data[i:]
		}
	}
}

func joinJPEG(segs []jpegSeg, rest []byte) []byte {
	b := []byte{0xff, jpegSOI}
	for _, s := range segs {
		b = append(b, 0xff, s.marker, byte((len(s.payload)+2)>>8), byte(len(s.payload)+2))
		b = append(b, s.payload...)
	}
	return append(b, rest...)
}

// editJPEG returns data with the first segment of the given marker changed
// by edit, which gets a copy of its payload and returns the new one (nil to
// drop the segment).
func editJPEG(data []byte, marker byte, edit func([]byte) []byte) []byte {
	segs, rest := splitJPEG(data)
	for i, s := range segs {
		if s.marker == marker {
			p := edit(slices.Clone(s.payload))
			if p == nil {
				return joinJPEG(slices.Delete(segs, i, i+1), rest)
			}
			segs[i].payload = p
			return joinJPEG(segs, rest)
		}
	}
	panic("no such segment")
}

// insertJPEG returns data with a segment inserted before the first of the
// given marker.
func insertJPEG(data []byte, before byte, s jpegSeg) []byte {
	segs, rest := splitJPEG(data)
	i := slices.IndexFunc(segs, func(x jpegSeg) bool { return x.marker == before })
	return joinJPEG(slices.Insert(segs, i, s), rest)
}

// Malformed and unsupported input: an error, never a panic.
func TestJPEGDecoderBadInput(t *testing.T) {
	base := encodeTestJPEG(jpegSpec{w: 20, h: 12, hv: 0x22})
	gray := encodeTestJPEG(jpegSpec{w: 20, h: 12, gray: true})
	progressive, err := os.ReadFile("testdata/images/progressive.jpg")
	if err != nil {
		t.Fatal(err)
	}
	sof := func(edit func(p []byte)) []byte {
		return editJPEG(base, jpegSOF0, func(p []byte) []byte { edit(p); return p })
	}
	cases := []struct {
		name string
		data []byte
		want error // nil: any error but errJPEGUnsupported
	}{
		{"empty", nil, nil},
		{"no SOI", base[2:], nil},
		{"SOI EOI", []byte{0xff, jpegSOI, 0xff, jpegEOI}, nil},
		{"two SOIs", append([]byte{0xff, jpegSOI}, base...), nil},
		{"two SOFs", insertJPEG(base, jpegSOS, jpegSeg{jpegSOF0, []byte{8, 0, 1, 0, 1, 1, 1, 0x11, 0}}), nil},
		{"segment length 1", append([]byte{0xff, jpegSOI, 0xff, jpegCOM, 0, 1}, base[2:]...), nil},
		{"segment past the end", []byte{0xff, jpegSOI, 0xff, jpegCOM, 0, 9, 1}, nil},
		{"DQT table 5", editJPEG(base, jpegDQT, func(p []byte) []byte { p[0] = 5; return p }), nil},
		{"DQT precision 2", editJPEG(base, jpegDQT, func(p []byte) []byte { p[0] = 0x20; return p }), nil},
		{"DQT short", editJPEG(base, jpegDQT, func(p []byte) []byte { return p[:40] }), nil},
		{"quantization table undefined", sof(func(p []byte) { p[8] = 3 }), nil},
		{"SOF quantization table 4", sof(func(p []byte) { p[8] = 4 }), nil},
		{"DHT too many codes", editJPEG(base, jpegDHT, func(p []byte) []byte {
			return append([]byte{0, 3}, append(make([]byte, 15), 0, 1, 2)...)
		}), nil},
		{"DHT all-ones code", editJPEG(base, jpegDHT, func(p []byte) []byte {
			return append([]byte{0, 2}, append(make([]byte, 15), 0, 1)...)
		}), nil},
		{"DHT over 256 symbols", editJPEG(base, jpegDHT, func(p []byte) []byte {
			counts := bytes.Repeat([]byte{17}, 16)
			return append(append([]byte{0x10}, counts...), make([]byte, 17*16)...)
		}), nil},
		{"DHT DC symbol 16", editJPEG(base, jpegDHT, func(p []byte) []byte { p[17] = 16; return p }), nil},
		{"DHT class 2", editJPEG(base, jpegDHT, func(p []byte) []byte { p[0] = 0x20; return p }), nil},
		{"DHT symbols missing", editJPEG(base, jpegDHT, func(p []byte) []byte { return p[:20] }), nil},
		{"Huffman table undefined", editJPEG(base, jpegDHT, func([]byte) []byte { return nil }), nil},
		{"SOF width 0", sof(func(p []byte) { p[3], p[4] = 0, 0 }), nil},
		{"SOF height 0", sof(func(p []byte) { p[1], p[2] = 0, 0 }), nil},
		{"SOF 65500×65500", sof(func(p []byte) { p[1], p[2], p[3], p[4] = 0xff, 0xdc, 0xff, 0xdc }), ErrImageTooLarge},
		{"SOF 65535×8", sof(func(p []byte) { p[1], p[2], p[3], p[4] = 0, 8, 0xff, 0xff }), nil},
		{"SOF sampling 0×1", sof(func(p []byte) { p[7] = 0x01 }), nil},
		{"SOF sampling 5×1", sof(func(p []byte) { p[7] = 0x51 }), nil},
		{"SOF repeated component", sof(func(p []byte) { p[9] = p[6] }), nil},
		{"SOF length", editJPEG(base, jpegSOF0, func(p []byte) []byte { return p[:10] }), nil},
		{"SOS before SOF", editJPEG(base, jpegSOF0, func([]byte) []byte { return nil }), nil},
		{"SOS component not in SOF", editJPEG(base, jpegSOS, func(p []byte) []byte { p[3] = 9; return p }), nil},
		{"SOS component twice", editJPEG(base, jpegSOS, func(p []byte) []byte { p[3] = p[1]; return p }), nil},
		{"SOS length", editJPEG(base, jpegSOS, func(p []byte) []byte { return p[:5] }), nil},
		{"SOS 4 components", editJPEG(base, jpegSOS, func(p []byte) []byte { p[0] = 4; return p }), nil},
		{"component not scanned", editJPEG(base, jpegSOS, func(p []byte) []byte {
			return []byte{2, p[1], p[2], p[3], p[4], 0, 63, 0}
		}), nil},
		{"DRI length 0", insertJPEG(base, jpegSOS, jpegSeg{jpegDRI, nil}), nil},
		{"bad Huffman code", func() []byte {
			segs, _ := splitJPEG(gray)
			return joinJPEG(segs, append(bytes.Repeat([]byte{0xff, 0}, 10), 0xff, jpegEOI))
		}(), nil},
		{"no EOI", gray[:len(gray)-2], nil},
		{"progression Ss 0, Se 5", editProgSOS(progressive, 0, func(p []byte) { p[len(p)-2] = 5 }), nil},
		{"progression Se 64", editProgSOS(progressive, 1, func(p []byte) { p[len(p)-2] = 64 }), nil},
		{"progression Ss after Se", editProgSOS(progressive, 1, func(p []byte) { p[len(p)-3] = 9; p[len(p)-2] = 8 }), nil},
		{"progression Al 14", editProgSOS(progressive, 0, func(p []byte) { p[len(p)-1] = 14 }), nil},
		{"refinement Ah not Al+1", editProgSOS(progressive, 0, func(p []byte) { p[len(p)-1] = 0x20 }), nil},
		{"AC scan of 3 components", editProgSOS(progressive, 0, func(p []byte) { p[len(p)-3], p[len(p)-2] = 1, 5 }), nil},
		{"12-bit", sof(func(p []byte) { p[0] = 12 }), errJPEGUnsupported},
		{"2 components", func() []byte {
			return editJPEG(base, jpegSOF0, func(p []byte) []byte { p[5] = 2; return p[:12] })
		}(), errJPEGUnsupported},
		// Sampling factors that do not divide the largest, which libjpeg
		// cannot upsample.
		{"chroma 3×1", sof(func(p []byte) { p[10] = 0x31 }), errJPEGUnsupported},
		{"luma 3×1, chroma 2×1", sof(func(p []byte) { p[7], p[10] = 0x31, 0x21 }), errJPEGUnsupported},
		{"arithmetic", func() []byte {
			data := slices.Clone(base)
			data[bytes.Index(data, []byte{0xff, jpegSOF0})+1] = 0xc9 // SOF9
			return data
		}(), errJPEGUnsupported},
		{"Adobe RGB", insertJPEG(base, jpegSOF0, jpegSeg{jpegAP14, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00")}), errJPEGUnsupported},
		{"Adobe RGB after SOF", insertJPEG(base, jpegSOS, jpegSeg{jpegAP14, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00")}), errJPEGUnsupported},
		{"RGB IDs", encodeTestJPEG(jpegSpec{w: 8, h: 8, ids: []byte("RGB")}), errJPEGUnsupported},
		{"DHP", insertJPEG(base, jpegSOF0, jpegSeg{0xde, []byte{1}}), errJPEGUnsupported},
	}
	var d jpegDecoder
	for _, c := range cases {
		_, err := d.decode(c.data, 1<<28)
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case c.want == nil && errors.Is(err, errJPEGUnsupported):
			t.Errorf("%s: %v, want a format error", c.name, err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}

	// Every truncation of valid files.
	for _, data := range [][]byte{base, gray, encodeTestJPEG(jpegSpec{w: 17, h: 9, hv: 0x21, restart: 1}), progressive} {
		for n := range len(data) {
			if _, err := d.decode(data[:n], 1<<28); err == nil {
				t.Errorf("truncated to %d of %d bytes: no error", n, len(data))
			}
		}
		if _, err := d.decode(data, 1<<28); err != nil {
			t.Errorf("whole file: %v", err)
		}
	}
}

// The size limit applies before the planes are allocated, to width ×
// height × components.
func TestJPEGDecoderMaxBytes(t *testing.T) {
	data := encodeTestJPEG(jpegSpec{w: 20, h: 10, hv: 0x22})
	var d jpegDecoder
	if _, err := d.decode(data, 20*10*3); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if _, err := d.decode(data, 20*10*3-1); !errors.Is(err, ErrImageTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}

// A restart interval of 0, in a DRI segment, means no restarts.
func TestJPEGDecoderRestartIntervalZero(t *testing.T) {
	data := encodeTestJPEG(jpegSpec{w: 20, h: 12, hv: 0x22})
	withDRI := insertJPEG(data, jpegSOS, jpegSeg{jpegDRI, []byte{0, 0}})
	var d1, d2 jpegDecoder
	a, err := d1.decode(data, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d2.decode(withDRI, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if maxDiff, err := jpegDiff(a, b); err != nil || maxDiff != 0 {
		t.Fatalf("%v, samples differ by up to %d", err, maxDiff)
	}
}

// grayBlocks decodes a gray test image one block high and returns its
// blocks' first samples.
func grayBlocks(t *testing.T, d *jpegDecoder, data []byte) []byte {
	t.Helper()
	img, err := d.decode(data, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	m := img.(*image.Gray)
	var out []byte
	for x := 0; x < m.Rect.Dx(); x += 8 {
		out = append(out, m.Pix[x])
	}
	return out
}

// Damaged entropy-coded data is handled as libjpeg handles it: an interval
// cut short by a marker decodes as zero coefficients (gray, 128) from
// where the data ran out, and restart markers are resynchronized as
// resync_to_restart does.
func TestJPEGDecoderDamagedScan(t *testing.T) {
	// Eight one-block MCUs, each different, one per restart interval.
	s := jpegSpec{w: 64, h: 8, gray: true, restart: 1}
	data := encodeTestJPEG(s)
	var d jpegDecoder
	orig := grayBlocks(t, &d, data)
	if len(orig) != 8 {
		t.Fatalf("%d blocks", len(orig))
	}
	rst := func(n int) int { return bytes.Index(data, []byte{0xff, jpegRST0 + byte(n)}) }

	// The marker after the first interval says RST2, not RST0: the next
	// two intervals find it too early and are empty; then it is the RST2
	// wanted, and what follows it (the data of interval 1) decodes as
	// interval 3; for interval 4, RST1 and RST2 are old and skipped, and
	// RST3 is the one wanted.
	damaged := slices.Clone(data)
	damaged[rst(0)+1] = jpegRST0 + 2
	got := grayBlocks(t, &d, damaged)
	want := []byte{orig[0], 128, 128, orig[1], orig[4], orig[5], orig[6], orig[7]}
	if !bytes.Equal(got, want) {
		t.Errorf("RST0 made RST2: blocks %v, want %v (undamaged %v)", got, want, orig)
	}

	// A far-off restart number is taken for the wanted one.
	damaged = slices.Clone(data)
	damaged[rst(1)+1] = jpegRST0 + 5
	if got := grayBlocks(t, &d, damaged); !bytes.Equal(got, orig) {
		t.Errorf("RST1 made RST5: blocks %v, want %v", got, orig)
	}

	// Without restarts, an EOI inside the scan ends it: the rest is gray.
	s.restart = 0
	data = encodeTestJPEG(s)
	orig = grayBlocks(t, &d, data)
	segs, rest := splitJPEG(data)
	cut := joinJPEG(segs, append(slices.Clone(rest[:len(rest)/2]), 0xff, jpegEOI))
	got = grayBlocks(t, &d, cut)
	if !bytes.Equal(got[:2], orig[:2]) || got[7] != 128 {
		t.Errorf("scan cut by EOI: blocks %v, undamaged %v", got, orig)
	}
}

// floatIDCT is the exact inverse DCT of coef (natural order) at (x, y),
// level-shifted, rounded and clamped.
func floatIDCT(coef *[64]int32, x, y int) float64 {
	sum := 0.0
	for v := range 8 {
		for u := range 8 {
			sum += float64(coef[8*v+u]) * idctBasis[x][u] * idctBasis[y][v]
		}
	}
	return min(max(math.Round(sum/4)+128, 0), 255)
}

// idctBasis[x][u] is C(u)·cos((2x+1)uπ/16), C(0) = 1/√2, C(u) = 1 else.
var idctBasis = func() (t [8][8]float64) {
	for x := range 8 {
		for u := range 8 {
			t[x][u] = math.Cos(float64(2*x+1) * float64(u) * math.Pi / 16)
			if u == 0 {
				t[x][u] = math.Sqrt2 / 2
			}
		}
	}
	return t
}()

// Both inverse DCTs against the exact one on random blocks: JDCT_ISLOW
// within 1, as libjpeg's is, on dense blocks in IEEE 1180's ranges and on
// sparse ones with large coefficients; JDCT_IFAST, which trades accuracy
// for speed, within 3 on the dense ones, given a typical quantization
// table (its multipliers keep 2 fractional bits of q times the AAN
// factors, too coarse for small q at high frequencies, and its truncations
// add up on large coefficients).
func TestIDCTAgainstFloat(t *testing.T) {
	var ones, q, ifastQ [64]int32
	for i := range ones {
		ones[i], q[i] = 1, int32(10+6*(i%8+i/8))
	}
	ifastQuant(&ifastQ, &q)
	rng := rand.New(rand.NewPCG(1, 2))
	var slow, fast [8 * 16]byte
	var worstSlow, worstFast float64
	for iter := range 8000 {
		var coef, quantized, dequantized [64]int32
		lim := []int32{256, 300, 5, 1024}[iter%4]
		for i := range coef {
			if iter%4 != 3 || rng.IntN(8) == 0 {
				coef[i] = rng.Int32N(2*lim) - lim
			}
			quantized[i] = coef[i] / q[i]
			dequantized[i] = quantized[i] * q[i]
		}
		idctIslow(slow[:], 16, &coef, &ones, ^uint64(0))
		idctIfast(fast[:], 16, &quantized, &ifastQ, ^uint64(0))
		for y := range 8 {
			for x := range 8 {
				worstSlow = max(worstSlow, math.Abs(float64(slow[16*y+x])-floatIDCT(&coef, x, y)))
				if iter%4 != 3 {
					worstFast = max(worstFast, math.Abs(float64(fast[16*y+x])-floatIDCT(&dequantized, x, y)))
				}
			}
		}
		if worstSlow > 1 || worstFast > 3 {
			t.Fatalf("block %v: off the exact IDCT by %v (ISLOW), %v (IFAST)", coef, worstSlow, worstFast)
		}
	}
	t.Logf("largest errors: ISLOW %v, IFAST %v", worstSlow, worstFast)
}

// Blocks with only a DC term, checked by hand: JDCT_ISLOW rounds
// dc·q/8, JDCT_IFAST truncates dc·q'/32 where q' is q·4 rounded.
func TestIDCTFlatBlocks(t *testing.T) {
	for _, c := range []struct {
		dc, q      int32
		slow, fast byte
	}{
		{0, 1, 128, 128}, {3, 1, 128, 128}, {4, 1, 129, 128}, {1, 8, 129, 129}, {12, 1, 130, 129},
		{-12, 1, 127, 126}, {-4, 1, 128, 127}, {-5, 1, 127, 127}, {-1024, 1, 0, 0}, {1016, 1, 255, 255},
		{1012, 1, 255, 254}, {1011, 1, 254, 254}, {100, 16, 255, 255}, {-100, 16, 0, 0}, {-16, 16, 96, 96},
		{1, 4, 129, 128}, {-1, 4, 128, 127},
	} {
		var coef, q, fq [64]int32
		coef[0], q[0] = c.dc, c.q
		ifastQuant(&fq, &q)
		var slow, fast [8 * 16]byte
		idctIslow(slow[:], 16, &coef, &q, 1)
		idctIfast(fast[:], 16, &coef, &fq, ^uint64(0))
		if v := islowDC(c.dc * c.q); v != c.slow {
			t.Errorf("islowDC(%d × %d) = %d, want %d", c.dc, c.q, v, c.slow)
		}
		if v := ifastDC(c.dc * fq[0]); v != c.fast {
			t.Errorf("ifastDC(%d × %d) = %d, want %d", c.dc, fq[0], v, c.fast)
		}
		for y := range 8 {
			for x := range 8 {
				if slow[16*y+x] != c.slow || fast[16*y+x] != c.fast {
					t.Fatalf("DC %d × %d: sample (%d, %d) is %d (ISLOW), %d (IFAST), want %d, %d",
						c.dc, c.q, x, y, slow[16*y+x], fast[16*y+x], c.slow, c.fast)
				}
			}
		}
	}
}

// The AAN scale factors are libjpeg's table (jddctmgr.c): its first row
// and its diagonal.
func TestAANScales(t *testing.T) {
	row := []int32{16384, 22725, 21407, 19266, 16384, 12873, 8867, 4520}
	diag := []int32{16384, 31521, 27969, 22654, 16384, 10114, 4799, 1247}
	for i := range 8 {
		if aanScales[i] != row[i] || aanScales[8*i] != row[i] || aanScales[9*i] != diag[i] {
			t.Fatalf("aanScales %v", aanScales)
		}
	}
}

// The zigzag table against T.81 figure A.6's first and last rows.
func TestUnzig(t *testing.T) {
	want := []uint8{0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5}
	if !bytes.Equal(unzig[:16], want) || !bytes.Equal(unzig[56:64], []uint8{53, 60, 61, 54, 47, 55, 62, 63}) || unzig[127] != 63 {
		t.Fatalf("unzig %v", unzig)
	}
}

// Decoding allocates nothing but the returned image's header once the
// decoder's buffers have grown.
func TestJPEGDecoderReusesMemory(t *testing.T) {
	data := benchJPEG(t)
	var d jpegDecoder
	if _, err := d.decode(data, 1<<30); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { d.decode(data, 1<<30) }); n > 1 {
		t.Fatalf("%v allocations a decode", n)
	}
}

func BenchmarkJPEGDecoder(b *testing.B) {
	data := benchJPEG(b)
	b.Run("sluice", func(b *testing.B) {
		var d jpegDecoder
		b.SetBytes(224 * 224 * 3)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.decode(data, 1<<30); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("imagejpeg", func(b *testing.B) {
		b.SetBytes(224 * 224 * 3)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestJPEGMaxScans checks the scan limit: a progressive JPEG of more scans
// than MaxScans (100 by default) is ErrTooManyScans, found before any is
// decoded, whichever decoder would take it; one of as many decodes.
func TestJPEGMaxScans(t *testing.T) {
	data, err := os.ReadFile("testdata/jpeg/tf_progressive_gray.jpg")
	if err != nil {
		t.Fatal(err)
	}
	scans := bytes.Count(data, []byte{0xff, jpegSOS})
	last := bytes.LastIndex(data, []byte{0xff, jpegSOS})
	scan := data[last : len(data)-2] // the last scan, to EOI
	// repeated returns data with the last scan repeated to n scans: a
	// refinement sent again, which libjpeg takes with a warning.
	repeated := func(n int) []byte {
		b := slices.Clone(data[:len(data)-2])
		for range n - scans {
			b = append(b, scan...)
		}
		return append(b, 0xff, jpegEOI)
	}
	for _, tc := range []struct {
		name  string
		opts  []ImageOption
		scans int
		fail  bool
	}{
		{"default, at the limit", nil, defaultMaxScans, false},
		{"default, over it", nil, defaultMaxScans + 1, true},
		{"a thousand", nil, 1000, true},
		{"MaxScans(6), the file's own", []ImageOption{MaxScans(scans)}, scans, false},
		{"MaxScans(5)", []ImageOption{MaxScans(scans - 1)}, scans, true},
		{"MaxScans(2000)", []ImageOption{MaxScans(2000)}, 1000, false},
	} {
		d, err := NewImage(0, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Decode(repeated(tc.scans), "hostile.jpg")
		switch {
		case tc.fail && (!errors.Is(err, ErrTooManyScans) || !strings.Contains(err.Error(), "hostile.jpg") || !strings.Contains(err.Error(), fmt.Sprint(tc.scans))):
			t.Errorf("%s: %d scans: error %v, want ErrTooManyScans naming the record and the count", tc.name, tc.scans, err)
		case !tc.fail && err != nil:
			t.Errorf("%s: %d scans: %v", tc.name, tc.scans, err)
		}
	}
}

// A decode that fails in the middle of a block (a bad Huffman code after
// some AC coefficients) leaves the decoder as clean as a new one: pooled,
// it decodes the next JPEG as a new decoder does. (It once kept that
// block's coefficients, which the next file's first block then added to
// its own; FuzzImage found it, as DecodeFit differing from Decode.)
func TestJPEGDecoderCleanAfterBadHuffmanCode(t *testing.T) {
	good, err := os.ReadFile("testdata/images/rgb.jpg")
	if err != nil {
		t.Fatal(err)
	}
	want, err := new(jpegDecoder).decode(good, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	wantPix := toHWC(want, 3, nil).Uint8s()
	sos := bytes.Index(good, []byte{0xff, jpegSOS})
	failed := 0
	// Put sixteen 1 bits, which the standard tables' codes never begin
	// with, at each of the first bytes of the scan data in turn, after a
	// byte of each value, and decode the good file after.
	for off := sos + 14; off < min(sos+400, len(good)-6); off++ {
		for _, v := range []byte{0x00, 0x5a, 0xa5, 0xfe} {
			bad := bytes.Clone(good)
			copy(bad[off:], []byte{v, 0xff, 0x00, 0xff, 0x00})
			jd := new(jpegDecoder)
			if _, err := jd.decode(bad, 1<<20); err == nil || !strings.Contains(err.Error(), "bad Huffman code") {
				continue
			}
			failed++
			got, err := jd.decode(good, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(toHWC(got, 3, nil).Uint8s(), wantPix) {
				t.Fatalf("after a bad Huffman code at byte %d (%#x), the next JPEG decodes otherwise than by a new decoder", off, v)
			}
		}
	}
	if failed < 10 {
		t.Fatalf("only %d corruptions gave a bad Huffman code", failed)
	}
	t.Logf("%d corruptions gave a bad Huffman code", failed)
}

// A JPEG wider or higher than 65500 pixels is refused, as libjpeg
// (JPEG_MAX_DIMENSION) and so TensorFlow refuse it (audit 37); 65500
// decodes.
func TestJPEGMaxDimension(t *testing.T) {
	d, err := NewImage(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec jpegSpec
		ok   bool
	}{
		{jpegSpec{w: 65500, h: 8, gray: true}, true},
		{jpegSpec{w: 65501, h: 8, gray: true}, false},
		{jpegSpec{w: 8, h: 65535}, false},
	} {
		_, err := d.Decode(encodeTestJPEG(tc.spec), "k")
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "largest, 65500") {
			t.Errorf("%v: %v", tc.spec, err)
		}
	}
}

// The JPEGs image/jpeg decodes (CMYK here, tools/tfref/jpegs_cmyk.py) are
// held to MaxBytes at 4 bytes a sample of each component, a progressive
// one's coefficients (audit 87: a 1 MB progressive CMYK file of 8192×8192
// pixels took 2.1 GB under the default limit of 256 MiB), whether or not a
// stray byte hides its frame header from a walk of its markers (audit 91).
// A CMYK JPEG with subsampled components is refused, as image/jpeg
// refuses it (TensorFlow decodes it).
func TestImageMaxBytesCMYK(t *testing.T) {
	const w, h = 40, 24
	for _, c := range []struct {
		file  string
		limit int64
	}{
		{"cmyk_444.jpg", w * h * 4 * 4},
		{"cmyk_444_progressive.jpg", w * h * 4 * 4},
		{"cmyk_444_progressive.jpg stray", w * h * 4 * 4},
	} {
		name, stray, _ := strings.Cut(c.file, " ")
		data, err := os.ReadFile(filepath.Join("testdata/jpeg", name))
		if err != nil {
			t.Fatal(err)
		}
		if stray != "" {
			// A byte before the frame header, which image/jpeg and
			// libjpeg skip (TensorFlow warns of it, and decodes).
			sof := bytes.Index(data, []byte{0xff, 0xc2})
			data = slices.Concat(data[:sof], []byte{0}, data[sof:])
		}
		d, _ := NewImage(3, MaxBytes(c.limit))
		img, err := d.Decode(data, c.file)
		if err != nil {
			t.Errorf("%s at its limit, %d: %v", c.file, c.limit, err)
		} else if got := fmt.Sprint([]int(img.Shape())); got != fmt.Sprint([]int{h, w, 3}) {
			t.Errorf("%s: shape %s", c.file, got)
		}
		d, _ = NewImage(3, MaxBytes(c.limit-1))
		if _, err := d.Decode(data, c.file); !errors.Is(err, ErrImageTooLarge) {
			t.Errorf("%s over its limit, %d: %v, want ErrImageTooLarge", c.file, c.limit-1, err)
		}
	}
	data, err := os.ReadFile("testdata/jpeg/cmyk_420.jpg")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewImage(3)
	if _, err := d.Decode(data, "cmyk_420.jpg"); err == nil || !strings.Contains(err.Error(), "cmyk_420.jpg") {
		t.Errorf("subsampled CMYK: %v, want an error naming the file", err)
	}
}
