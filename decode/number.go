package decode

import (
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// isSpace reports whether c is a space as C's isspace, which TensorFlow's
// number parsers skip around a number.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseInt parses a decimal integer as TensorFlow's safe_strto32 and
// safe_strto64 do: surrounding spaces, an optional sign, digits only, and
// no overflow of bits.
func parseInt(b []byte, bits int) (int64, bool) {
	b = trimSpace(b)
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	limit := uint64(1)<<(bits-1) - 1
	if neg {
		limit++
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (limit-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// parseFloat parses a number as TensorFlow's safe_strtof and safe_strtod
// do (C's strtod rules): surrounding spaces, decimal or hexadecimal
// notation, "inf", "infinity" and "nan" or "nan(chars)" in any case, with a
// sign; a value too large for the type is infinite and one too small is
// zero.
func parseFloat(b []byte, bits int) (float64, bool) {
	b = trimSpace(b)
	if len(b) == 0 {
		return 0, false
	}
	if v, ok := parseSimpleFloat(b, bits); ok {
		return v, true
	}
	if v, ok, isNaN := parseNaN(b, bits); isNaN {
		return v, ok
	}
	for _, c := range b {
		if c == '_' {
			return 0, false // Go accepts digit separators; TensorFlow does not
		}
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // ParseFloat does not keep it
	if isHexWithoutExponent(s) {
		s += "p0" // Go requires a binary exponent on hexadecimal mantissas
	}
	v, err := strconv.ParseFloat(s, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	if bits == 32 && !math.IsInf(v, 0) && math.Abs(v) > math.MaxFloat32 {
		return math.Inf(int(math.Copysign(1, v))), true
	}
	return v, true
}

// parseNaN parses C's spellings of NaN, which Go's parser lacks: a sign,
// "nan" in any case, and an optional "(chars)" of letters, digits and
// underscores. isNaN reports whether b starts like a NaN at all. The NaN
// has the bits glibc's strtod gives it (as TensorFlow's parser does):
// quiet, the sign asked for, and as payload the chars read as an unsigned
// number (strtoull, base 0: decimal, 0x hexadecimal, 0 octal) when they
// all are one (the first 127 of them), kept to the payload's bits; for float32, those of the
// float32 NaN, carried in the float64 as a conversion keeps them (see
// nan32).
func parseNaN(b []byte, bits int) (v float64, ok, isNaN bool) {
	var sign uint64
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		if b[0] == '-' {
			sign = 1
		}
		b = b[1:]
	}
	if len(b) < 3 || (b[0]|0x20) != 'n' || (b[1]|0x20) != 'a' || (b[2]|0x20) != 'n' {
		return 0, false, false
	}
	b = b[3:]
	var payload uint64
	if len(b) > 0 {
		if b[0] != '(' || b[len(b)-1] != ')' {
			return 0, false, true
		}
		chars := b[1 : len(b)-1]
		for _, c := range chars {
			if !(c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z') {
				return 0, false, true
			}
		}
		// TensorFlow's parser (absl's from_chars) hands C's nan() at
		// most 127 of the chars, in a buffer of 128 (audit 81).
		payload = nanPayload(chars[:min(len(chars), 127)])
	}
	if bits == 32 {
		return nan32(uint32(sign<<31 | 0x7fc00000 | payload&(1<<22-1))), true, true
	}
	return math.Float64frombits(sign<<63 | 0x7ff8000000000000 | payload&(1<<51-1)), true, true
}

// nanPayload reads chars as glibc's strtod reads a NaN's payload, with
// strtoull in base 0: 0 unless they all make one number, the largest
// uint64 if that number is larger.
func nanPayload(chars []byte) uint64 {
	base := uint64(10)
	switch {
	case len(chars) > 2 && chars[0] == '0' && chars[1]|0x20 == 'x':
		base, chars = 16, chars[2:]
	case len(chars) > 1 && chars[0] == '0':
		base, chars = 8, chars[1:]
	}
	var n uint64
	over := false
	for _, c := range chars {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0
		}
		if d >= base {
			return 0 // strtoull stops here, short of the ')': no payload
		}
		if n > (math.MaxUint64-d)/base {
			over = true
		}
		n = n*base + d
	}
	if over {
		return math.MaxUint64
	}
	return n
}

// nan32 returns a float64 that converts to the float32 NaN of the given
// bits. A float64 NaN converts to float32 keeping the top 23 bits of its
// mantissa (IEEE 754's conversion, as amd64's CVTSD2SS and arm64's FCVT
// do it), so the float32's mantissa goes there.
func nan32(bits uint32) float64 {
	return math.Float64frombits(uint64(bits>>31)<<63 | 0x7ff0000000000000 | uint64(bits&(1<<23-1))<<29)
}

func isHexWithoutExponent(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if len(t) < 2 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X') {
		return false
	}
	return !strings.ContainsAny(t, "pP")
}

var pow10f64 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

var pow10f32 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// parseSimpleFloat is the fast path for the common case, a plain decimal
// such as "-12.375": when the digits fit the type's mantissa exactly and
// the power of ten is exact too, one division is correctly rounded
// (Clinger's fast path), so the result equals strconv.ParseFloat's. A
// float32 with more digits than its mantissa goes through float64. It
// reports false for anything else, which the general parser handles.
func parseSimpleFloat(b []byte, bits int) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	i := 0
	sawDigit := false
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var m uint64
	digits, frac := 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if digits > 0 || c != '0' {
				digits++
			}
			if digits > 15 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return 0, false
		}
	}
	if !sawDigit {
		return 0, false // just a sign and/or a dot
	}
	if frac < 0 {
		frac = 0
	}
	var v float64
	if bits == 32 {
		switch {
		case m < 1<<24 && frac < len(pow10f32):
			v = float64(float32(m) / pow10f32[frac])
		case m < 1<<53 && frac < len(pow10f64):
			// Round to float64, then to float32. Rounding is monotonic
			// and float32 midpoints are float64 values, so the second
			// rounding is right unless the first landed exactly on a
			// midpoint (one bit set among the 29 that float32 drops).
			d := float64(m) / pow10f64[frac]
			if math.Float64bits(d)&(1<<29-1) == 1<<28 {
				return 0, false
			}
			v = float64(float32(d))
		default:
			return 0, false
		}
	} else {
		if m >= 1<<53 || frac >= len(pow10f64) {
			return 0, false
		}
		v = float64(m) / pow10f64[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}
