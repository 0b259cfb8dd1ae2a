package bucket

import (
	"math"
	"testing"
)

// SAMPLING §4 and BSL-01, BSL-02: lower-inclusive, upper-exclusive
// intervals; bucket(L) is the number of boundaries at or below L.
func TestBucketFor(t *testing.T) {
	b := []int{3, 4, 5, 10}
	for _, tc := range []struct{ length, want int }{
		{math.MinInt, 0},
		{math.MinInt32, 0},
		{-5, 0},
		{0, 0},
		{1, 0},
		{2, 0},
		{3, 1},
		{4, 2},
		{5, 3},
		{6, 3},
		{9, 3},
		{10, 4},
		{11, 4},
		// TensorFlow drops 2^31-1 (no interval holds it); Go lengths are
		// ints, and it belongs in the last bucket (deliberate difference).
		{math.MaxInt32, 4},
		{math.MaxInt, 4},
	} {
		if got := bucketFor(b, tc.length); got != tc.want {
			t.Errorf("bucketFor(%v, %d) = %d, want %d", b, tc.length, got, tc.want)
		}
	}
	// One boundary: two buckets.
	for _, tc := range []struct{ length, want int }{{-1, 0}, {6, 0}, {7, 1}, {8, 1}} {
		if got := bucketFor([]int{7}, tc.length); got != tc.want {
			t.Errorf("bucketFor([7], %d) = %d, want %d", tc.length, got, tc.want)
		}
	}
}
