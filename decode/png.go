package decode

import (
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image/png"
	"io"
	"math"
	"sync"
)

// pngInfo is what sluice reads of a PNG's chunks itself, because Go's
// image/png does not report it or reads it otherwise than libpng, whose
// reading TensorFlow's is.
type pngInfo struct {
	colorType byte
	depth     byte
	// trns: a tRNS chunk libpng accepts. TensorFlow gives a palette PNG
	// with one 4 channels at channels 0, whatever its alphas.
	trns bool
	// gamma is the file's gamma in libpng's fixed point (×100000), from
	// gAMA or sRGB as libpng's colorspace code takes them; 0 if none.
	gamma int32
	// sigBits is the largest of the red, green and blue sBIT values, 0
	// without a valid sBIT chunk. It sets libpng's 16-bit gamma tables'
	// precision.
	sigBits byte
	// err is a chunk libpng refuses that Go's decoder would pass over:
	// one whose type is not four ASCII letters.
	err error
}

// scanPNG reads b's chunks as libpng does and returns the stream Go's
// decoder is to read: b, or a copy without the chunks libpng ignores and
// Go's decoder refuses. Those are an ancillary chunk whose CRC is wrong
// (libpng warns and skips it), a tRNS chunk libpng finds invalid (of the
// wrong length, longer than the palette, in an image with an alpha channel,
// a second one, one before the PLTE, or after the image data) and a PLTE
// chunk in a grayscale image; a palette of more entries than the bit depth
// indexes is cut to those, as libpng cuts it. Critical chunks with a wrong CRC, and whatever is not a whole
// chunk, are left for Go's decoder to refuse, as libpng refuses them.
func scanPNG(b []byte) ([]byte, pngInfo) {
	var info pngInfo
	var (
		out                          []byte // nil while nothing is dropped
		kept                         = 0    // b[:kept] is in out, when out is not nil
		seenPLTE, seenIDAT, seenSBIT bool
		numPalette                   int
		cs                           pngColorspace
	)
	drop := func(from, to int) {
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[kept:from]...)
		kept = to
	}
	for pos := 8; pos+12 <= len(b); {
		n := binary.BigEndian.Uint32(b[pos:])
		if n > 0x7fffffff || uint64(pos)+12+uint64(n) > uint64(len(b)) {
			break
		}
		end := pos + 12 + int(n)
		typ := string(b[pos+4 : pos+8])
		if !pngChunkType(typ) {
			info.err = fmt.Errorf("png: chunk type %q at offset %d is not four letters (libpng: \"invalid chunk type\")", typ, pos+4)
			break
		}
		data := b[pos+8 : end-4]
		ancillary := typ[0]&0x20 != 0
		if ancillary && crc32.ChecksumIEEE(b[pos+4:end-4]) != binary.BigEndian.Uint32(b[end-4:]) {
			drop(pos, end)
			pos = end
			continue
		}
		early := !seenPLTE && !seenIDAT // where libpng takes colorspace chunks
		switch typ {
		case "IHDR":
			if n == 13 {
				info.depth, info.colorType = data[8], data[9]
			}
		case "PLTE":
			if info.colorType&2 == 0 {
				drop(pos, end) // libpng: "ignored in grayscale PNG"
				break
			}
			seenPLTE = true
			numPalette = int(n / 3)
			if info.colorType == 3 && n%3 == 0 && numPalette > 1<<min(info.depth, 8) {
				// libpng uses the entries the bit depth can index, Go's
				// decoder refuses the chunk.
				numPalette = 1 << info.depth
				drop(pos, end)
				out = binary.BigEndian.AppendUint32(out, uint32(3*numPalette))
				out = append(out, "PLTE"...)
				out = append(out, data[:3*numPalette]...)
				out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[len(out)-4-3*numPalette:]))
			}
		case "IDAT":
			seenIDAT = true
		case "tRNS":
			var ok bool
			switch info.colorType {
			case 0:
				ok = n == 2
			case 2:
				ok = n == 6
			case 3:
				ok = seenPLTE && n > 0 && int(n) <= numPalette
			}
			if !ok || info.trns || seenIDAT {
				drop(pos, end)
				break
			}
			info.trns = true
		case "gAMA":
			if early && n == 4 {
				cs.gAMA(int64(binary.BigEndian.Uint32(data)))
			}
		case "sRGB":
			if early && n == 1 {
				cs.sRGB(data[0])
			}
		case "iCCP":
			// libpng checks the profile too; sluice takes any iCCP of the
			// least length as valid.
			if early && n >= 14 {
				cs.iCCP()
			}
		case "sBIT":
			if !early || seenSBIT {
				break
			}
			want, depth := 1, info.depth
			switch info.colorType {
			case 2, 3:
				want = 3
			case 4:
				want = 2
			case 6:
				want = 4
			}
			if info.colorType == 3 {
				depth = 8
			}
			if int(n) != want {
				break
			}
			valid := true
			for _, v := range data {
				valid = valid && v != 0 && v <= depth
			}
			if valid {
				seenSBIT = true
				info.sigBits = data[0]
				if info.colorType&2 != 0 {
					info.sigBits = max(data[0], data[1], data[2])
				}
			}
		}
		pos = end
		if typ == "IEND" {
			break
		}
	}
	info.gamma = cs.gamma
	if out == nil {
		return b, info
	}
	return append(out, b[kept:]...), info
}

// pngColorspace follows libpng's colorspace flags (png.c) as far as they
// decide the file gamma: a gAMA or sRGB chunk sets it, a gAMA does not
// override an sRGB's, and an invalid chunk stops later ones counting.
type pngColorspace struct {
	gamma                               int32
	fromGAMA, fromSRGB, intent, invalid bool
}

func (c *pngColorspace) gAMA(g int64) {
	switch {
	case g < 16 || g > 625000000, c.fromGAMA:
		c.invalid = true // "gamma value out of range", "duplicate"
		return
	case c.invalid:
		return
	}
	if c.gamma != 0 && c.fromSRGB && gammaDiffers(int64(c.gamma), g) {
		return // "gamma value does not match sRGB": the sRGB stays
	}
	c.gamma, c.fromGAMA = int32(g), true
}

func (c *pngColorspace) sRGB(intent byte) {
	switch {
	case c.invalid:
		return
	case c.intent, intent >= 4:
		c.invalid = true // "too many profiles", "invalid sRGB rendering intent"
		return
	}
	c.gamma, c.fromSRGB, c.intent = 45455, true, true
}

func (c *pngColorspace) iCCP() {
	switch {
	case c.invalid:
	case c.intent:
		c.invalid = true // "too many profiles"
	default:
		c.intent = true
	}
}

// gammaDiffers is libpng's test of two gammas against each other: their
// ratio, rounded to its fixed point, is significant.
func gammaDiffers(old, g int64) bool {
	r := math.Floor(float64(old)*100000/float64(g) + .5)
	return r > math.MaxInt32 || gammaSignificant(int64(r))
}

// gammaSignificant is png_gamma_significant: a gamma further than 0.05
// from 1.
func gammaSignificant(g int64) bool { return g < 95000 || g > 105000 }

// pngFixed rounds to libpng's fixed point, as png_reciprocal and its kin
// do in floating point; 0 reports an overflow.
func pngFixed(r float64) int64 {
	r = math.Floor(r + .5)
	if r > math.MaxInt32 || r < math.MinInt32 {
		return 0
	}
	return int64(r)
}

func pngReciprocal(a int64) int64 { return pngFixed(1e10 / float64(a)) }

func pngProduct2(a, b int64) int64 { return pngFixed(float64(a) * 1e-5 * float64(b)) }

// A grayGamma converts color to gray as libpng's png_do_rgb_to_gray does
// for a file with a significant gamma and no screen gamma set (as
// TensorFlow reads PNGs): through linear light and back, with tables
// libpng builds from the file gamma. Its fields are only read.
type grayGamma struct {
	to1, from1 [256]uint8 // 8-bit samples
	// 16-bit samples, looked up as libpng does by the sample's high byte
	// and its low byte's top 8-shift bits (index16).
	shift            uint
	to1x16, from1x16 []uint16
	equal16          []uint16 // png_build_16to8_table's, for gray pixels
}

// index16 is where libpng's 16-bit tables hold v's value,
// table[(v&0xff)>>shift][v>>8], flattened.
func (g *grayGamma) index16(v uint32) uint32 { return ((v&0xff)>>g.shift)<<8 | v>>8 }

// gray8 is the gray of an 8-bit color.
func (g *grayGamma) gray8(r, gr, b uint8) uint8 {
	if r == gr && r == b {
		return r
	}
	return g.from1[(9797*uint32(g.to1[r])+19234*uint32(g.to1[gr])+3737*uint32(g.to1[b])+16384)>>15]
}

// gray16 is the gray of a 16-bit color, 16 bits.
func (g *grayGamma) gray16(r, gr, b uint32) uint32 {
	if r == gr && r == b {
		return uint32(g.equal16[g.index16(r)])
	}
	r1 := uint32(g.to1x16[g.index16(r)])
	g1 := uint32(g.to1x16[g.index16(gr)])
	b1 := uint32(g.to1x16[g.index16(b)])
	return uint32(g.from1x16[g.index16((9797*r1+19234*g1+3737*b1+16384)>>15)])
}

// newGrayGamma returns the conversion libpng makes of a color PNG of the
// given gamma and bit depth (8 or less, or 16) and sBIT, or nil where it
// takes the plain weighted sum: without a gamma, or with one near 1.
func newGrayGamma(gamma int32, depth, sigBits byte) *grayGamma {
	if gamma == 0 {
		return nil
	}
	file := int64(gamma)
	screen := pngReciprocal(file) // no screen gamma set: the file's inverse
	if !gammaSignificant(file) && !gammaSignificant(screen) {
		return nil
	}
	var shift uint
	if depth == 16 {
		// png_build_gamma_table: the bits sBIT says are not significant,
		// and at least 16 - PNG_MAX_GAMMA_8 (11) when stripping to 8 bits,
		// as TensorFlow does.
		if sigBits > 0 && sigBits < 16 {
			shift = 16 - uint(sigBits)
		}
		shift = min(max(shift, 5), 8)
	}
	key := grayGammaKey{gamma, depth == 16, shift}
	grayGammas.Lock()
	defer grayGammas.Unlock()
	if g, ok := grayGammas.m[key]; ok {
		return g
	}
	g := &grayGamma{shift: shift}
	if depth == 16 {
		g.to1x16 = gammaTable16(shift, pngReciprocal(file))
		g.from1x16 = gammaTable16(shift, pngReciprocal(screen))
		g.equal16 = gammaTable16to8(shift, pngProduct2(file, screen))
	} else {
		g.to1 = gammaTable8(pngReciprocal(file))
		g.from1 = gammaTable8(pngReciprocal(screen))
	}
	if len(grayGammas.m) < 64 { // gammas are few in practice; a file can name any
		if grayGammas.m == nil {
			grayGammas.m = make(map[grayGammaKey]*grayGamma)
		}
		grayGammas.m[key] = g
	}
	return g
}

type grayGammaKey struct {
	gamma int32
	is16  bool
	shift uint
}

// grayGammas caches the tables, which take up to some thousands of calls
// of math.Pow to build.
var grayGammas struct {
	sync.Mutex
	m map[grayGammaKey]*grayGamma
}

// gammaTable8 is png_build_8bit_table: png_gamma_8bit_correct of each
// value, in floating point as libpng is built for TensorFlow.
func gammaTable8(gamma int64) (t [256]uint8) {
	for i := range t {
		t[i] = uint8(i)
		if gammaSignificant(gamma) && i > 0 && i < 255 {
			t[i] = uint8(math.Floor(255*math.Pow(float64(i)/255., float64(gamma)*.00001) + .5))
		}
	}
	return t
}

// gammaTable16 is png_build_16bit_table, flattened as index16 reads it.
func gammaTable16(shift uint, gamma int64) []uint16 {
	num := uint32(1) << (8 - shift)
	t := make([]uint16, num*256)
	fmax := 1.0 / float64(int32(1)<<(16-shift)-1)
	max := uint32(1)<<(16-shift) - 1
	maxBy2 := uint32(1) << (15 - shift)
	for i := range num {
		for j := range uint32(256) {
			ig := j<<(8-shift) + i
			if gammaSignificant(gamma) {
				t[i<<8|j] = uint16(math.Floor(65535.*math.Pow(float64(ig)*fmax, float64(gamma)*.00001) + .5))
				continue
			}
			if shift != 0 {
				ig = (ig*65535 + maxBy2) / max
			}
			t[i<<8|j] = uint16(ig)
		}
	}
	return t
}

// gammaTable16to8 is png_build_16to8_table, flattened as index16 reads
// it: each input the 16-bit value of the 8-bit output nearest its
// gamma-corrected value.
func gammaTable16to8(shift uint, gamma int64) []uint16 {
	num := uint32(1) << (8 - shift)
	t := make([]uint16, num*256)
	max := uint32(1)<<(16-shift) - 1
	set := func(last uint32, v uint16) { t[(last&(0xff>>shift))<<8|last>>(8-shift)] = v }
	last := uint32(0)
	for i := range uint32(255) {
		out := uint16(i * 257)
		bound := uint32(gammaCorrect16(uint32(out)+128, gamma))
		bound = (bound*max+32768)/65535 + 1
		for ; last < bound; last++ {
			set(last, out)
		}
	}
	for ; last < num<<8; last++ {
		set(last, 65535)
	}
	return t
}

// gammaCorrect16 is png_gamma_16bit_correct, in floating point.
func gammaCorrect16(v uint32, gamma int64) uint16 {
	if v > 0 && v < 65535 {
		return uint16(math.Floor(65535*math.Pow(float64(v)/65535., float64(gamma)*.00001) + .5))
	}
	return uint16(v)
}

// Errors of Go's image/png that libpng does not always make: zlib data
// after the last row, and a wrong zlib checksum (Adler-32).
var (
	errPNGTooMuchData = png.FormatError("too much pixel data")
	errPNGZlibSum     = png.FormatError("zlib: invalid checksum")
)

// pngIDATReadSize is libpng's PNG_IDAT_READ_SIZE: it gives zlib an IDAT
// chunk's data this many bytes at a time.
const pngIDATReadSize = 8192

// pngRows returns b, a PNG Go's decoder refused with err, with its image
// data cut after the last row, where libpng decodes it; or nil and the
// error to report. libpng reads the zlib stream's rows and then inflates
// the rest only to warn of it: data after the last row ("Too much image
// data", "Extra compressed data"), and a wrong checksum after them or in a
// later read of the image data than the last row's, are warnings. A wrong
// checksum read with the last row is an error, as zlib reports it while
// filling the row.
//
// Only the rows are inflated again (compress/flate decodes at most its
// 32 KiB window ahead); they are stored, uncompressed, in new IDAT chunks
// for Go's decoder. So sluice does not see a stream that does not end
// after the rows, which libpng refuses ("Not enough image data").
func pngRows(b []byte, err error) ([]byte, error) {
	if (err != errPNGTooMuchData && err != errPNGZlibSum) || len(b) < 33 {
		return nil, err
	}
	// Go's decoder has read and checked the IHDR.
	width, height := int64(binary.BigEndian.Uint32(b[16:])), int64(binary.BigEndian.Uint32(b[20:]))
	depth, colorType, interlace := int64(b[24]), b[25], b[28]
	need := pngRowBytes(width, height, depth*int64(pngSamples[colorType]), interlace == 1)

	// The IDAT chunks Go's decoder reads: the first and those right after.
	var idat idatReader
	first, last := -1, -1
	for pos := 8; pos+12 <= len(b); {
		n := binary.BigEndian.Uint32(b[pos:])
		if n > 0x7fffffff || uint64(pos)+12+uint64(n) > uint64(len(b)) {
			break
		}
		end := pos + 12 + int(n)
		if string(b[pos+4:pos+8]) != "IDAT" {
			if first >= 0 {
				break
			}
			pos = end
			continue
		}
		if crc32.ChecksumIEEE(b[pos+4:end-4]) != binary.BigEndian.Uint32(b[end-4:]) {
			return nil, png.FormatError("invalid checksum") // as libpng, an error in a critical chunk
		}
		if first < 0 {
			first = pos
		}
		idat.chunks = append(idat.chunks, b[pos+8:end-4])
		last, pos = end, end
	}
	if first < 0 || last+12 > len(b) {
		return nil, err // the file ends within the image data, or with it
	}

	zr, zerr := zlib.NewReader(&idat)
	if zerr != nil {
		return nil, err
	}
	var out idatWriter
	out.b = make([]byte, 0, first+int(need+need/0xffff*5+need/(1<<20)*12+64)+len(b)-last)
	out.b = append(out.b, b[:first]...)
	out.start = -1
	zw, _ := zlib.NewWriterLevel(&out, zlib.NoCompression)
	if n, cerr := io.CopyN(zw, zr, need); n != need || cerr != nil {
		return nil, err // not Go's decoder's error, which read all the rows
	}
	if err == errPNGZlibSum {
		// The stream ends after the rows: where its checksum ends. zlib
		// fails on it while filling the last row if that row's data and
		// the checksum are in one read of libpng's, that is if the data
		// before that read does not hold all the rows.
		if n, rerr := zr.Read(make([]byte, 1)); n != 0 || rerr != zlib.ErrChecksum {
			return nil, err
		}
		prefix := idatReader{chunks: idat.prefix(idat.readStart(idat.pos - 1))}
		pr, perr := zlib.NewReader(&prefix)
		if perr != nil {
			return nil, err
		}
		if n, _ := io.CopyN(io.Discard, pr, need); n < need {
			return nil, err
		}
	}
	if zw.Close() != nil {
		return nil, err
	}
	out.flush()
	return append(out.b, b[last:]...), nil
}

// pngSamples is the samples of a pixel of each color type.
var pngSamples = [7]byte{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}

// pngRowBytes is the image data of a PNG of that size and bits per pixel:
// each row's filter byte and pixels, or, interlaced, those of the rows of
// each of Adam7's seven passes, none for a pass of no pixels.
func pngRowBytes(width, height, bitsPerPixel int64, interlaced bool) int64 {
	rows := func(w, h int64) int64 {
		if w <= 0 || h <= 0 {
			return 0
		}
		return h * (1 + (w*bitsPerPixel+7)/8)
	}
	if !interlaced {
		return rows(width, height)
	}
	var n int64
	for _, p := range [7]struct{ x, y, dx, dy int64 }{
		{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2},
	} {
		n += rows((width-p.x+p.dx-1)/p.dx, (height-p.y+p.dy-1)/p.dy)
	}
	return n
}

// An idatReader reads the data of IDAT chunks as one stream, byte by byte
// for compress/flate, which then reads no further than it decodes.
type idatReader struct {
	chunks [][]byte
	i, off int
	pos    int64 // bytes read
}

func (r *idatReader) Read(p []byte) (int, error) {
	for r.i < len(r.chunks) && r.off == len(r.chunks[r.i]) {
		r.i, r.off = r.i+1, 0
	}
	if r.i == len(r.chunks) {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[r.i][r.off:])
	r.off += n
	r.pos += int64(n)
	return n, nil
}

func (r *idatReader) ReadByte() (byte, error) {
	var p [1]byte
	if _, err := r.Read(p[:]); err != nil {
		return 0, err
	}
	return p[0], nil
}

// readStart is where libpng's read of the data that holds byte pos
// begins: it reads each IDAT chunk pngIDATReadSize bytes at a time.
func (r *idatReader) readStart(pos int64) int64 {
	var start int64
	for _, c := range r.chunks {
		if pos < start+int64(len(c)) {
			return start + (pos-start)/pngIDATReadSize*pngIDATReadSize
		}
		start += int64(len(c))
	}
	return start
}

// prefix is the chunks' first n bytes.
func (r *idatReader) prefix(n int64) [][]byte {
	var out [][]byte
	for _, c := range r.chunks {
		c = c[:min(int64(len(c)), n)]
		out = append(out, c)
		n -= int64(len(c))
	}
	return out
}

// An idatWriter appends what is written to b as IDAT chunks of up to
// idatChunkSize bytes.
type idatWriter struct {
	b     []byte
	start int // of the open chunk, -1 if none
}

const idatChunkSize = 1 << 20

func (w *idatWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.start < 0 {
			w.start = len(w.b)
			w.b = append(w.b, 0, 0, 0, 0, 'I', 'D', 'A', 'T')
		}
		k := min(len(p), idatChunkSize-(len(w.b)-w.start-8))
		w.b = append(w.b, p[:k]...)
		p = p[k:]
		if len(w.b)-w.start-8 == idatChunkSize {
			w.flush()
		}
	}
	return n, nil
}

// flush closes the open chunk.
func (w *idatWriter) flush() {
	if w.start < 0 {
		return
	}
	binary.BigEndian.PutUint32(w.b[w.start:], uint32(len(w.b)-w.start-8))
	w.b = binary.BigEndian.AppendUint32(w.b, crc32.ChecksumIEEE(w.b[w.start+4:]))
	w.start = -1
}

// pngChunkType reports whether typ is a chunk type libpng reads: four
// ASCII letters.
func pngChunkType(typ string) bool {
	for i := range len(typ) {
		if c := typ[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
