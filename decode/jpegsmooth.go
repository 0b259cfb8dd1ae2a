package decode

// Block smoothing of progressive JPEGs, as libjpeg-turbo 2.1 (the one
// TensorFlow 2.21 bundles) does it in jdcoefct.c (decompress_smooth_data)
// with do_block_smoothing on, its default and TensorFlow's. Where a
// progressive JPEG's scans leave any of the first nine AC coefficients of
// some component imprecise (successive approximation without the
// refinement scans) or unsent (a DC-only file, spectral selection cut
// short), libjpeg estimates those of each block that are still zero from
// the DC terms of the 5×5 blocks around it, and, if no AC coefficient of
// the component was sent at all, replaces its DC term too with a weighted
// average; the inverse DCT then takes the estimates. Only the output
// pass smooths: the coefficients kept are the decoded ones. A JPEG whose
// first ten coefficients are all exact, every baseline and complete
// progressive JPEG, is not smoothed, and costs nothing more.

// smoothCoefs is how many coefficients (in zigzag order) smoothing looks
// at: the DC term and the nine lowest AC terms, libjpeg's SAVED_COEFS.
const smoothCoefs = 10

// unknownBits is the known bits of a component before its first scan.
var unknownBits = [smoothCoefs]int8{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}

// noteScan records, as libjpeg's start_pass_phuff_decoder does, that a
// progressive scan s, the JPEG's scan number n, covers c: the known bits
// before it, and those it brings.
func (c *jpegComp) noteScan(s progScan, n int) {
	for k := 1; k < smoothCoefs; k++ {
		c.prevBits[k] = 0
		if n > 1 {
			c.prevBits[k] = c.bits[k]
		}
	}
	for k := s.ss; k <= min(s.se, smoothCoefs-1); k++ {
		c.bits[k] = int8(s.al)
	}
}

// smoothingOK reports whether libjpeg would smooth the blocks (its
// smoothing_ok): every component's DC terms are at least partly known,
// its quantization steps for the ten coefficients are nonzero (they
// divide), and some component has one of the nine AC terms inexact.
func (d *jpegDecoder) smoothingOK() bool {
	useful := false
	for i := range d.nComp {
		c := &d.comp[i]
		if c.bits[0] < 0 {
			return false
		}
		for _, z := range smoothZ {
			if c.rawq[z] == 0 {
				return false
			}
		}
		for _, b := range c.bits[1:] {
			useful = useful || b != 0
		}
	}
	return useful
}

// smoothBits is the known bits libjpeg smooths block row by of c with:
// those after the last scan, or, in the iMCU rows after the last that
// scan had data for (a marker cut it short), those before it.
func (d *jpegDecoder) smoothBits(c *jpegComp, by int) *[smoothCoefs]int8 {
	if by/c.iRows > d.lastGood {
		// libjpeg latches -1s, not the bits before, if the JPEG has
		// one scan.
		if d.scans == 1 {
			return &unknownBits
		}
		return &c.prevBits
	}
	return &c.bits
}

// smoothZ maps the smoothed coefficients' zigzag indexes to natural ones.
var smoothZ = [smoothCoefs]uint8{0, 1, 8, 16, 9, 2, 3, 10, 17, 24}

// A smoothKernel weighs the DC terms of the 5×5 blocks around a block,
// [row][column], the block itself at [2][2].
type smoothKernel [5][5]int16

// smoothAC holds the kernels that estimate coefficients 1 to 9 (zigzag
// order, index 0 unused): [0] while some AC coefficient of the component
// has been sent, only for coefficients 1 to 5 (section K.8 of T.81 over
// 5×5 blocks); [1] when none has, for all nine.
var smoothAC = [2][smoothCoefs]smoothKernel{{
	1: {2: {-7, 50, 0, -50, 7}},
	2: {{0, 0, -7, 0, 0}, {0, 0, 50, 0, 0}, {}, {0, 0, -50, 0, 0}, {0, 0, 7, 0, 0}},
	3: {{0, 0, -1, 0, 0}, {0, 0, 13, 0, 0}, {0, 0, -24, 0, 0}, {0, 0, 13, 0, 0}, {0, 0, -1, 0, 0}},
	4: {{0, -1, 0, 1, 0}, {-1, 10, 0, -10, 1}, {}, {1, -10, 0, 10, -1}, {0, 1, 0, -1, 0}},
	5: {2: {-1, 13, -24, 13, -1}},
}, {
	1: {{-1, -1, 0, 1, 1}, {-3, 13, 0, -13, 3}, {-3, 38, 0, -38, 3}, {-3, 13, 0, -13, 3}, {-1, -1, 0, 1, 1}},
	2: {{-1, -3, -3, -3, -1}, {-1, 13, 38, 13, -1}, {}, {1, -13, -38, -13, 1}, {1, 3, 3, 3, 1}},
	3: {{0, 0, 1, 0, 0}, {0, 2, 7, 2, 0}, {0, -5, -14, -5, 0}, {0, 2, 7, 2, 0}, {0, 0, 1, 0, 0}},
	4: {{-1, 0, 0, 0, 1}, {0, 9, 0, -9, 0}, {}, {0, -9, 0, 9, 0}, {1, 0, 0, 0, -1}},
	5: {{}, {0, 2, -5, 2, 0}, {1, 7, -14, 7, 1}, {0, 2, -5, 2, 0}},
	6: {{}, {0, 1, 0, -1, 0}, {0, 2, 0, -2, 0}, {0, 1, 0, -1, 0}},
	7: {{}, {0, 1, -3, 1, 0}, {}, {0, -1, 3, -1, 0}},
	8: {{}, {0, 1, 0, -1, 0}, {0, -3, 0, 3, 0}, {0, 1, 0, -1, 0}},
	9: {{}, {0, 1, 2, 1, 0}, {}, {0, -1, -2, -1, 0}},
}}

// smoothDC is the kernel of the DC term, when no AC coefficient has been
// sent: a Gaussian-like average, its weights summing to 256.
var smoothDC = smoothKernel{
	{-2, -6, -8, -6, -2},
	{-6, 6, 42, 6, -6},
	{-8, 42, 152, 42, -8},
	{-6, 6, 42, 6, -6},
	{-2, -6, -8, -6, -2},
}

// smoothBlock applies libjpeg's estimates to blk, the coefficients of
// block (bx, by) of c, whose nonzero ones are in nz, with known the bits
// known of each of the first ten, and returns the new nz.
func (c *jpegComp) smoothBlock(bx, by int, known *[smoothCoefs]int8, blk *[64]int32, nz uint64) uint64 {
	var dcs [5][5]int64
	dc := &dcs
	c.smoothDCs(dc, bx, by)
	changeDC := true
	for _, b := range known[1:] {
		changeDC = changeDC && b == -1
	}
	mode, n := 0, 6
	if changeDC {
		mode, n = 1, smoothCoefs
	}
	q00 := int64(c.rawq[0])
	for k := 1; k < n; k++ {
		z := smoothZ[k]
		al := known[k]
		if al == 0 || blk[z] != 0 {
			continue
		}
		pred := smoothEstimate(q00*weigh(&smoothAC[mode][k], dc), int64(c.rawq[z]))
		if al > 0 && pred >= 1<<al {
			pred = 1<<al - 1
		}
		if pred < 0 && al > 0 && -pred >= 1<<al {
			pred = -(1<<al - 1)
		}
		blk[z] = int32(int16(pred)) // libjpeg's JCOEF
		if blk[z] != 0 {
			nz |= 1 << z
		}
	}
	if changeDC {
		blk[0] = int32(int16(smoothEstimate(q00*weigh(&smoothDC, dc), q00)))
		nz |= 1
	}
	return nz
}

// smoothEstimate is libjpeg's estimate of a coefficient with quantization
// step q from num, the neighbours' weighted DC terms times their step:
// num/(256q), rounded half away from zero.
func smoothEstimate(num, q int64) int64 {
	if num >= 0 {
		return (q<<7 + num) / (q << 8)
	}
	return -((q<<7 - num) / (q << 8))
}

// weigh sums the DC terms dc weighed by k.
func weigh(k *smoothKernel, dc *[5][5]int64) int64 {
	var sum int64
	for r := range k {
		for i, w := range k[r] {
			sum += int64(w) * dc[r][i]
		}
	}
	return sum
}

// smoothDCs sets dc to the DC terms of the 5×5 blocks around block
// (bx, by) of c, as libjpeg picks them, quirks included: rows and columns past the
// component's edges repeat the nearest, except that the block rows two
// above and two below are taken from the next row in only as libjpeg's
// iMCU row buffers allow (within an iMCU row, or past a whole one), and
// the columns two to the right of a component two blocks wide are those
// libjpeg's sliding window holds.
func (c *jpegComp) smoothDCs(dc *[5][5]int64, bx, by int) {
	v := c.iRows
	last := (c.bh+v-1)/v - 1 // the last iMCU row
	row, b := by/v, by%v
	rows := v // block rows in this iMCU row
	if row == last {
		rows = c.bh - last*v
	}
	var at [5]int
	at[2] = by
	at[1] = max(by-1, 0)
	at[0] = at[1]
	if b > 1 || row > 1 {
		at[0] = by - 2
	}
	at[3] = by
	if b < rows-1 || row < last {
		at[3] = by + 1
	}
	at[4] = at[3]
	if b < rows-2 || row+1 < last {
		at[4] = by + 2
	}
	var cols [5]int
	lastCol := c.bw - 1
	for i := range cols {
		cols[i] = smoothColumn(bx, i-2, lastCol)
	}
	for r, y := range at {
		for i, x := range cols {
			coef, _ := c.block(x, y)
			dc[r][i] = int64(coef[0])
		}
	}
}

// smoothColumn is the column whose DC term libjpeg's sliding window holds
// at offset d (-2 to 2) from column x, of columns 0 to last. The window
// starts with column 0 in every place; at column x it loads column 1 at
// offset 1 if x is 0, and column x+2 at offset 2 while that is not past
// the last, and after it shifts every place but the last one down. So the
// edges repeat the nearest column, but for a component two blocks wide.
func smoothColumn(x, d, last int) int {
	for {
		switch {
		case d == 2 && x+1 < last:
			return x + 2
		case d == 1 && x == 0 && last > 0:
			return 1
		case x == 0:
			return 0
		}
		// Shifted in from offset d+1 at column x-1, or kept at offset 2.
		x, d = x-1, min(d+1, 2)
	}
}
