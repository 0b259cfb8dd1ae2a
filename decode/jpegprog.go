package decode

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// Progressive JPEGs (SOF2, T.81 Annex G) send each block's coefficients
// over several scans: spectral selection splits a block's zigzag range
// [0, 63] into bands (the DC term first, in a scan that may interleave
// components; each AC band in a scan of one component), and successive
// approximation sends a band's high bits first and its lower bits in
// refinement scans. So the coefficients of the whole image are kept,
// as int16 as libjpeg keeps them, and the inverse DCT runs once the last
// scan is in (finishProgressive), with the quantization table each
// component had at its first scan, as libjpeg latches it.

// progScan is one progressive scan's parameters (T.81 B.2.3).
type progScan struct {
	ss, se int  // the band of zigzag indices
	ah, al uint // successive approximation: the bit position before and now
}

// parseProgScan reads and checks the parameters after a progressive
// scan's components, as libjpeg checks them (jdinput.c, jdphuff.c).
func parseProgScan(p []byte, ns int) (progScan, error) {
	s := progScan{ss: int(p[0]), se: int(p[1]), ah: uint(p[2] >> 4), al: uint(p[2] & 15)}
	switch {
	case s.ss == 0 && s.se != 0, s.ss > s.se, s.se > 63, s.al > 13, s.ah > 13:
		return s, fmt.Errorf("jpeg: SOS: bad progression Ss %d, Se %d, Ah %d, Al %d", s.ss, s.se, s.ah, s.al)
	case s.ss > 0 && ns != 1:
		return s, fmt.Errorf("jpeg: SOS: an AC scan of %d components", ns)
	case s.ah != 0 && s.al != s.ah-1:
		return s, fmt.Errorf("jpeg: SOS: refinement from bit %d to %d", s.ah, s.al)
	}
	return s, nil
}

// block returns the coefficients of component c's block (bx, by) of its
// MCU-aligned grid, and the set of those that may be nonzero (bit i for
// natural index i), which the inverse DCT takes.
func (c *jpegComp) block(bx, by int) ([]int16, *uint64) {
	i := by*(c.stride/8) + bx
	return c.coef[64*i : 64*i+64 : 64*i+64], &c.nz[i]
}

// decodeProgScan decodes the entropy-coded data of a progressive scan of
// comps, as decodeScan does a sequential one's.
func (d *jpegDecoder) decodeProgScan(comps []*jpegComp, s progScan) error {
	d.acc, d.n, d.pad = 0, 0, 0
	for _, c := range comps {
		c.pred = 0
	}
	d.eobrun = 0
	mcusX, mcusY := d.mcusX, d.mcusY
	single := len(comps) == 1
	if single {
		mcusX, mcusY = comps[0].bw, comps[0].bh
	}
	rst := restarts{todo: d.restart}
	// After the data of an interval ran out (a marker inside it), its
	// remaining MCUs are left as they are, as libjpeg leaves them, and
	// so are those of the intervals after it until a restart marker is
	// read (restartDue).
	empty := false
	for my := range mcusY {
		// The iMCU row: a non-interleaved scan's MCU is one block.
		row := my
		if single {
			row = my / comps[0].iRows
		}
		for mx := range mcusX {
			// libjpeg notes the row before its restart processing.
			if !empty {
				d.lastGood = row
			}
			if d.restartDue(&rst, comps) {
				empty = false
			}
			if empty {
				continue
			}
			for _, c := range comps {
				h, v := c.h, c.v
				if single {
					h, v = 1, 1
				}
				for by := range v {
					for bx := range h {
						x, y := mx*h+bx, my*v+by
						coef, nz := c.block(x, y)
						if err := d.progBlock(c, coef, nz, s); err != nil {
							return fmt.Errorf("jpeg: %w in the block at (%d, %d) of component %d", err, 8*x, 8*y, c.id)
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

// progBlock decodes one block's part of a progressive scan into coef,
// adding to nz the coefficients it sets.
func (d *jpegDecoder) progBlock(c *jpegComp, coef []int16, nz *uint64, s progScan) error {
	switch {
	case s.ss == 0 && s.ah == 0: // DC, first scan
		size, err := d.symbol(c.dc)
		if err != nil {
			return err
		}
		c.pred += extend(d.bits(uint(size)), uint(size))
		coef[0] = int16(c.pred << s.al)
		*nz |= 1
	case s.ss == 0: // DC, refinement: one bit
		if d.bits(1) != 0 {
			// The first scan set nz's DC bit, unless its interval was
			// cut short before this block.
			coef[0] |= 1 << s.al
			*nz |= 1
		}
	case s.ah == 0:
		return d.acFirst(c, coef, nz, s)
	default:
		return d.acRefine(c, coef, nz, s)
	}
	return nil
}

// acFirst decodes a band's first scan (T.81 G.1.2.2): run-length coded
// values, shifted up by Al, with runs of blocks ending early (EOBRUN).
func (d *jpegDecoder) acFirst(c *jpegComp, coef []int16, nz *uint64, s progScan) error {
	if d.eobrun > 0 {
		d.eobrun--
		return nil
	}
	for k := s.ss; k <= s.se; k++ {
		rs, err := d.symbol(c.ac)
		if err != nil {
			return err
		}
		r, size := int(rs>>4), uint(rs&15)
		if size == 0 {
			if r == 15 {
				k += 15 // sixteen zeros
				continue
			}
			d.eobrun = 1<<r + d.bits(uint(r)) - 1 // this block is the run's first
			return nil
		}
		k += r
		z := unzig[k&127]
		coef[z] = int16(extend(d.bits(size), size) << s.al)
		*nz |= 1 << z
	}
	return nil
}

// acRefine decodes a band's refinement scan (T.81 G.1.2.3): a correction
// bit for each coefficient already nonzero, and new coefficients of ±1 at
// bit Al placed among the zeros, the runs counting zeros only. It is most
// of a progressive JPEG's decoding time, so the bit reader's state is kept
// in locals, as decodeBlock keeps it.
func (d *jpegDecoder) acRefine(c *jpegComp, coef []int16, nz *uint64, s progScan) error {
	p1, m1 := int16(1)<<s.al, int16(-1)<<s.al
	acc, n := d.acc, d.n
	defer func() { d.acc, d.n = acc, n }()
	bit := func() bool {
		if n < 32 {
			acc, n = d.fill(acc, n)
		}
		b := acc>>63 != 0
		acc <<= 1
		n--
		return b
	}
	// refine applies the correction bit of a nonzero coefficient: if set,
	// and the coefficient lacks the bit, it grows away from zero by it.
	refine := func(z *int16) {
		if bit() && *z&p1 == 0 {
			if *z >= 0 {
				*z += p1
			} else {
				*z += m1
			}
		}
	}
	k := s.ss
	if d.eobrun == 0 {
		for ; k <= s.se; k++ {
			if n < 32 {
				acc, n = d.fill(acc, n)
			}
			rs, l := c.ac.decode(acc)
			if l == 0 {
				return errors.New("bad Huffman code")
			}
			acc <<= l
			n -= l
			r, size := int(rs>>4), rs&15
			var v int16
			if size != 0 {
				// Size 1 is the only one allowed; libjpeg warns of
				// others and reads them as 1.
				v = m1
				if bit() {
					v = p1
				}
			} else if r != 15 {
				if n < 32 {
					acc, n = d.fill(acc, n)
				}
				d.eobrun = 1<<r + uint32(acc>>(64-uint(r))&(1<<r-1))
				acc <<= uint(r)
				n -= uint(r)
				break
			}
			for ; k <= s.se; k++ {
				z := &coef[unzig[k&127]]
				if *z != 0 {
					refine(z)
				} else {
					if r == 0 {
						break
					}
					r--
				}
			}
			if v != 0 {
				z := unzig[k&127]
				coef[z] = v
				*nz |= 1 << z
			}
		}
	}
	if d.eobrun > 0 {
		for ; k <= s.se; k++ {
			if z := &coef[unzig[k&127]]; *z != 0 {
				refine(z)
			}
		}
		d.eobrun--
	}
	return nil
}

// decode decodes the Huffman symbol at the top of acc, which holds at
// least 16 bits, and returns it with its code's length, or length 0 if
// acc starts with no code.
func (h *jpegHuff) decode(acc uint64) (byte, uint) {
	e := h.lut[acc>>(64-jpegLUTBits)]
	if e == 0 {
		return h.slow(acc)
	}
	sym, l := byte(e>>8), uint(e&lutBits)
	if e&lutFolded != 0 {
		l -= uint(sym & 15) // the entry's length takes in the value's bits
	}
	return sym, l
}

// symbol decodes one Huffman symbol with h.
func (d *jpegDecoder) symbol(h *jpegHuff) (byte, error) {
	if d.n < 32 {
		d.acc, d.n = d.fill(d.acc, d.n)
	}
	sym, l := h.decode(d.acc)
	if l == 0 {
		return 0, errors.New("bad Huffman code")
	}
	d.acc <<= l
	d.n -= l
	return sym, nil
}

// bits reads n ≤ 16 bits.
func (d *jpegDecoder) bits(n uint) uint32 {
	if n == 0 {
		return 0
	}
	if d.n < 32 {
		d.acc, d.n = d.fill(d.acc, d.n)
	}
	v := uint32(d.acc >> (64 - n))
	d.acc <<= n
	d.n -= n
	return v
}

// finishProgressive writes the inverse DCT of every block of every
// component, after the last scan, into its plane, smoothing the blocks
// first where libjpeg would (jpegsmooth.go).
func (d *jpegDecoder) finishProgressive() {
	smooth := d.smoothingOK()
	var blk [64]int32
	for i := range d.nComp {
		c := &d.comp[i]
		// The whole grid of the plane: interleaved scans code the
		// blocks that pad MCUs too, as image/jpeg writes them.
		for by := range len(c.plane) / c.stride / 8 {
			var known *[smoothCoefs]int8
			if smooth && by < c.bh {
				known = d.smoothBits(c, by)
			}
			for bx := range c.stride / 8 {
				coef, set := c.block(bx, by)
				nz := *set
				for m := nz; m != 0; m &= m - 1 {
					z := bits.TrailingZeros64(m) & 63
					blk[z] = int32(coef[z])
				}
				if known != nil && bx < c.bw {
					nz = c.smoothBlock(bx, by, known, &blk, nz)
				}
				d.idct(c, bx, by, &blk, nz)
				for m := nz; m != 0; m &= m - 1 {
					blk[bits.TrailingZeros64(m)&63] = 0
				}
			}
		}
	}
}

// idct writes the inverse DCT of blk, whose coefficients not in nz are
// zero, at block (bx, by) of c's plane.
func (d *jpegDecoder) idct(c *jpegComp, bx, by int, blk *[64]int32, nz uint64) {
	dst := c.plane[by*8*c.stride+bx*8:]
	switch {
	case nz&^1 == 0:
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
}
