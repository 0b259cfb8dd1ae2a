package parquet

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"
)

// INT96 timestamps convert to int64 nanoseconds exactly where those hold
// them, on the edge days of that range too, and fail elsewhere: never a
// value that overflowed.
func TestInt96Nanos(t *testing.T) {
	const nsPerDay = 86400 * 1_000_000_000
	const maxDays = math.MaxInt64 / nsPerDay
	edge := int64(math.MaxInt64 - maxDays*nsPerDay) // the last nanosecond of the last day
	var nanos []uint64
	for _, n := range []int64{0, 1, edge - 1, edge, edge + 1, nsPerDay - edge - 2, nsPerDay - edge - 1, nsPerDay - edge, nsPerDay - 1} {
		nanos = append(nanos, uint64(n))
	}
	for _, days := range []int64{0, -1, 1, maxDays - 1, maxDays, maxDays + 1, -maxDays, -maxDays - 1, -maxDays - 2} {
		for _, n := range nanos {
			var v [12]byte
			binary.LittleEndian.PutUint64(v[:8], n)
			binary.LittleEndian.PutUint32(v[8:], uint32(days+julianUnixEpoch))
			want := new(big.Int).Mul(big.NewInt(days), big.NewInt(nsPerDay))
			want.Add(want, new(big.Int).SetUint64(n))
			got, ok := int96Nanos(&v)
			if fits := want.IsInt64(); ok != fits || ok && got != want.Int64() {
				t.Errorf("day %d, nanosecond %d: %d %v, want %v (fits int64: %v)", days, n, got, ok, want, fits)
			}
		}
	}
	// A nanosecond of the day past the day.
	var v [12]byte
	binary.LittleEndian.PutUint64(v[:8], nsPerDay)
	binary.LittleEndian.PutUint32(v[8:], julianUnixEpoch)
	if got, ok := int96Nanos(&v); ok {
		t.Errorf("nanosecond %d of a day: %d, want a failure", uint64(nsPerDay), got)
	}
}
