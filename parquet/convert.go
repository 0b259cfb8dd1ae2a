package parquet

import (
	"fmt"
	"math"
	"math/big"
)

// A conversion turns a column's stored values into its Kind.
type conversion struct {
	op    convOp
	scale int32 // decimals
}

type convOp uint8

const (
	opInt32 convOp = iota + 1
	opUint32
	opInt64
	opUint64
	opBool
	opInt96
	opFloat
	opDouble
	opFloat16
	opDecimalInt   // INT32 or INT64 decimal
	opDecimalBytes // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY decimal, big-endian two's complement
	opBytes
)

// conversionOf says how a leaf's values become an Example's, and
// describes its type for messages.
func conversionOf(el *schemaElement) (conversion, Kind, string, error) {
	t := typeName(el)
	lt := el.Logical
	decimal := lt.Kind == logicalDecimal || el.HasConvertedType && el.ConvertedType == convDecimal
	scale := el.Scale
	if lt.Kind == logicalDecimal {
		scale = lt.Scale
	}
	if decimal {
		if scale < 0 || scale > 76 {
			return conversion{}, 0, t, fmt.Errorf("column %q: decimal scale %d is %w", el.Name, scale, ErrUnsupported)
		}
	}
	unsigned := lt.Kind == logicalInteger && !lt.Signed ||
		el.HasConvertedType && el.ConvertedType >= convUint8 && el.ConvertedType <= convUint64
	switch el.Type {
	case typeBoolean:
		return conversion{op: opBool}, Int64, t, nil
	case typeInt32:
		switch {
		case decimal:
			return conversion{op: opDecimalInt, scale: scale}, Float, t, nil
		case unsigned:
			return conversion{op: opUint32}, Int64, t, nil
		}
		return conversion{op: opInt32}, Int64, t, nil
	case typeInt64:
		switch {
		case decimal:
			return conversion{op: opDecimalInt, scale: scale}, Float, t, nil
		case unsigned:
			return conversion{op: opUint64}, Int64, t, nil
		}
		return conversion{op: opInt64}, Int64, t, nil
	case typeInt96:
		return conversion{op: opInt96}, Int64, t, nil
	case typeFloat:
		return conversion{op: opFloat}, Float, t, nil
	case typeDouble:
		return conversion{op: opDouble}, Float, t, nil
	case typeByteArray, typeFixedLenByteArray:
		// Before the logical types: every decoder of a fixed length
		// divides by it or steps by it, whatever the values become.
		if el.Type == typeFixedLenByteArray && el.TypeLength <= 0 {
			return conversion{}, 0, t, fmt.Errorf("column %q: FIXED_LEN_BYTE_ARRAY of length %d", el.Name, el.TypeLength)
		}
		switch {
		case decimal:
			return conversion{op: opDecimalBytes, scale: scale}, Float, t, nil
		case lt.Kind == logicalFloat16:
			if el.TypeLength != 2 {
				return conversion{}, 0, t, fmt.Errorf("column %q: FLOAT16 of %d bytes", el.Name, el.TypeLength)
			}
			return conversion{op: opFloat16}, Float, t, nil
		}
		return conversion{op: opBytes}, Bytes, t, nil
	}
	return conversion{}, 0, t, fmt.Errorf("column %q: physical type %v is %w", el.Name, el.Type, ErrUnsupported)
}

// typeName describes a leaf's stored type: its physical type and its
// logical (or else converted) type, "INT64 (TIMESTAMP(MICROS,UTC))".
func typeName(el *schemaElement) string {
	t := el.Type.String()
	switch {
	case el.Logical.Kind != 0:
		t += " (" + el.Logical.String() + ")"
	case el.HasConvertedType:
		t += " (" + el.ConvertedType.String() + ")"
	}
	return t
}

// julianUnixEpoch is the Julian day number of 1970-01-01, which INT96
// timestamps count their days from.
const julianUnixEpoch = 2440588

// int96Nanos converts an INT96 timestamp (nanoseconds of the day, then
// the Julian day, little-endian) to nanoseconds since the Unix epoch.
func int96Nanos(v *[12]byte) (int64, bool) {
	var nanos uint64
	for i := 7; i >= 0; i-- {
		nanos = nanos<<8 | uint64(v[i])
	}
	day := int64(uint32(v[8]) | uint32(v[9])<<8 | uint32(v[10])<<16 | uint32(v[11])<<24)
	const nsPerDay = 86400 * 1_000_000_000
	if nanos >= nsPerDay {
		return 0, false
	}
	days := day - julianUnixEpoch
	// 106751 days is about 292 years: past it int64 nanoseconds overflow,
	// and on its last day (either way) they may.
	const maxDays = math.MaxInt64 / nsPerDay
	switch {
	case days > maxDays || days < -maxDays-1:
		return 0, false
	case days == maxDays && int64(nanos) > math.MaxInt64-maxDays*nsPerDay:
		return 0, false
	case days == -maxDays-1:
		// -maxDays-1 days overflow by themselves: the day after less a
		// day's nanoseconds.
		back := int64(nanos) - nsPerDay // in [-nsPerDay, 0)
		if back < math.MinInt64+maxDays*nsPerDay {
			return 0, false
		}
		return -maxDays*nsPerDay + back, true
	}
	return days*nsPerDay + int64(nanos), true
}

// float16 converts an IEEE 754 half (little-endian bytes) to float32.
func float16(b []byte) float32 {
	h := uint32(b[0]) | uint32(b[1])<<8
	sign := (h >> 15) << 31
	exp := (h >> 10) & 0x1f
	frac := h & 0x3ff
	switch exp {
	case 0:
		// Zero or subnormal: frac * 2^-24.
		f := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// pow10 holds 10^k for decimal scales up to 38 exactly enough for a
// float32 result.
var pow10 = func() (p [77]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// decimalBytes converts a big-endian two's complement unscaled decimal.
// Up to 8 bytes it is exact integer arithmetic; longer ones go through
// math/big, bounded by the column's type length or the page.
func decimalBytes(b []byte, scale int32) float32 {
	if len(b) == 0 {
		return 0
	}
	if len(b) <= 8 {
		v := int64(int8(b[0]))
		for _, c := range b[1:] {
			v = v<<8 | int64(c)
		}
		return float32(float64(v) / pow10[scale])
	}
	var n big.Int
	n.SetBytes(b)
	if b[0]&0x80 != 0 {
		// Negative: subtract 2^(8·len).
		var m big.Int
		m.Lsh(big.NewInt(1), uint(8*len(b)))
		n.Sub(&n, &m)
	}
	f, _ := new(big.Float).SetInt(&n).Float64()
	return float32(f / pow10[scale])
}
