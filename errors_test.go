package sluice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Every kind of bad input, read through the high-level layer (or, for
// MNIST's files, their reader), ends in an error where errors.As finds one
// *dataerr.Error with the file, the byte offset (or line), the record's
// index in its batch and its key; errors.Is finds the package's sentinel.
func TestDataErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := example.New().Int64("label", 1).Floats("image", []float32{1, 1, 1, 1}).Marshal()
	rec := int64(len(good) + tfrecord.Overhead) // bytes per framed good record
	frames := func(recs ...[]byte) []byte {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}

	corrupt := frames(good, good, good)
	corrupt[2*rec+12+5] ^= 1 // record 2's data
	corruptName := write("corrupt.tfrecord", corrupt)
	truncName := write("trunc.tfrecord", frames(good, good)[:2*rec-3])
	malformedName := write("malformed.tfrecord", frames(good, []byte{0xff, 0xff, 0xff}, good))
	csvName := write("bad.csv", []byte("1,2.5\n2,x\n3,1\n"))
	shortName := write("short.bin", []byte("HEA"))
	rawName := write("raw.bin", []byte("HEADabcdefghijkl"))
	mnistName := write("images.idx", []byte{0, 0, 8, 9, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 7})

	raw, _ := decode.NewRaw(tensor.Float32, true)
	rawField := Field{Name: "f", Offset: 0, Size: 3, DType: tensor.Float32, Decode: raw.Decode}
	csvCols := []Column{Col("a", decode.Int64Column(0)), Col("b", decode.Float32Column(0))}

	tests := []struct {
		name    string
		read    func() error
		is      error // sentinel
		file    string
		offset  int64
		line    int64
		record  int64
		key     string
		message string // the error's text contains it
	}{
		// DECODERS "TFRecord framing": TensorFlow's "corrupted record at
		// <offset + 12>" for a data CRC mismatch.
		{"corrupt CRC", examples(corruptName), tfrecord.ErrCorrupt, corruptName, 2 * rec, 0, -1, "",
			fmt.Sprintf("corrupted record at %d", 2*rec+12)},
		{"corrupt CRC, shuffled", examples(corruptName, Shuffle(2)), tfrecord.ErrCorrupt, corruptName, 2 * rec, 0, -1, "",
			fmt.Sprintf("corrupted record at %d", 2*rec+12)},
		{"truncated record", examples(truncName), tfrecord.ErrTruncated, truncName, rec, 0, -1, "",
			fmt.Sprintf("truncated record at %d", rec)},
		{"malformed Example", examples(malformedName), example.ErrMalformed, malformedName, rec, 0, 1,
			fmt.Sprintf("%s:%d", malformedName, rec), "Can't parse serialized Example"},
		{"malformed Example, shuffled", examples(malformedName, Shuffle(1)), example.ErrMalformed, malformedName, rec, 0, -2,
			fmt.Sprintf("%s:%d", malformedName, rec), "Can't parse serialized Example"},
		{"bad CSV field", func() error { return first(CSV(csvName, csvCols, Readers(1)).Batches(t.Context(), 3)) },
			decode.ErrCSV, csvName, -1, 2, 1, csvName + ":2", "Field 1 in record 1 is not a valid float: x"},
		{"short fixed-length header", func() error {
			return first(FixedLengthRecords(shortName, 3, []Field{rawField}, HeaderBytes(4), Readers(1)).Batches(t.Context(), 2))
		}, recordio.ErrShortHeader, shortName, 0, 0, -1, "", "header"},
		{"bad raw length", func() error {
			return first(FixedLengthRecords(rawName, 3, []Field{rawField}, HeaderBytes(4), Readers(1)).Batches(t.Context(), 2))
		}, decode.ErrRaw, rawName, 4, 0, 0, rawName + ":0", "Input to DecodeRaw has length 3"},
		// The footer ends the file only: record 1 starts at 4 + 3.
		{"bad second record, with a footer", func() error {
			return first(FixedLengthRecords(rawName, 3, []Field{failOn('d')}, HeaderBytes(4), FooterBytes(1), Readers(1)).Batches(t.Context(), 2))
		}, errBadByte, rawName, 7, 0, 1, rawName + ":1", "bad byte"},
		{"malformed MNIST header", func() error { _, err := mnist.ReadImagesFile(mnistName); return err },
			datasets.ErrHeader, mnistName, 0, 0, -1, "", "invalid header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read()
			e, ok := errors.AsType[*dataerr.Error](err)
			if !ok {
				t.Fatalf("error %v (%T) holds no *dataerr.Error", err, err)
			}
			record := tt.record
			if record == -2 { // any index in the batch: shuffled
				record = e.Record
			}
			if e.File != tt.file || e.Offset != tt.offset || e.Line != tt.line || e.Record != record || e.Key != tt.key {
				t.Errorf("error at File %q, Offset %d, Line %d, Record %d, Key %q; want %q, %d, %d, %d, %q",
					e.File, e.Offset, e.Line, e.Record, e.Key, tt.file, tt.offset, tt.line, record, tt.key)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.message) || !strings.Contains(msg, filepath.Base(tt.file)) {
				t.Errorf("error %q does not name the file and say %q", msg, tt.message)
			}
		})
	}
}

var errBadByte = errors.New("bad byte")

// failOn returns a field that fails on every record starting with c.
func failOn(c byte) Field {
	return Field{Name: "f", Size: 3, DType: tensor.Uint8, Decode: func(b []byte) (tensor.Tensor, error) {
		if b[0] == c {
			return tensor.Tensor{}, errBadByte
		}
		return tensor.New(slices.Clone(b), 3), nil
	}}
}

// examples returns a read of name's Examples, one reader, in batches of
// 4, that returns the first error.
func examples(name string, opts ...ExampleOption) func() error {
	return func() error {
		spec := example.Spec{"label": example.FixedLen(tensor.Int64), "image": example.FixedLen(tensor.Float32, 4)}
		return first(Examples(name, spec, append([]ExampleOption{Readers(1)}, opts...)...).Batches(context.Background(), 4))
	}
}

// first returns the first error of batches.
func first(batches iter.Seq2[*Batch, error]) error {
	for _, err := range batches {
		if err != nil {
			return err
		}
	}
	return nil
}
