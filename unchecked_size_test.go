package sluice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// A batch of large fixed-length records reserves room for the records
// that arrive, not for batch size × record size before the first is read:
// a file of one 256 MiB record read in batches of 1024 asked for 256 GiB
// and ended the process (audit 112).
func TestFixedLengthReserveBounded(t *testing.T) {
	const recordBytes, batch = 16 << 20, 64
	name := filepath.Join(t.TempDir(), "one.bin")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(recordBytes); err != nil { // one record, of zeros
		t.Fatal(err)
	}
	f.Close()
	ds := FixedLengthRecords(name, recordBytes, []Field{{Name: "b", Offset: 0, Size: recordBytes, DType: tensor.Uint8}}, Readers(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b, err := range ds.Batches(context.Background(), batch) {
		if err != nil {
			t.Fatal(err)
		}
		n += b.Len()
	}
	runtime.ReadMemStats(&after)
	if n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
	// The record, its reader's buffer, the batch: a few times 16 MiB, where
	// the whole batch's room is 1 GiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > batch*recordBytes/4 {
		t.Errorf("a batch of one %d-byte record allocated %d bytes", recordBytes, alloc)
	}
}

// A FixedLen shape that no record fills (a mistake in the spec) is the
// first record's error, not an allocation of the batch the shape sizes:
// [2^30] float32s for records of 4 values asked for 256 GiB of a batch
// parsed row by row and ended the process (audit 112).
func TestSpecShapeTooLarge(t *testing.T) {
	name := filepath.Join(t.TempDir(), "small.tfrecord")
	var recs [][]byte
	for range 64 {
		recs = append(recs, example.New().Float("f", 1, 2, 3, 4).Marshal())
	}
	writeTFRecords(t, name, recs...)
	ds := Examples(name, example.Spec{"f": example.FixedLen(tensor.Float32, 1<<30)})
	for _, err := range ds.Batches(context.Background(), 128) {
		if !errors.Is(err, example.ErrValueCount) || !strings.Contains(err.Error(), name+":0") {
			t.Fatalf("%v, want ErrValueCount naming %s:0", err, name)
		}
		return
	}
	t.Fatal("no error")
}

// A batch of images is the images' size whatever the data's, each cropped
// or padded to it: one larger than the machine is an error naming the
// feature, not the end of the process (audit 114: 512 PNGs of 1×1 pixel
// decoded to 16384² asked for 128 GiB).
func TestImageBatchTooLarge(t *testing.T) {
	const n, side = 4096, 16384 // 2^40 bytes of pixels
	if tensor.MemoryLimit() >= n*side*side {
		t.Skip("the machine holds the batch")
	}
	var png1 bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 1, 1))
	if err := png.Encode(&png1, img); err != nil {
		t.Fatal(err)
	}
	rec := example.New().Bytes("image", png1.Bytes()).Marshal()
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = rec
	}
	name := filepath.Join(t.TempDir(), "tiny.tfrecord")
	writeTFRecords(t, name, recs...)
	spec := example.Spec{"image": example.FixedLen(tensor.String)}
	for _, err := range Examples(name, spec, DecodeImage("image", side, side, 1)).Batches(context.Background(), n) {
		if !errors.Is(err, tensor.ErrResourceExhausted) || !strings.Contains(err.Error(), `feature "image"`) {
			t.Fatalf("%v, want ErrResourceExhausted naming feature \"image\"", err)
		}
		return
	}
	t.Fatal("no error")
}

// Readers make room for a batch's records together, not each: 1024
// readers of a batch size of 2^31-1 made room for 65536 records each, 3 GB
// before a record was read (audit 114).
func TestManyReadersReserveShared(t *testing.T) {
	name := filepath.Join(t.TempDir(), "ten.tfrecord")
	var recs [][]byte
	for i := range 10 {
		recs = append(recs, example.New().Int64("i", int64(i)).Marshal())
	}
	writeTFRecords(t, name, recs...)
	ds := Examples(name, example.Spec{"i": example.FixedLen(tensor.Int64)}, Readers(1024))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b, err := range ds.Batches(context.Background(), math.MaxInt32) {
		if err != nil {
			t.Fatal(err)
		}
		n += b.Len()
	}
	runtime.ReadMemStats(&after)
	if n != 10 {
		t.Fatalf("%d records, want 10", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
		t.Errorf("10 records through 1024 readers allocated %d bytes", alloc)
	}
}

// A SparseFeature's dense shape is its spec's size, not a padding: a
// hashed feature space larger than memory is read as the sparse tensor it
// is (audit 114: every batch was refused), and Dense of it panics, saying
// to read it with Sparse, rather than end the process.
func TestSparseFeatureLargeSpace(t *testing.T) {
	const space = 1 << 40
	name := filepath.Join(t.TempDir(), "hashed.tfrecord")
	var recs [][]byte
	for i := range 4 {
		recs = append(recs, example.New().Int64("idx", int64(i)<<38).Float("val", float32(i)).Marshal())
	}
	writeTFRecords(t, name, recs...)
	spec := example.Spec{"sp": example.SparseFeature([]string{"idx"}, "val", tensor.Float32, []int{space}, false)}
	n := 0
	for b, err := range Examples(name, spec).Batches(context.Background(), 4) {
		if err != nil {
			t.Fatal(err)
		}
		s := b.Sparse("sp")
		if !s.DenseShape.Equal(tensor.Shape{4, space}) || s.NNZ() != 4 {
			t.Fatalf("sparse %v with %d values", s.DenseShape, s.NNZ())
		}
		n += b.Len()
		if tensor.MemoryLimit() < 4*space*4 {
			if err := b.CheckDense("sp"); !errors.Is(err, tensor.ErrResourceExhausted) {
				t.Errorf("CheckDense of a [4, 2^40] feature: %v, want ErrResourceExhausted", err)
			}
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "read it with Sparse") {
						t.Errorf("Dense of a [4, 2^40] feature: %v, want a panic saying to read it with Sparse", r)
					}
				}()
				b.Dense("sp")
			}()
		}
	}
	if n != 4 {
		t.Fatalf("%d records, want 4", n)
	}
}

// A batch parsed row by row into reused memory is lent that memory only
// once its first record fills its row: a shape of [2^23] for records of
// 4 values made a batch of 800 MiB before the error (audit 113).
func TestSpecShapeCheckedBeforeLending(t *testing.T) {
	name := filepath.Join(t.TempDir(), "small.tfrecord")
	var recs [][]byte
	for range 64 {
		recs = append(recs, example.New().Float("f", 1, 2, 3, 4).Marshal())
	}
	writeTFRecords(t, name, recs...)
	ds := Examples(name, example.Spec{"f": example.FixedLen(tensor.Float32, 1<<23)}, Readers(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var err error
	for _, err = range ds.Batches(context.Background(), 25) {
		break
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(err, example.ErrValueCount) {
		t.Fatalf("%v, want ErrValueCount", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("refusing a batch of 25 records of 4 values allocated %d bytes", alloc)
	}
}
