package sluice

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

func TestGatherIndex(t *testing.T) {
	tests := []struct {
		shape, perm, want []int
	}{
		{[]int{4}, []int{0}, []int{0, 1, 2, 3}},
		{[]int{2, 3}, []int{0, 1}, []int{0, 1, 2, 3, 4, 5}},
		// A 2×3 matrix, transposed: out[c][r] = in[r][c].
		{[]int{2, 3}, []int{1, 0}, []int{0, 3, 1, 4, 2, 5}},
		// Two planes of 1×2 pixels to pixels of two channels.
		{[]int{2, 1, 2}, []int{1, 2, 0}, []int{0, 2, 1, 3}},
		{[]int{0, 3}, []int{1, 0}, []int{}},
	}
	for _, tt := range tests {
		got, err := gatherIndex(tt.shape, tt.perm)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("gatherIndex(%v, %v) = %v, %v; want %v", tt.shape, tt.perm, got, err, tt.want)
		}
	}
	for _, bad := range [][2][]int{{{2, 3}, {0}}, {{2, 3}, {0, 0}}, {{2, 3}, {0, 2}}, {{2, 3}, {-1, 0}},
		// A shape of more elements than a tensor holds is refused, not
		// sized (it panicked in make), and one that overflows an int
		// too (it sized a wrapped product).
		{{1 << 30, 1 << 30}, {1, 0}}, {{1 << 62, 4}, {1, 0}}, {{-1, 12}, {1, 0}}} {
		if _, err := gatherIndex(bad[0], bad[1]); err == nil {
			t.Errorf("gatherIndex(%v, %v) succeeded", bad[0], bad[1])
		}
	}
}

// TestFixedLengthTransposeBadShape checks that a transposed field whose
// Shape is not Size's values fails when the data set is made, with
// ErrInvalid, before the transposer is sized by the shape: a shape of
// 2^60 values panicked in make, and one of 2^32 tried to allocate 32 GB
// (found by an audit, 2026-11-27).
func TestFixedLengthTransposeBadShape(t *testing.T) {
	tests := []struct {
		name  string
		shape []int
	}{
		{"above 2^48 values", []int{1 << 30, 1 << 30}},
		{"large", []int{1 << 16, 1 << 16}},
		{"overflowing", []int{1 << 62, 4}},
		{"negative", []int{-1, -12}},
		{"too small", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FixedLengthRecords("none", 12, []Field{{Name: "a", Size: 12, DType: tensor.Uint8, Shape: tt.shape, Transpose: []int{1, 0}}})
			if !errors.Is(d.err, ErrInvalid) {
				t.Fatalf("build error %v, want ErrInvalid", d.err)
			}
		})
	}
}

// CIFAR-10's layout: a label byte, then three planes of pixels. Transpose
// [1, 2, 0] of Shape [3, H, W] gives H × W × 3, pixel by pixel, for the
// reused and the kept batches alike.
func TestFieldTranspose(t *testing.T) {
	const h, w, n = 2, 3, 5
	var data []byte
	for r := range n {
		data = append(data, byte(r))
		for i := range 3 * h * w {
			data = append(data, byte(100*r+i))
		}
	}
	name := filepath.Join(t.TempDir(), "planes.bin")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fields := []Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3 * h * w, DType: tensor.Uint8, Shape: []int{3, h, w}, Transpose: []int{1, 2, 0}},
	}
	for _, opts := range [][]BatchOption{nil, {KeepBatches()}} {
		ds := FixedLengthRecords(name, 1+3*h*w, fields, Readers(1))
		seen := 0
		for b, err := range ds.Batches(t.Context(), 2, opts...) {
			if err != nil {
				t.Fatal(err)
			}
			img := b.Dense("image")
			if want := (tensor.Shape{b.Len(), h, w, 3}); !slices.Equal(img.Shape(), want) {
				t.Fatalf("image shape %v, want %v", img.Shape(), want)
			}
			px := img.Uint8s()
			for i, r := range b.Uint8("label") {
				for y := range h {
					for x := range w {
						for c := range 3 {
							got := px[((i*h+y)*w+x)*3+c]
							if want := byte(100*int(r) + c*h*w + y*w + x); got != want {
								t.Fatalf("record %d pixel (%d, %d) channel %d = %d, want %d", r, y, x, c, got, want)
							}
						}
					}
				}
				seen++
			}
		}
		if seen != n {
			t.Errorf("read %d records, want %d", seen, n)
		}
	}
	bad := []Field{{Name: "image", Size: 6, DType: tensor.Uint8, Shape: []int{2, 3}, Transpose: []int{0, 0}}}
	for _, err := range FixedLengthRecords(name, 1+3*h*w, bad).Batches(t.Context(), 2) {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Transpose [0 0]: %v, want ErrInvalid", err)
		}
	}
}

// Planes to pixels, eight at a time, must give what the gather gives, for
// pixel counts that are and are not a multiple of eight.
func TestInterleave3(t *testing.T) {
	tests := []struct {
		shape []int
		perm  []int
		rgb   bool
	}{
		{[]int{3, 32, 32}, []int{1, 2, 0}, true},
		{[]int{3, 1, 1}, []int{1, 2, 0}, true},
		{[]int{3, 5, 3}, []int{1, 2, 0}, true},
		{[]int{3, 17}, []int{1, 0}, true},
		{[]int{3, 4, 4}, []int{2, 1, 0}, false},
		{[]int{4, 2, 2}, []int{1, 2, 0}, false},
		{[]int{2, 3}, []int{1, 0}, false},
	}
	for _, tt := range tests {
		tr, err := newTransposer(tt.shape, tt.perm)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.rgb > 0; got != tt.rgb {
			t.Errorf("newTransposer(%v, %v): interleaved %v, want %v", tt.shape, tt.perm, got, tt.rgb)
		}
		if !tt.rgb {
			continue
		}
		const records = 3
		src := make([]uint8, records*len(tr.idx))
		for i := range src {
			src[i] = uint8(i*7 + i/251)
		}
		want := make([]uint8, len(src))
		gatherRows(want, src, tr.idx)
		got := make([]uint8, len(src))
		interleave3(got, src, tr.rgb)
		if !slices.Equal(got, want) {
			t.Errorf("interleave3 of %v records of shape %v: %v, want %v", records, tt.shape, got, want)
		}
	}
}
