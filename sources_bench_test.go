package sluice

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tensor"
)

// BenchmarkSources reads CSV lines and fixed-length records to batches of
// 128 through the front door, as bench/cmd/sluicebench's csv and cifar
// workloads do (smaller files), with batch memory reused (the default)
// and of each batch's own (KeepBatches). One op of -reuse and -keep is
// one pass over the files, a new pipeline each: allocs/op counts what a
// pass allocates, setup included. One op of -steady is one batch of a
// pipeline that repeats the files without end (records shuffled through
// a buffer of 10 000 with -shuffle, and deterministically with
// -deterministic), after 200 batches to warm it up:
// what a trainer's loop sees batch after batch.
//
//	go test -run '^$' -bench Sources -benchmem -cpu 1 .
//	go test -run '^$' -bench Sources -benchmem -cpu 2 .
//
// (One -cpu value a run: with a list, Go runs a sub-benchmark that uses
// b.Loop at the list's last GOMAXPROCS for its first value, golang/go#49980.)
func BenchmarkSources(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	const csvFiles, csvLines = 4, 25000
	var csvSum int64
	for i := range csvFiles {
		var buf []byte
		for range csvLines {
			for range 4 {
				buf = strconv.AppendFloat(buf, rng.Float64(), 'f', 5, 32)
				buf = append(buf, ',')
			}
			label := rng.IntN(10)
			csvSum += int64(label)
			buf = strconv.AppendInt(buf, int64(label), 10)
			buf = append(buf, '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("csv-%d.csv", i)), buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	const recFiles, recs, recBytes = 2, 5000, 1 + 3*32*32
	var recSum int64
	for i := range recFiles {
		buf := make([]byte, recs*recBytes)
		for j := range recs {
			r := buf[j*recBytes : (j+1)*recBytes]
			for k := range r {
				r[k] = byte(rng.Uint32())
			}
			r[0] %= 10
			recSum += int64(r[0])
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rec-%d.bin", i)), buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cols := []Column{
		Col("a", decode.Float32Column(0)), Col("b", decode.Float32Column(0)),
		Col("c", decode.Float32Column(0)), Col("d", decode.Float32Column(0)),
		Col("label", decode.Int32Column(0)),
	}
	fields := []Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3072, DType: tensor.Uint8, Shape: []int{3, 32, 32}, Transpose: []int{1, 2, 0}},
	}
	records := FixedLengthRecords(filepath.Join(dir, "rec-*"), recBytes, fields)
	for _, bc := range []struct {
		name     string
		ds       *Dataset
		examples int
		want     int64
		gather   bool // transpose the image byte by byte, as before interleave3
	}{
		{"csv", CSV(filepath.Join(dir, "csv-*"), cols), csvFiles * csvLines, csvSum, false},
		{"records", records, recFiles * recs, recSum, false},
		{"records-gather", records, recFiles * recs, recSum, true},
	} {
		for _, keep := range []bool{false, true} {
			name := bc.name + "-reuse"
			var opts []BatchOption
			if keep {
				name, opts = bc.name+"-keep", []BatchOption{KeepBatches()}
			}
			b.Run(name, func(b *testing.B) {
				interleaveRGB = !bc.gather
				defer func() { interleaveRGB = true }()
				cpu0 := cputime.Process()
				for b.Loop() {
					var sum int64
					for batch, err := range bc.ds.Batches(b.Context(), benchBatch, opts...) {
						if err != nil {
							b.Fatal(err)
						}
						switch v := batch.Dense("label"); v.DType() {
						case tensor.Int32:
							for _, x := range v.Int32s() {
								sum += int64(x)
							}
						case tensor.Uint8:
							for _, x := range v.Uint8s() {
								sum += int64(x)
							}
						}
					}
					if sum != bc.want {
						b.Fatalf("label sum %d, want %d", sum, bc.want)
					}
				}
				n := float64(bc.examples * b.N)
				b.ReportMetric(n/b.Elapsed().Seconds(), "examples/s")
				b.ReportMetric(float64(cputime.Process()-cpu0)/n, "cpu-ns/example")
			})
		}
	}
	for _, bc := range []struct {
		name string
		ds   *Dataset
	}{
		{"csv-steady", CSV(filepath.Join(dir, "csv-*"), cols, Forever())},
		{"records-steady", FixedLengthRecords(filepath.Join(dir, "rec-*"), recBytes, fields, Forever())},
		{"csv-shuffle-steady", CSV(filepath.Join(dir, "csv-*"), cols, Forever(), Shuffle(10000))},
		{"records-shuffle-steady", FixedLengthRecords(filepath.Join(dir, "rec-*"), recBytes, fields, Forever(), Shuffle(10000))},
		{"csv-deterministic-steady", CSV(filepath.Join(dir, "csv-*"), cols, Forever(), Shuffle(10000), Deterministic())},
		{"records-deterministic-steady", FixedLengthRecords(filepath.Join(dir, "rec-*"), recBytes, fields, Forever(), Shuffle(10000), Deterministic())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchSteady(b, bc.ds)
		})
	}
}
