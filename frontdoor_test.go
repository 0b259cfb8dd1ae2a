package sluice

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Next after Close fails with ErrClosed in every engine: not the batches
// the engine still held, and not io.EOF, which would pass a cut-short
// iteration for a finished one.
func TestNextAfterClose(t *testing.T) {
	pat := writeNamed(t, t.TempDir(), []int{300, 200}, nil, false)
	for _, tc := range []struct {
		name string
		opts []ExampleOption
		next int // batches read before Close
	}{
		{"default", []ExampleOption{Readers(2)}, 1},
		{"default shuffle", []ExampleOption{Readers(2), Shuffle(50)}, 1},
		{"default unread", []ExampleOption{Readers(2)}, 0},
		{"deterministic", []ExampleOption{Deterministic()}, 1},
		{"global", []ExampleOption{GlobalShuffle()}, 1},
		{"default at end", []ExampleOption{Readers(2)}, 51},
		{"deterministic at end", []ExampleOption{Deterministic()}, 51},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := Records(pat, tc.opts...).Iterator(t.Context(), 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.next {
				if _, err := it.Next(); err != nil && (err != io.EOF || i < 50) {
					t.Fatal(err)
				}
			}
			it.Close()
			for range 2 {
				b, err := it.Next()
				if b != nil || !errors.Is(err, ErrClosed) || err == io.EOF {
					t.Fatalf("Next after Close: %v, %v (want an error wrapping ErrClosed)", b, err)
				}
			}
			if got := fmt.Sprint(it.Close()); got != "<nil>" {
				t.Errorf("second Close: %s", got)
			}
		})
	}
}

// Every option out of range, or in conflict with another or with the
// files, is refused with an error wrapping ErrInvalid, whatever the
// engine; a conflict the options alone show is refused before reading.
func TestRefusalsWrapErrInvalid(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	pat := writeNamed(t, dir, []int{6, 9}, nil, false) // two files
	gz := writeNamed(t, t.TempDir(), []int{3, 4}, nil, false, tfrecord.Gzip, tfrecord.Zlib)
	fixed := func(c tfrecord.Compression) string {
		name := filepath.Join(t.TempDir(), fmt.Sprintf("fixed-%v", c))
		var b bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(make([]byte, 64))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	field := []Field{{Name: "v", Size: 8, DType: tensor.Int64}}
	for _, tc := range []struct {
		name  string
		ds    *Dataset
		early bool  // refused by Iterator, before any Next
		also  error // another sentinel the error wraps
	}{
		{"Shard(2, 3) of 2 files, default", Records(pat, Shard(2, 3)), false, nil},
		{"Shard(2, 3) of 2 files, default shuffled", Records(pat, Shard(2, 3), Shuffle(4)), false, nil},
		{"Shard(2, 3) of 2 files, Deterministic", Records(pat, Shard(2, 3), Deterministic()), false, nil},
		{"FixedLengthRecords GZIP GlobalShuffle", FixedLengthRecords(fixed(tfrecord.Gzip), 8, field, Compression(tfrecord.Gzip), GlobalShuffle()), true, nil},
		{"FixedLengthRecords ZLIB GlobalShuffle", FixedLengthRecords(fixed(tfrecord.Zlib), 8, field, GlobalShuffle(), Compression(tfrecord.Zlib)), true, nil},
		{"TFRecord GZIP and ZLIB files GlobalShuffle", Records(gz, GlobalShuffle()), false, index.ErrCompressed},
		{"TFRecord GZIP and ZLIB files GlobalShuffle Shard", Records(gz, GlobalShuffle(), Shard(1, 2)), false, index.ErrCompressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := tc.ds.Iterator(t.Context(), 4)
			if err == nil {
				if tc.early {
					t.Errorf("Iterator: no error; want the conflict refused before reading")
				}
				_, err = it.Next()
				it.Close()
			}
			if !errors.Is(err, ErrInvalid) || tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("%v: does not wrap ErrInvalid (and %v)", err, tc.also)
			}
		})
	}
}
