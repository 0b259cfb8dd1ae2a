package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math/bits"
)

// This file is a JPEG decoder for the files most datasets hold: baseline
// and extended sequential Huffman-coded JPEG (SOF0, SOF1), and progressive
// (SOF2, jpegprog.go), with 8-bit samples, gray or YCbCr with any sampling
// factors libjpeg upsamples (each dividing the largest). Its inverse DCT
// is libjpeg's, by default the one TensorFlow's decode_jpeg uses (see
// jpegidct.go), so that its planes are TensorFlow's,
// and it is several times faster than image/jpeg:
// the input is one byte slice, the Huffman decoder reads 9-bit lookup
// tables that also hold the value of short coefficients, every block goes
// straight from the bit stream to its place in the output plane, and all
// memory is reused from one decode to the next.
//
// Whatever else a JPEG may be (arithmetic-coded, 12-bit, lossless,
// hierarchical, CMYK, RGB, sampling factors that do not divide the
// largest) is
// errJPEGUnsupported, for the caller to hand to image/jpeg.
//
// Corrupt data is handled as libjpeg handles it where that is cheap to
// match, and is an error otherwise:
//   - A marker inside entropy-coded data, before the scan or restart
//     interval is complete, ends that interval's data: libjpeg decodes the
//     MCU that ran out with zero bits and leaves the rest of the interval's
//     blocks all zero (uniform gray); so does this decoder. Data resumes at
//     the next restart marker, which is found as libjpeg's
//     resync_to_restart finds it; the intervals before it that
//     resync_to_restart leaves a marker in front of are all zero too.
//   - The input ending early, anywhere, is an error: TensorFlow's source
//     manager refuses truncated input (try_recover_truncated_jpeg is off by
//     default), and so does image/jpeg. A file must end with EOI.
//   - A bit sequence that is no Huffman code is an error, where libjpeg
//     warns and decodes a zero.

// errJPEGUnsupported reports a JPEG this decoder does not handle but which
// may well be valid: the caller should try image/jpeg.
var errJPEGUnsupported = errors.New("jpeg: unsupported by the fast decoder")

// JPEG markers (ITU-T T.81 table B.1) that the decoder acts on.
const (
	jpegSOF0 = 0xc0 // baseline sequential
	jpegSOF1 = 0xc1 // extended sequential, Huffman
	jpegSOF2 = 0xc2 // progressive, Huffman: the last of the SOFs supported
	jpegDHT  = 0xc4
	jpegSOFF = 0xcf // the last SOF
	jpegRST0 = 0xd0
	jpegRST7 = 0xd7
	jpegSOI  = 0xd8
	jpegEOI  = 0xd9
	jpegSOS  = 0xda
	jpegDQT  = 0xdb
	jpegDNL  = 0xdc
	jpegDRI  = 0xdd
	jpegAPP0 = 0xe0
	jpegAP14 = 0xee
	jpegAPPF = 0xef
	jpegCOM  = 0xfe
	jpegTEM  = 0x01
)

// Huffman lookup: the next jpegLUTBits bits of the stream index a table
// whose entries say how many bits to consume and what they decode to.
const (
	jpegLUTBits = 9

	// An entry's low four bits are the bits it consumes: the code's, plus
	// the extra bits of the coefficient's value if lutFolded is set. Bits
	// 8-15 are the symbol (for AC, run<<4 | size); with lutFolded, bits
	// 16-31 are the coefficient's value, signed. A zero entry is a code
	// longer than jpegLUTBits, or no code: the slow path decides.
	lutBits   = 0xf
	lutFolded = 0x10
)

// jpegHuff is one Huffman table, ready for decoding.
type jpegHuff struct {
	lut [1 << jpegLUTBits]int32
	// For codes longer than jpegLUTBits, as in T.81 F.2.2.3: maxCode[l] is
	// the largest code of length l (-1 if none), and valOff[l] turns a code
	// of length l into an index in vals.
	maxCode [17]int32
	valOff  [17]int32
	vals    [256]uint8
	defined bool
}

// jpegComp is one component of the frame.
type jpegComp struct {
	id      uint8
	h, v    int // sampling factors, 1 and 1 for a gray image
	tq      uint8
	bw, bh  int    // blocks covering the component's samples: the extent of a non-interleaved scan
	plane   []byte // the samples, stride × 8·v·(MCU rows), where stride is 8·h·(MCU columns)
	stride  int
	scanned bool
	q       [64]int32 // the quantization table (natural order) at the component's scan, as the IDCT takes it
	pred    int32     // the DC predictor
	dc, ac  *jpegHuff // the tables of the current scan
	coef    []int16   // a progressive JPEG's coefficients, 64 a block of the plane's grid
	nz      []uint64  // and a block's coefficients that may be nonzero

	// For a progressive JPEG's block smoothing (jpegsmooth.go): the
	// quantization table as latched, unscaled, and the bit position to
	// which each of the first ten coefficients (zigzag order) is known,
	// -1 if not at all, after the scans so far and before the
	// component's last scan (libjpeg's coef_bits).
	rawq           [64]int32
	bits, prevBits [smoothCoefs]int8
	// The block rows of one of libjpeg's iMCU rows: v, but for a gray
	// JPEG the factor its frame header gives, which libjpeg keeps.
	iRows int
}

// jpegDecoder holds scratch reused across decodes; not safe for concurrent
// use. Its zero value is ready to use.
type jpegDecoder struct {
	// accurate selects libjpeg's JDCT_ISLOW inverse DCT, which is
	// TensorFlow's dct_method="INTEGER_ACCURATE", over JDCT_IFAST,
	// TensorFlow's default.
	accurate bool

	data []byte

	// The entropy decoder's bit reader. acc holds n bits of the stream,
	// most significant first, the rest zero; pos is the next byte of data
	// to load. Past a marker or the end of the data the reader supplies
	// zeros, and pad counts the zero bits so added at the bottom of acc:
	// n < pad means the decoder has consumed bits the data did not have.
	acc uint64
	n   uint
	pad uint
	pos int

	quant        [4][64]int32 // natural order
	quantDefined [4]bool
	huff         [2][4]jpegHuff // [class: 0 DC, 1 AC][destination]

	width, height  int
	nComp          int
	comp           [3]jpegComp
	hMax, vMax     int
	mcusX, mcusY   int
	restart        int // restart interval in MCUs, 0 for none
	adobeTransform int // -1 without an Adobe APP14 marker

	blk [64]int32 // coefficients of the block being decoded, natural order
	buf []byte    // the planes' memory

	// A progressive JPEG's state (jpegprog.go): the coefficients of all
	// blocks, natural order, and the blocks left in an end-of-band run.
	progressive bool
	coefs       []int16
	nzs         []uint64
	eobrun      uint32
	// The scans so far, and the last iMCU row whose MCU of the last
	// scan began with data to decode (libjpeg's last_good_iMCU_row),
	// which block smoothing needs.
	scans    int
	lastGood int
}

// decode decodes data, a JPEG file, whose planes may take at most maxBytes
// (width × height × components). It returns *image.YCbCr for 3 components,
// laid out as image/jpeg lays it out (planes over whole MCUs, Rect the
// image), or *image.Gray for 1. The image's memory may be reused by the
// next call to decode on d.
func (d *jpegDecoder) decode(data []byte, maxBytes int64) (image.Image, error) {
	d.data = data
	defer func() { d.data = nil }() // a pooled decoder should not keep the input alive
	d.nComp = 0
	d.progressive = false
	d.scans, d.lastGood = 0, 0
	d.restart = 0
	d.adobeTransform = -1
	d.quantDefined = [4]bool{}
	for i := range d.huff {
		for j := range d.huff[i] {
			d.huff[i][j].defined = false
		}
	}

	if len(data) < 2 || data[0] != 0xff || data[1] != jpegSOI {
		return nil, errors.New("jpeg: missing SOI marker")
	}
	d.pos = 2
	for {
		marker, err := d.nextMarker()
		if err != nil {
			return nil, err
		}
		switch {
		case marker == jpegEOI:
			return d.finish()
		case marker == jpegTEM || jpegRST0 <= marker && marker <= jpegRST7:
			// Parameterless; a restart marker out of place is
			// ignored, as libjpeg ignores it.
			continue
		case marker == jpegSOI:
			return nil, errors.New("jpeg: second SOI marker")
		}
		seg, err := d.segment(marker)
		if err != nil {
			return nil, err
		}
		switch {
		case marker == jpegSOF0 || marker == jpegSOF1 || marker == jpegSOF2:
			d.progressive = marker == jpegSOF2
			err = d.parseSOF(seg, maxBytes)
		case jpegSOF2 < marker && marker <= jpegSOFF && marker != jpegDHT:
			// Lossless, arithmetic-coded (SOF9-SOF15 and their DAC
			// tables) or hierarchical, and JPG.
			err = errJPEGUnsupported
		case marker == jpegDHT:
			err = d.parseDHT(seg)
		case marker == jpegDQT:
			err = d.parseDQT(seg)
		case marker == jpegDRI:
			err = d.parseDRI(seg)
		case marker == jpegSOS:
			err = d.parseSOS(seg)
		case marker == jpegAP14:
			d.parseAdobe(seg)
		case jpegAPP0 <= marker && marker <= jpegAPPF || marker == jpegCOM || marker == jpegDNL:
			// Nothing sluice needs. (A DNL defining the height is only
			// allowed with a height of 0 in the SOF, refused there.)
		default:
			// DHP, EXP, JPGn and reserved markers: libjpeg refuses them,
			// image/jpeg tells unknown from unsupported.
			err = errJPEGUnsupported
		}
		if err != nil {
			return nil, err
		}
	}
}

// nextMarker finds the next marker at or after d.pos and returns its code,
// leaving d.pos after it. As libjpeg and image/jpeg do, it skips bytes that
// are not part of a marker (with a warning, in libjpeg), any number of
// 0xff fill bytes before the code, and stuffed 0xff 0x00 pairs.
func (d *jpegDecoder) nextMarker() (byte, error) {
	data := d.data
	for i := d.pos; i+1 < len(data); i++ {
		if data[i] != 0xff {
			continue
		}
		if c := data[i+1]; c != 0 && c != 0xff {
			d.pos = i + 2
			return c, nil
		}
	}
	d.pos = len(data)
	return 0, fmt.Errorf("jpeg: no EOI marker: %w", io.ErrUnexpectedEOF)
}

// segment returns the parameters of the marker segment at d.pos, after
// its length field, and moves d.pos past them.
func (d *jpegDecoder) segment(marker byte) ([]byte, error) {
	if d.pos+2 > len(d.data) {
		return nil, fmt.Errorf("jpeg: marker 0x%02x: segment length: %w", marker, io.ErrUnexpectedEOF)
	}
	n := int(binary.BigEndian.Uint16(d.data[d.pos:]))
	if n < 2 {
		return nil, fmt.Errorf("jpeg: marker 0x%02x: segment length %d", marker, n)
	}
	if d.pos+n > len(d.data) {
		return nil, fmt.Errorf("jpeg: marker 0x%02x: %d-byte segment: %w", marker, n, io.ErrUnexpectedEOF)
	}
	seg := d.data[d.pos+2 : d.pos+n]
	d.pos += n
	return seg, nil
}

// parseDQT reads one or more quantization tables (T.81 B.2.4.1), 8- or
// 16-bit, into natural order.
func (d *jpegDecoder) parseDQT(seg []byte) error {
	for len(seg) > 0 {
		pq, tq := seg[0]>>4, seg[0]&15
		if pq > 1 {
			return fmt.Errorf("jpeg: DQT: bad precision %d", pq)
		}
		if tq > 3 {
			return fmt.Errorf("jpeg: DQT: bad table %d", tq)
		}
		size := 64 << pq
		if len(seg) < 1+size {
			return fmt.Errorf("jpeg: DQT: table %d is %d bytes, want %d", tq, len(seg)-1, size)
		}
		t := &d.quant[tq]
		for k := range 64 {
			if pq == 0 {
				t[unzig[k]] = int32(seg[1+k])
			} else {
				t[unzig[k]] = int32(binary.BigEndian.Uint16(seg[1+2*k:]))
			}
		}
		d.quantDefined[tq] = true
		seg = seg[1+size:]
	}
	return nil
}

// parseDHT reads one or more Huffman tables (T.81 B.2.4.2).
func (d *jpegDecoder) parseDHT(seg []byte) error {
	for len(seg) > 0 {
		if len(seg) < 17 {
			return errors.New("jpeg: DHT: truncated table header")
		}
		tc, th := seg[0]>>4, seg[0]&15
		if tc > 1 || th > 3 {
			return fmt.Errorf("jpeg: DHT: bad table class %d or destination %d", tc, th)
		}
		var counts [16]uint8
		copy(counts[:], seg[1:17])
		total := 0
		for _, c := range counts {
			total += int(c)
		}
		if total > 256 {
			return fmt.Errorf("jpeg: DHT: %d codes, more than 256", total)
		}
		if len(seg) < 17+total {
			return fmt.Errorf("jpeg: DHT: %d symbols, %d bytes", total, len(seg)-17)
		}
		if err := d.huff[tc][th].build(&counts, seg[17:17+total], tc == 0); err != nil {
			return fmt.Errorf("jpeg: DHT: class %d table %d: %w", tc, th, err)
		}
		seg = seg[17+total:]
	}
	return nil
}

// build makes the table for the given code counts by length and symbols
// (T.81 Annex C), with the checks libjpeg makes: a length's codes must not
// overflow it, nor be all one bits, and a DC symbol, a magnitude
// category, is at most 15.
func (h *jpegHuff) build(counts *[16]uint8, vals []byte, dc bool) error {
	h.defined = false
	copy(h.vals[:], vals)
	if dc {
		for _, s := range vals {
			if s > 15 {
				return fmt.Errorf("DC symbol %d", s)
			}
		}
	}
	h.lut = [len(h.lut)]int32{}
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		if code+n >= 1<<l {
			return fmt.Errorf("too many codes of length %d", l)
		}
		h.valOff[l] = k - code
		h.maxCode[l] = -1
		if n > 0 {
			h.maxCode[l] = code + n - 1
		}
		for i := range n {
			if l <= jpegLUTBits {
				h.fill(uint32(code+i), l, vals[k+i])
			}
		}
		code += n
		k += n
		code <<= 1
	}
	h.defined = true
	return nil
}

// fill sets the lookup entries of one code of length l ≤ jpegLUTBits:
// every index whose first l bits are the code. Where the code's extra
// bits also fit in the index, the entry holds the coefficient's value.
func (h *jpegHuff) fill(code uint32, l int, sym byte) {
	size := int(sym & 15) // a DC symbol is all size
	first := code << (jpegLUTBits - l)
	for i := range uint32(1) << (jpegLUTBits - l) {
		idx := first | i
		e := int32(sym)<<8 | int32(l)
		if l+size <= jpegLUTBits {
			extra := idx >> (jpegLUTBits - l - size) & (1<<size - 1)
			e = extend(extra, uint(size))<<16 | int32(sym)<<8 | lutFolded | int32(l+size)
		}
		h.lut[idx] = e
	}
}

// slow decodes a code longer than jpegLUTBits from the top of acc and
// returns its symbol and length, or length 0 if acc starts with no code.
func (h *jpegHuff) slow(acc uint64) (sym byte, l uint) {
	for l := uint(jpegLUTBits + 1); l <= 16; l++ {
		c := int32(acc >> (64 - l))
		if c <= h.maxCode[l] {
			return h.vals[uint8(c+h.valOff[l])], l
		}
	}
	return 0, 0
}

// extend turns the s extra bits v of a coefficient of magnitude category s
// into its value (T.81 F.2.2.1): the upper half of the range stands for
// itself, the lower half for the negative values.
func extend(v uint32, s uint) int32 {
	if s == 0 {
		return 0
	}
	if v < 1<<(s-1) {
		return int32(v) - (1 << s) + 1
	}
	return int32(v)
}

// parseDRI reads the restart interval (T.81 B.2.4.4). An interval of 0
// turns restarts off, as libjpeg and image/jpeg read it.
func (d *jpegDecoder) parseDRI(seg []byte) error {
	if len(seg) != 2 {
		return fmt.Errorf("jpeg: DRI: %d bytes, want 2", len(seg))
	}
	d.restart = int(binary.BigEndian.Uint16(seg))
	return nil
}

// parseAdobe notes the color transform of an Adobe APP14 segment, which
// says whether three components are YCbCr (1) or RGB (0).
func (d *jpegDecoder) parseAdobe(seg []byte) {
	if len(seg) >= 12 && string(seg[:5]) == "Adobe" {
		d.adobeTransform = int(seg[11])
	}
}

// rgb reports whether nComp components are RGB rather than YCbCr: with
// an Adobe transform of 0, as libjpeg and image/jpeg read it, or with the
// component IDs 'R', 'G', 'B', as image/jpeg reads them without a JFIF
// segment. (libjpeg lets a JFIF segment override both; image/jpeg the
// second. The caller's fallback sorts that out.)
func (d *jpegDecoder) rgb(nComp int) bool {
	return nComp == 3 && (d.adobeTransform == 0 ||
		d.comp[0].id == 'R' && d.comp[1].id == 'G' && d.comp[2].id == 'B')
}

// parseSOF reads the frame header (T.81 B.2.2) and allocates the planes.
func (d *jpegDecoder) parseSOF(seg []byte, maxBytes int64) error {
	if d.nComp != 0 {
		return errors.New("jpeg: second SOF marker")
	}
	if len(seg) < 6 {
		return fmt.Errorf("jpeg: SOF: %d bytes", len(seg))
	}
	if seg[0] != 8 {
		return errJPEGUnsupported // 12-bit samples
	}
	d.height = int(binary.BigEndian.Uint16(seg[1:]))
	d.width = int(binary.BigEndian.Uint16(seg[3:]))
	nComp := int(seg[5])
	if len(seg) != 6+3*nComp {
		return fmt.Errorf("jpeg: SOF: %d bytes for %d components", len(seg), nComp)
	}
	if d.width == 0 || d.height == 0 {
		// A height of 0 defers it to a DNL marker, which libjpeg does
		// not support either.
		return fmt.Errorf("jpeg: SOF: empty image, %d×%d", d.width, d.height)
	}
	if err := checkJPEGDimensions(d.width, d.height); err != nil {
		return err
	}
	switch nComp {
	case 1, 3:
	case 0:
		return errors.New("jpeg: SOF: no components")
	default:
		return errJPEGUnsupported
	}
	for i := range nComp {
		p := seg[6+3*i:]
		c := &d.comp[i]
		c.id, c.h, c.v, c.tq = p[0], int(p[1]>>4), int(p[1]&15), p[2]
		c.scanned = false
		c.bits, c.prevBits = unknownBits, unknownBits
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 {
			return fmt.Errorf("jpeg: SOF: component %d: sampling factors %d×%d", c.id, c.h, c.v)
		}
		if c.tq > 3 {
			return fmt.Errorf("jpeg: SOF: component %d: quantization table %d", c.id, c.tq)
		}
		for j := range i {
			if d.comp[j].id == c.id {
				return fmt.Errorf("jpeg: SOF: component %d twice", c.id)
			}
		}
	}
	for i := range nComp {
		d.comp[i].iRows = d.comp[i].v
	}
	d.hMax, d.vMax = 1, 1
	if nComp == 1 {
		// A single component is non-interleaved by definition, its MCU
		// one block whatever its sampling factors (T.81 A.2); they
		// still group its block rows into iMCU rows (iRows).
		d.comp[0].h, d.comp[0].v = 1, 1
	} else {
		// RGB, which libjpeg infers from an Adobe transform of 0 or (as
		// image/jpeg does) from component IDs 'R', 'G', 'B', goes to
		// image/jpeg.
		if d.rgb(nComp) {
			return errJPEGUnsupported
		}
		for _, c := range d.comp[:nComp] {
			d.hMax, d.vMax = max(d.hMax, c.h), max(d.vMax, c.v)
		}
		// Any sampling factors are upsampled, as libjpeg upsamples
		// them, if each divides the largest; libjpeg refuses the rest
		// (JERR_FRACT_SAMPLE_NOTIMPL), as image/jpeg does.
		for _, c := range d.comp[:nComp] {
			if d.hMax%c.h != 0 || d.vMax%c.v != 0 {
				return errJPEGUnsupported
			}
		}
	}
	d.nComp = nComp
	d.mcusX = (d.width + 8*d.hMax - 1) / (8 * d.hMax)
	d.mcusY = (d.height + 8*d.vMax - 1) / (8 * d.vMax)

	// The limit is on the image's samples; planes over whole MCUs add at
	// most 31 columns and 15 rows, a few megabytes at 65535×65535.
	if size := int64(d.width) * int64(d.height) * int64(nComp); size > maxBytes {
		return fmt.Errorf("jpeg: %w: %d×%d×%d samples take %d bytes, over the limit of %d",
			ErrImageTooLarge, d.width, d.height, nComp, size, maxBytes)
	}
	total := 0
	for i := range nComp {
		c := &d.comp[i]
		c.stride = 8 * c.h * d.mcusX
		total += c.stride * 8 * c.v * d.mcusY
		// The component's size in samples (T.81 A.1.1), in blocks.
		c.bw = ((d.width*c.h+d.hMax-1)/d.hMax + 7) / 8
		c.bh = ((d.height*c.v+d.vMax-1)/d.vMax + 7) / 8
	}
	if cap(d.buf) < total {
		d.buf = make([]byte, total)
	}
	buf := d.buf[:total]
	for i := range nComp {
		c := &d.comp[i]
		n := c.stride * 8 * c.v * d.mcusY
		c.plane, buf = buf[:n:n], buf[n:]
	}
	if d.progressive {
		// Two bytes a coefficient, one coefficient a sample: twice the
		// planes' bytes, which the limit has bounded.
		if cap(d.coefs) < total {
			d.coefs = make([]int16, total)
		}
		if cap(d.nzs) < total/64 {
			d.nzs = make([]uint64, total/64)
		}
		coefs, nzs := d.coefs[:total], d.nzs[:total/64]
		clear(coefs)
		clear(nzs)
		for i := range nComp {
			c := &d.comp[i]
			n := c.stride * 8 * c.v * d.mcusY
			c.coef, coefs = coefs[:n:n], coefs[n:]
			c.nz, nzs = nzs[:n/64:n/64], nzs[n/64:]
		}
	}
	return nil
}

// ycbcrRatio is the subsample ratio of chroma subsampled h:1
// horizontally and v:1 vertically, or -1 if image.YCbCr has none.
func ycbcrRatio(h, v int) image.YCbCrSubsampleRatio {
	switch h<<4 | v {
	case 0x11:
		return image.YCbCrSubsampleRatio444
	case 0x12:
		return image.YCbCrSubsampleRatio440
	case 0x21:
		return image.YCbCrSubsampleRatio422
	case 0x22:
		return image.YCbCrSubsampleRatio420
	case 0x41:
		return image.YCbCrSubsampleRatio411
	case 0x42:
		return image.YCbCrSubsampleRatio410
	}
	return -1
}

// parseSOS reads a scan header (T.81 B.2.3) and decodes the scan.
func (d *jpegDecoder) parseSOS(seg []byte) error {
	if d.nComp == 0 {
		return errors.New("jpeg: SOS before SOF")
	}
	if len(seg) < 1 {
		return errors.New("jpeg: SOS: empty")
	}
	ns := int(seg[0])
	if ns < 1 || ns > d.nComp || len(seg) != 4+2*ns {
		return fmt.Errorf("jpeg: SOS: %d bytes for %d components of %d", len(seg), ns, d.nComp)
	}
	if d.rgb(d.nComp) { // an Adobe segment after the SOF
		return errJPEGUnsupported
	}
	// The spectral selection and successive approximation fields (Ss, Se,
	// Ah, Al) mean nothing in a sequential scan; libjpeg only warns when
	// they are not 0, 63, 0, 0, and ignores them.
	var prog progScan
	needDC, needAC := true, true
	if d.progressive {
		var err error
		if prog, err = parseProgScan(seg[1+2*ns:], ns); err != nil {
			return err
		}
		needDC, needAC = prog.ss == 0 && prog.ah == 0, prog.ss > 0
	}
	var comps [3]*jpegComp
	blocks := 0
	for i := range ns {
		id, tables := seg[1+2*i], seg[2+2*i]
		var c *jpegComp
		for j := range d.nComp {
			if d.comp[j].id == id {
				c = &d.comp[j]
			}
		}
		if c == nil {
			return fmt.Errorf("jpeg: SOS: component %d is not in the frame", id)
		}
		for _, o := range comps[:i] {
			if o == c {
				return fmt.Errorf("jpeg: SOS: component %d twice", id)
			}
		}
		td, ta := tables>>4, tables&15
		if td > 3 || ta > 3 {
			return fmt.Errorf("jpeg: SOS: component %d: Huffman tables DC %d, AC %d do not exist", id, td, ta)
		}
		// libjpeg-turbo's default for motion JPEG, a sequential JPEG's
		// only: its progressive decoder has none, and refuses a scan
		// whose table is not defined, rather than decode it with tables
		// its encoder never used (audit 87).
		for class, dest := range [2]uint8{td, ta} {
			if h := &d.huff[class][dest]; !h.defined && dest < 2 && !d.progressive {
				*h = stdHuff()[class][dest]
			}
		}
		if needDC && !d.huff[0][td].defined || needAC && !d.huff[1][ta].defined {
			return fmt.Errorf("jpeg: SOS: component %d: Huffman tables DC %d, AC %d not defined", id, td, ta)
		}
		c.dc, c.ac = &d.huff[0][td], &d.huff[1][ta]
		// A sequential JPEG codes each component in exactly one scan
		// (T.81 B.2.3); refusing more also bounds the work a small
		// hostile file can ask for.
		if c.scanned && !d.progressive {
			return fmt.Errorf("jpeg: SOS: component %d in a second scan", id)
		}
		if !c.scanned {
			// The table in force at a component's first scan is the
			// one it is dequantized with, as libjpeg latches it.
			if !d.quantDefined[c.tq] {
				return fmt.Errorf("jpeg: SOS: component %d: quantization table %d not defined", id, c.tq)
			}
			c.rawq = d.quant[c.tq]
			if d.accurate {
				c.q = d.quant[c.tq]
			} else {
				ifastQuant(&c.q, &d.quant[c.tq])
			}
		}
		c.scanned = true
		comps[i] = c
		blocks += c.h * c.v
	}
	if ns > 1 && blocks > 10 {
		return fmt.Errorf("jpeg: SOS: %d blocks in an MCU, more than 10", blocks)
	}
	if d.progressive {
		d.scans++
		for _, c := range comps[:ns] {
			c.noteScan(prog, d.scans)
		}
		return d.decodeProgScan(comps[:ns], prog)
	}
	return d.decodeScan(comps[:ns])
}

// finish returns the image after EOI.
func (d *jpegDecoder) finish() (image.Image, error) {
	if d.nComp == 0 {
		return nil, errors.New("jpeg: EOI before SOF")
	}
	for i := range d.nComp {
		if c := &d.comp[i]; !c.scanned {
			return nil, fmt.Errorf("jpeg: component %d has no scan", c.id)
		}
	}
	if d.progressive {
		d.finishProgressive()
	}
	r := image.Rect(0, 0, d.width, d.height)
	if d.nComp == 1 {
		c := &d.comp[0]
		return &image.Gray{Pix: c.plane, Stride: c.stride, Rect: r}, nil
	}
	y, cb, cr := &d.comp[0], &d.comp[1], &d.comp[2]
	if y.h == d.hMax && y.v == d.vMax && cb.h == cr.h && cb.v == cr.v {
		if ratio := ycbcrRatio(d.hMax/cb.h, d.vMax/cb.v); ratio >= 0 {
			return &image.YCbCr{
				Y: y.plane, Cb: cb.plane, Cr: cr.plane,
				YStride: y.stride, CStride: cb.stride,
				SubsampleRatio: ratio,
				Rect:           r,
			}, nil
		}
	}
	m := &jpegYCbCr{rect: r}
	for i := range m.planes {
		c := &d.comp[i]
		m.planes[i] = yccPlane{pix: c.plane, stride: c.stride, hx: d.hMax / c.h, vy: d.vMax / c.v}
	}
	return m, nil
}

// decodeScan decodes the entropy-coded data of a scan of comps, starting
// at d.pos, and leaves d.pos at the marker that ends it.
func (d *jpegDecoder) decodeScan(comps []*jpegComp) error {
	d.acc, d.n, d.pad = 0, 0, 0
	for _, c := range comps {
		c.pred = 0
	}
	// An interleaved scan is made of MCUs of h×v blocks of each of its
	// components; a single component's scan is its blocks in raster order
	// (T.81 A.2), which cover the samples of that component only, not the
	// whole MCUs of the frame.
	mcusX, mcusY := d.mcusX, d.mcusY
	single := len(comps) == 1
	if single {
		c := comps[0]
		mcusX, mcusY = c.bw, c.bh
		if d.nComp > 1 {
			// Blocks at the right and bottom of the plane that the
			// scan does not reach would keep the last image's samples.
			clear(c.plane)
		}
	}
	rst := restarts{todo: d.restart}
	// After a marker cut an interval short, its remaining MCUs are
	// zero, as libjpeg makes them (the insufficient_data flag), and so
	// are those of the intervals after it until a restart marker is
	// read (restartDue).
	empty := false
	for my := range mcusY {
		for mx := range mcusX {
			if d.restartDue(&rst, comps) {
				empty = false
			}
			for _, c := range comps {
				h, v := c.h, c.v
				if single {
					h, v = 1, 1
				}
				for by := range v {
					row := (my*v + by) * 8 * c.stride
					for bx := range h {
						dst := c.plane[row+(mx*h+bx)*8:]
						if empty {
							fillBlock(dst, c.stride, 128)
							continue
						}
						if err := d.decodeBlock(c, dst); err != nil {
							return fmt.Errorf("jpeg: %w in the block at (%d, %d) of component %d",
								err, (mx*h+bx)*8, (my*v+by)*8, c.id)
						}
					}
				}
			}
			if d.n < d.pad {
				empty = true
			}
		}
		if d.pad > 0 && d.pos >= len(d.data) {
			return fmt.Errorf("jpeg: scan data ends in MCU row %d of %d: %w", my, mcusY, io.ErrUnexpectedEOF)
		}
	}
	return nil
}

// restarts counts a scan's way through its restart intervals.
type restarts struct {
	todo int // MCUs left in the interval
	next int // the number (0-7) of the restart marker that ends it
}

// restartDue counts one more MCU of the scan of comps, and, at the start
// of a new restart interval, moves past the marker that ends the last,
// resets the DC predictors and the end-of-band run, and reports whether
// the interval's data is there to decode: true unless resync left a
// marker in its way. libjpeg (jdhuff.c, jdphuff.c process_restart) clears
// its insufficient_data flag only after it has read the restart marker;
// where resync_to_restart leaves a marker, the flag stays as the last
// interval left it, so an interval after one cut short by a stray marker
// is not decoded at all.
func (d *jpegDecoder) restartDue(r *restarts, comps []*jpegComp) bool {
	if d.restart == 0 {
		return false
	}
	due := r.todo == 0
	if due {
		due = d.resync(r.next)
		r.next = (r.next + 1) & 7
		for _, c := range comps {
			c.pred = 0
		}
		d.eobrun = 0
		r.todo = d.restart
	}
	r.todo--
	return due
}

// resync moves past restart marker number want (0-7) at the end of a
// restart interval, drops what is left of the interval's bits, and
// reports whether it moved past a marker. If the marker is another, it
// does what libjpeg's resync_to_restart does: a marker below SOF0 (which
// cannot be a restart), or one of the two restarts before the wanted one,
// is skipped, and the search goes on; one of the two restarts after it,
// or any other marker, is left where it is, for the next interval to run
// into at once, and resync reports false; any other restart is taken for
// the wanted one.
func (d *jpegDecoder) resync(want int) bool {
	d.acc, d.n, d.pad = 0, 0, 0
	for {
		m, err := d.nextMarker()
		if err != nil {
			return true // the data ends: the scan fails at its next check
		}
		r := int(m) - jpegRST0
		switch {
		case r == want:
			return true
		case m < jpegSOF0 || r == (want-1)&7 || r == (want-2)&7:
			continue
		case r < 0 || r > 7 || r == (want+1)&7 || r == (want+2)&7:
			d.pos -= 2 // leave the marker where it is
			return false
		default:
			return true
		}
	}
}

// decodeBlock decodes one block's coefficients (T.81 F.2.2) and writes its
// inverse DCT at dst, in c's plane.
func (d *jpegDecoder) decodeBlock(c *jpegComp, dst []byte) error {
	acc, n := d.acc, d.n
	blk := &d.blk

	// Every symbol with its extra bits takes at most 16 + 15 bits, and
	// fill leaves at least 57: one check per coefficient suffices.
	if n < 32 {
		acc, n = d.fill(acc, n)
	}
	var diff int32
	if e := c.dc.lut[acc>>(64-jpegLUTBits)]; e&lutFolded != 0 {
		l := uint(e & lutBits)
		acc <<= l
		n -= l
		diff = e >> 16
	} else {
		var s, l uint
		if e != 0 {
			s, l = uint(e>>8&15), uint(e&lutBits)
		} else {
			var sym byte
			if sym, l = c.dc.slow(acc); l == 0 {
				d.acc, d.n = acc, n
				return errors.New("bad Huffman code")
			}
			s = uint(sym) // checked ≤ 15 when the table was built
		}
		acc <<= l
		diff = extend(uint32(acc>>(64-s)), s)
		acc <<= s
		n -= l + s
	}
	// libjpeg keeps the predictor in an int and the coefficient in 16
	// bits; the two differ only in corrupt data.
	c.pred += diff
	blk[0] = int32(int16(c.pred))

	ac := &c.ac.lut
	nz := uint64(1) // the coefficients set, by natural index; the DC term always
	for k := 1; k < 64; k++ {
		if n < 32 {
			acc, n = d.fill(acc, n)
		}
		e := ac[acc>>(64-jpegLUTBits)]
		if e&lutFolded != 0 {
			l := uint(e & lutBits)
			acc <<= l
			n -= l
			run, size := int(e>>12&15), e>>8&15
			if size == 0 {
				if run != 15 {
					break // end of block
				}
				k += 15 // sixteen zeros
				continue
			}
			k += run
			// Runs past the end land on the last coefficient, as in
			// libjpeg, whose zigzag table is padded with 63s.
			z := unzig[k&127]
			blk[z] = e >> 16
			nz |= 1 << z
			continue
		}
		var sym byte
		var l uint
		if e != 0 {
			sym, l = byte(e>>8), uint(e&lutBits)
		} else if sym, l = c.ac.slow(acc); l == 0 {
			d.acc, d.n = acc, n
			// d.blk is to be all zeros between blocks, for the next
			// decode too when d is pooled.
			for m := nz; m != 0; m &= m - 1 {
				blk[bits.TrailingZeros64(m)&63] = 0
			}
			return errors.New("bad Huffman code")
		}
		acc <<= l
		n -= l
		run, size := int(sym>>4), uint(sym&15)
		if size == 0 {
			if run != 15 {
				break
			}
			k += 15
			continue
		}
		k += run
		z := unzig[k&127]
		blk[z] = extend(uint32(acc>>(64-size)), size)
		nz |= 1 << z
		acc <<= size
		n -= size
	}
	d.acc, d.n = acc, n

	switch {
	case nz == 1:
		// A flat block, the commonest kind in smooth areas and chroma.
		v := ifastDC(blk[0] * c.q[0])
		if d.accurate {
			v = islowDC(blk[0] * c.q[0])
		}
		fillBlock(dst, c.stride, v)
	case d.accurate:
		idctIslow(dst, c.stride, blk, &c.q, nz)
	default:
		idctIfast(dst, c.stride, blk, &c.q, nz)
	}
	for m := nz; m != 0; m &= m - 1 {
		blk[bits.TrailingZeros64(m)&63] = 0
	}
	return nil
}

// fill loads bytes of entropy-coded data into acc, which holds n bits,
// until it holds more than 56, and returns acc and the new count. It
// removes the 0x00 stuffed after a 0xff data byte; at a marker (0xff and
// any other byte) or the end of the data it adds zero bits instead,
// counting them in d.pad, and leaves d.pos at the marker.
func (d *jpegDecoder) fill(acc uint64, n uint) (uint64, uint) {
	data, pos := d.data, d.pos
	for n <= 56 {
		if pos+8 <= len(data) {
			x := binary.BigEndian.Uint64(data[pos:])
			// With no 0xff among the next 8 bytes, which is the usual
			// case, take as many whole bytes as fit at once. (A zero
			// byte in ^x is a 0xff in x.)
			const lo, hi = 0x0101010101010101, 0x8080808080808080
			if (^x-lo)&x&hi == 0 {
				k := (64 - n) / 8
				acc |= x >> (64 - 8*k) << (64 - 8*k - n)
				d.pos = pos + int(k)
				return acc, n + 8*k
			}
		}
		if pos >= len(data) {
			break
		}
		b := data[pos]
		if b == 0xff {
			if pos+1 >= len(data) {
				pos = len(data) // a lone 0xff at the end
				break
			}
			if data[pos+1] != 0 {
				break // a marker
			}
			pos++ // the stuffed zero
		}
		pos++
		acc |= uint64(b) << (56 - n)
		n += 8
	}
	d.pos = pos
	if n <= 56 {
		d.pad += 64 - n
		n = 64
	}
	return acc, n
}

// unzig maps the zigzag order of T.81 figure A.6 to natural (row-major)
// order. Indexes past 63 map to 63, so that a corrupt run cannot leave the
// block, and a mask of 127 keeps the index in the table without a bounds
// check.
var unzig = func() (t [128]uint8) {
	// Walk the antidiagonals x+y = s, alternately up and to the right
	// (even s) and down and to the left (odd s).
	k := 0
	for s := range 15 {
		for i := range 8 {
			x, y := s-i, i // down and to the left
			if s%2 == 0 {
				x, y = i, s-i
			}
			if x < 0 || x > 7 || y < 0 || y > 7 {
				continue
			}
			t[k] = uint8(8*y + x)
			k++
		}
	}
	for k := 64; k < len(t); k++ {
		t[k] = 63
	}
	return t
}()
