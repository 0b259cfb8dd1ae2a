package decode

import (
	"encoding/binary"
	"math"
)

// libjpeg's integer inverse DCTs for 8-bit samples, reproduced bit for bit,
// each in two passes, over the columns into a workspace that keeps
// PASS1_BITS extra bits, then over the rows, with libjpeg's shortcut for a
// column or row whose AC terms are all zero (which gives exactly what the
// full computation would; rows are all constant when only the first column
// has coefficients, and seldom otherwise, so that is the only test made of
// them):
//
//   - JDCT_IFAST (jidctfst.c), the Arai–Agui–Nakajima factorization with
//     8-bit constants, whose scale factors are folded into the
//     quantization table (ifastQuant), and whose results are truncated, not
//     rounded. TensorFlow's decode_jpeg uses it unless asked for
//     dct_method="INTEGER_ACCURATE": its kernel sets JDCT_IFAST for an
//     empty dct_method ("the TensorFlow-chosen default for JPEG decoding is
//     IFAST, sacrificing image quality for speed"), and
//     testdata/tf_decode_jpeg.json is that method's output exactly.
//   - JDCT_ISLOW (jidctint.c), libjpeg's own default, TensorFlow's
//     "INTEGER_ACCURATE": the Loeffler–Ligtenberg–Moschytz factorization
//     with 13-bit constants, every result rounded.
//
// Both wrap around in int32 where libjpeg's C would overflow; no valid
// 8-bit JPEG comes near that.
//
// Both take nz, a bit set of the coefficients that may be nonzero (bit i
// for coef[i]; ^0 knows nothing), which the Huffman decoder has for free,
// so as to find the all-zero columns without looking at them.

// nzColumn0 are the bits of nz of column 0's coefficients.
const nzColumn0 = 0x0101010101010101

const (
	idctConstBits = 13
	idctPass1Bits = 2

	// Row results carry the 13-bit constants, the pass-1 bits and the
	// factor 8 of the DCT's normalization.
	idctPass2Shift = idctConstBits + idctPass1Bits + 3
	idctPass1Shift = idctConstBits - idctPass1Bits
)

// The rotation constants, round(c·2^13), named by c as libjpeg names them.
const (
	fix0_298631336 = 2446
	fix0_390180644 = 3196
	fix0_541196100 = 4433
	fix0_765366865 = 6270
	fix0_899976223 = 7373
	fix1_175875602 = 9633
	fix1_501321110 = 12299
	fix1_847759065 = 15137
	fix1_961570560 = 16069
	fix2_053119869 = 16819
	fix2_562915447 = 20995
	fix3_072711026 = 25172
)

// idctIslow dequantizes coef (natural order, not zigzag) by q and writes
// its JDCT_ISLOW inverse DCT as 8 rows of 8 samples at dst[0:8],
// dst[stride:stride+8], and so on. nz has a bit set for each coefficient
// that may be nonzero.
func idctIslow(dst []byte, stride int, coef, q *[64]int32, nz uint64) {
	var ws [64]int32

	// Pass 1: columns, from coef to ws, scaled up by 2^PASS1_BITS.
	for c := range 8 {
		switch nz >> c & nzColumn0 {
		case 0:
			continue // all zero, as ws is
		case 1:
			// Only the DC term: the column is constant. The full
			// computation gives the same value, (dc<<13 + 2^10) >> 11
			// being dc<<2 exactly. Frequent, since quantization zeroes
			// most high frequencies.
			dc := coef[c] * q[c] << idctPass1Bits
			ws[c], ws[c+8], ws[c+16], ws[c+24] = dc, dc, dc, dc
			ws[c+32], ws[c+40], ws[c+48], ws[c+56] = dc, dc, dc, dc
			continue
		}
		o0, o1, o2, o3, o4, o5, o6, o7 := idct1D(
			coef[c]*q[c], coef[c+8]*q[c+8], coef[c+16]*q[c+16], coef[c+24]*q[c+24],
			coef[c+32]*q[c+32], coef[c+40]*q[c+40], coef[c+48]*q[c+48], coef[c+56]*q[c+56])
		const half = 1 << (idctPass1Shift - 1)
		ws[c] = (o0 + half) >> idctPass1Shift
		ws[c+8] = (o1 + half) >> idctPass1Shift
		ws[c+16] = (o2 + half) >> idctPass1Shift
		ws[c+24] = (o3 + half) >> idctPass1Shift
		ws[c+32] = (o4 + half) >> idctPass1Shift
		ws[c+40] = (o5 + half) >> idctPass1Shift
		ws[c+48] = (o6 + half) >> idctPass1Shift
		ws[c+56] = (o7 + half) >> idctPass1Shift
	}

	// Pass 2: rows, from ws to dst, removing all the scaling, level
	// shifting by +128 and clamping to 0..255.
	flat := nz&^nzColumn0 == 0
	for r := range 8 {
		w := (*[8]int32)(ws[8*r : 8*r+8])
		out := (*[8]byte)(dst[r*stride : r*stride+8])
		if flat {
			// Rows of constants; again exactly what the full
			// computation gives, (dc<<13 + 2^17) >> 18 being
			// (dc + 2^4) >> 5.
			storeFlat(out, sample8((w[0]+1<<(idctPass1Bits+2))>>(idctPass1Bits+3)))
			continue
		}
		o0, o1, o2, o3, o4, o5, o6, o7 := idct1D(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
		const half, shift = 1 << (idctPass2Shift - 1), idctPass2Shift
		storeRow(out, (o0+half)>>shift, (o1+half)>>shift, (o2+half)>>shift, (o3+half)>>shift,
			(o4+half)>>shift, (o5+half)>>shift, (o6+half)>>shift, (o7+half)>>shift)
	}
}

// idct1D is one 8-point inverse DCT of both passes, before descaling: the
// outputs are scaled by 2^13 relative to the inputs. It is libjpeg's
// sequence of operations: the even part rotates inputs 2 and 6 by
// sqrt(2)·c6, the odd part is the 12-multiplication butterfly on inputs
// 1, 3, 5 and 7.
func idct1D(i0, i1, i2, i3, i4, i5, i6, i7 int32) (o0, o1, o2, o3, o4, o5, o6, o7 int32) {
	// Even part.
	z1 := (i2 + i6) * fix0_541196100
	tmp2 := z1 - i6*fix1_847759065
	tmp3 := z1 + i2*fix0_765366865
	tmp0 := (i0 + i4) << idctConstBits
	tmp1 := (i0 - i4) << idctConstBits
	tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
	tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2

	// Odd part.
	z1 = i7 + i1
	z2 := i5 + i3
	z3 := i7 + i3
	z4 := i5 + i1
	z5 := (z3 + z4) * fix1_175875602
	t0 := i7 * fix0_298631336
	t1 := i5 * fix2_053119869
	t2 := i3 * fix3_072711026
	t3 := i1 * fix1_501321110
	z1 *= -fix0_899976223
	z2 *= -fix2_562915447
	z3 = z3*-fix1_961570560 + z5
	z4 = z4*-fix0_390180644 + z5
	t0 += z1 + z3
	t1 += z2 + z4
	t2 += z2 + z3
	t3 += z1 + z4

	return tmp10 + t3, tmp11 + t2, tmp12 + t1, tmp13 + t0,
		tmp13 - t0, tmp12 - t1, tmp11 - t2, tmp10 - t3
}

// islowDC is the sample of every position of idctIslow's output for a
// block whose only nonzero coefficient is the DC term, dequantized to dc:
// what the column shortcut and then the row shortcut compute.
func islowDC(dc int32) byte {
	return sample8(((dc << idctPass1Bits) + 1<<(idctPass1Bits+2)) >> (idctPass1Bits + 3))
}

// fillBlock writes the 8×8 block of samples v at dst, with stride: the
// inverse DCT of a block with only a DC term.
func fillBlock(dst []byte, stride int, v byte) {
	for r := range 8 {
		storeFlat((*[8]byte)(dst[r*stride:r*stride+8]), v)
	}
}

// sample8 level-shifts an IDCT output by +128 and clamps it to a sample.
// libjpeg clamps through a table indexed modulo 1024, which differs from
// clamping only for outputs beyond ±512 that valid data cannot produce.
// libjpeg-turbo's SIMD code, which TensorFlow runs on x86 and ARM, works
// in 16-bit lanes, which wrap where coefficients that no valid file holds
// overflow them; this saturates instead (CONFORMANCE.md).
func sample8(v int32) byte {
	return byte(min(max(v+128, 0), 255))
}

// The AAN rotation constants, round(c·2^8), named by c as libjpeg names
// them.
const (
	ifastConstBits  = 8
	ifix1_082392200 = 277
	ifix1_414213562 = 362
	ifix1_847759065 = 473
	ifix2_613125930 = 669
)

// ifastQuant computes the multipliers idctIfast dequantizes with from a
// quantization table q (natural order), as libjpeg's jddctmgr.c does:
// each value times the AAN scale factor of its frequencies (u, v),
// s(u)·s(v) with s(0) = 1 and s(k) = √2·cos(kπ/16), which libjpeg holds
// rounded to 14 fractional bits, the product rounded to 2 (IFAST_SCALE_BITS,
// which is PASS1_BITS).
func ifastQuant(dst, q *[64]int32) {
	for i := range 64 {
		dst[i] = (q[i]*aanScales[i] + 1<<11) >> 12
	}
}

// aanScales are the AAN scale factors, round(s(u)·s(v)·2^14), in natural
// order.
var aanScales = func() (t [64]int32) {
	s := func(k int) float64 {
		if k == 0 {
			return 1
		}
		return math.Sqrt2 * math.Cos(float64(k)*math.Pi/16)
	}
	for i := range t {
		t[i] = int32(math.Round(s(i%8) * s(i/8) * (1 << 14)))
	}
	return t
}()

// idctIfast writes the JDCT_IFAST inverse DCT of coef (natural order),
// dequantized by q, the multipliers of ifastQuant, as 8 rows of 8 samples
// at dst[0:8], dst[stride:stride+8], and so on. nz has a bit set for each
// coefficient that may be nonzero.
func idctIfast(dst []byte, stride int, coef, q *[64]int32, nz uint64) {
	var ws [64]int32

	// Pass 1: columns. The multipliers already carry the pass-1 scaling.
	for c := range 8 {
		switch nz >> c & nzColumn0 {
		case 0:
			continue
		case 1:
			dc := coef[c] * q[c]
			ws[c], ws[c+8], ws[c+16], ws[c+24] = dc, dc, dc, dc
			ws[c+32], ws[c+40], ws[c+48], ws[c+56] = dc, dc, dc, dc
			continue
		}
		ws[c], ws[c+8], ws[c+16], ws[c+24], ws[c+32], ws[c+40], ws[c+48], ws[c+56] = ifast1D(
			coef[c]*q[c], coef[c+8]*q[c+8], coef[c+16]*q[c+16], coef[c+24]*q[c+24],
			coef[c+32]*q[c+32], coef[c+40]*q[c+40], coef[c+48]*q[c+48], coef[c+56]*q[c+56])
	}

	// Pass 2: rows, dropping PASS1_BITS and the DCT's factor 8 by
	// truncating shifts. ifast1D is written out here: this loop is the
	// decoder's hottest, and the call costs a fifth of it.
	const shift = idctPass1Bits + 3
	flat := nz&^nzColumn0 == 0
	for r := range 8 {
		w := (*[8]int32)(ws[8*r : 8*r+8])
		out := (*[8]byte)(dst[r*stride : r*stride+8])
		if flat {
			storeFlat(out, sample8(w[0]>>shift))
			continue
		}
		tmp10, tmp11 := w[0]+w[4], w[0]-w[4]
		tmp13 := w[2] + w[6]
		tmp12 := ifastMul(w[2]-w[6], ifix1_414213562) - tmp13
		tmp0, tmp3 := tmp10+tmp13, tmp10-tmp13
		tmp1, tmp2 := tmp11+tmp12, tmp11-tmp12
		z13, z10 := w[5]+w[3], w[5]-w[3]
		z11, z12 := w[1]+w[7], w[1]-w[7]
		tmp7 := z11 + z13
		tmp11 = ifastMul(z11-z13, ifix1_414213562)
		z5 := ifastMul(z10+z12, ifix1_847759065)
		tmp10 = ifastMul(z12, ifix1_082392200) - z5
		tmp12 = ifastMul(z10, -ifix2_613125930) + z5
		tmp6 := tmp12 - tmp7
		tmp5 := tmp11 - tmp6
		tmp4 := tmp10 + tmp5
		storeRow(out,
			(tmp0+tmp7)>>shift, (tmp1+tmp6)>>shift, (tmp2+tmp5)>>shift, (tmp3-tmp4)>>shift,
			(tmp3+tmp4)>>shift, (tmp2-tmp5)>>shift, (tmp1-tmp6)>>shift, (tmp0-tmp7)>>shift)
	}
}

// storeRow level-shifts eight IDCT outputs by +128 and stores them,
// clamped to 0..255, the common case of none needing it tested at once.
// The row is assembled in a register and stored in one go: eight byte
// stores read back as one word would stall store forwarding.
func storeRow(out *[8]byte, o0, o1, o2, o3, o4, o5, o6, o7 int32) {
	o0, o1, o2, o3 = o0+128, o1+128, o2+128, o3+128
	o4, o5, o6, o7 = o4+128, o5+128, o6+128, o7+128
	if uint32(o0|o1|o2|o3|o4|o5|o6|o7) > 255 {
		o0, o1, o2, o3 = clamp255(o0), clamp255(o1), clamp255(o2), clamp255(o3)
		o4, o5, o6, o7 = clamp255(o4), clamp255(o5), clamp255(o6), clamp255(o7)
	}
	binary.LittleEndian.PutUint64(out[:], uint64(o0)|uint64(o1)<<8|uint64(o2)<<16|uint64(o3)<<24|
		uint64(o4)<<32|uint64(o5)<<40|uint64(o6)<<48|uint64(o7)<<56)
}

func clamp255(v int32) int32 { return min(max(v, 0), 255) }

// storeFlat stores eight samples v.
func storeFlat(out *[8]byte, v byte) {
	binary.LittleEndian.PutUint64(out[:], uint64(v)*0x0101010101010101)
}

// ifastDC is the sample of every position of idctIfast's output for a
// block whose only nonzero coefficient is the DC term, dequantized to dc.
func ifastDC(dc int32) byte {
	return sample8(dc >> (idctPass1Bits + 3))
}

// ifast1D is one 8-point AAN inverse DCT, in libjpeg's order of
// operations: each product by a constant is truncated to the integer
// below, so that order matters.
func ifast1D(i0, i1, i2, i3, i4, i5, i6, i7 int32) (o0, o1, o2, o3, o4, o5, o6, o7 int32) {
	// Even part.
	tmp10, tmp11 := i0+i4, i0-i4
	tmp13 := i2 + i6
	tmp12 := ifastMul(i2-i6, ifix1_414213562) - tmp13
	tmp0, tmp3 := tmp10+tmp13, tmp10-tmp13
	tmp1, tmp2 := tmp11+tmp12, tmp11-tmp12

	// Odd part.
	z13, z10 := i5+i3, i5-i3
	z11, z12 := i1+i7, i1-i7
	tmp7 := z11 + z13
	tmp11 = ifastMul(z11-z13, ifix1_414213562)
	z5 := ifastMul(z10+z12, ifix1_847759065)
	tmp10 = ifastMul(z12, ifix1_082392200) - z5
	tmp12 = ifastMul(z10, -ifix2_613125930) + z5
	tmp6 := tmp12 - tmp7
	tmp5 := tmp11 - tmp6
	tmp4 := tmp10 + tmp5

	return tmp0 + tmp7, tmp1 + tmp6, tmp2 + tmp5, tmp3 - tmp4,
		tmp3 + tmp4, tmp2 - tmp5, tmp1 - tmp6, tmp0 - tmp7
}

// ifastMul is jidctfst.c's MULTIPLY: the product, shifted down with
// truncation toward minus infinity.
func ifastMul(v, c int32) int32 {
	return v * c >> ifastConstBits
}
