package mnist

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/datasets"
)

func testImages(count, rows, cols int) *Images {
	m := &Images{Count: count, Rows: rows, Cols: cols, Pixels: make([]byte, count*rows*cols)}
	for i := range m.Pixels {
		m.Pixels[i] = byte(i*31 + i/7)
	}
	return m
}

func encodeImages(t testing.TB, m *Images) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteImages(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// header builds an IDX header by hand.
func header(magic uint32, dims ...uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return b
}

func TestImagesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name              string
		count, rows, cols int
		gzip              bool
	}{
		{"mnist-shaped", 5, 28, 28, false},
		{"mnist-shaped gzip", 5, 28, 28, true},
		{"non-square", 3, 2, 7, false},
		{"empty", 0, 28, 28, false},
		{"empty gzip", 0, 28, 28, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := testImages(tc.count, tc.rows, tc.cols)
			data := encodeImages(t, want)
			if len(data) != 16+tc.count*tc.rows*tc.cols {
				t.Fatalf("encoded %d bytes, want %d", len(data), 16+tc.count*tc.rows*tc.cols)
			}
			if !bytes.Equal(data[:16], header(0x803, uint32(tc.count), uint32(tc.rows), uint32(tc.cols))) {
				t.Fatalf("header % x", data[:16])
			}
			if tc.gzip {
				data = gzipped(t, data)
			}
			got, err := ReadImages(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Count != want.Count || got.Rows != want.Rows || got.Cols != want.Cols || !bytes.Equal(got.Pixels, want.Pixels) {
				t.Fatalf("got %d×%d×%d, want %d×%d×%d (or pixels differ)", got.Count, got.Rows, got.Cols, want.Count, want.Rows, want.Cols)
			}
			if tc.count > 0 {
				if sh := got.Tensor().Shape().String(); sh != "[5,28,28]" && sh != "[3,2,7]" {
					t.Errorf("tensor shape %s", sh)
				}
				if !bytes.Equal(got.At(tc.count-1), want.Pixels[len(want.Pixels)-tc.rows*tc.cols:]) {
					t.Error("At(last) differs")
				}
			}

			// The streaming reader yields the same images.
			ir, err := NewImageReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if ir.Count() != tc.count || ir.Rows() != tc.rows || ir.Cols() != tc.cols {
				t.Fatalf("ImageReader header %d %d %d", ir.Count(), ir.Rows(), ir.Cols())
			}
			n := 0
			for i, img := range ir.All() {
				if i != n || !bytes.Equal(img, want.At(i)) {
					t.Fatalf("image %d (index %d) differs", n, i)
				}
				n++
			}
			if err := ir.Err(); err != nil || n != tc.count {
				t.Fatalf("streamed %d images, err %v", n, err)
			}
			if _, err := ir.Next(); err != io.EOF {
				t.Fatalf("Next after end: %v, want io.EOF", err)
			}
		})
	}
}

func TestLabelsRoundTrip(t *testing.T) {
	want := []byte{5, 0, 4, 1, 9, 2, 1, 3, 1, 4}
	var b bytes.Buffer
	if err := WriteLabels(&b, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes()[:8], header(0x801, 10)) {
		t.Fatalf("header % x", b.Bytes()[:8])
	}
	for _, data := range [][]byte{b.Bytes(), gzipped(t, b.Bytes())} {
		got, err := ReadLabels(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestWriteImagesRejectsInconsistentSizes(t *testing.T) {
	m := testImages(2, 3, 3)
	m.Pixels = m.Pixels[:17]
	if err := WriteImages(io.Discard, m); err == nil {
		t.Fatal("WriteImages accepted 17 pixel bytes for 2 images of 3×3")
	}
}

// TestCorruptImages checks that every malformed file is reported with the
// right sentinel, the byte offset and the image index.
func TestCorruptImages(t *testing.T) {
	good := encodeImages(t, testImages(3, 4, 4)) // 16 + 3×16 bytes
	for _, tc := range []struct {
		name   string
		data   []byte
		is     []error
		offset int64
		record int64
		text   string
	}{
		{"empty file", nil, []error{io.ErrUnexpectedEOF}, 0, -1, "IDX image header"},
		{"short header", good[:10], []error{io.ErrUnexpectedEOF}, 10, -1, "IDX image header"},
		{"label file as image file", header(0x801, 3, 4, 4), []error{datasets.ErrHeader}, 0, -1,
			"invalid magic number 2049 (0x00000801) in MNIST image file, want 2051"},
		{"wrong type byte", header(0x00000903, 1, 1, 1), []error{datasets.ErrHeader}, 0, -1, "invalid magic number"},
		// The image's offset, not where the data ends (audit 49).
		{"truncated in image 1", good[:16+16+5], []error{datasets.ErrSize, io.ErrUnexpectedEOF}, 32, 1,
			"header declares 3 images (48 bytes of data from offset 16), the data ends after 21 bytes"},
		{"no data", good[:16], []error{datasets.ErrSize, io.ErrUnexpectedEOF}, 16, 0, ""},
		{"trailing byte", append(bytes.Clone(good), 0), []error{datasets.ErrTrailingData}, 64, 3, ""},
		{"zero-sized images", header(0x803, 1<<30, 0, 28), []error{datasets.ErrHeader}, 8, -1, "1073741824 images of 0×28"},
		// A count that fits a 32-bit int, so that the error is at the
		// rows on every platform (TestCheckDims tests larger counts).
		{"dimensions overflow", header(0x803, 1<<31-1, 1<<32-1, 1<<32-1), []error{datasets.ErrHeader}, 8, -1, "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []string{"ReadImages", "ImageReader", "gzip"} {
				data := tc.data
				if mode == "gzip" {
					if len(data) == 0 {
						continue // an empty file is not gzip
					}
					data = gzipped(t, data)
				}
				var err error
				if mode == "ReadImages" || mode == "gzip" {
					_, err = ReadImages(bytes.NewReader(data))
				} else {
					var ir *ImageReader
					ir, err = NewImageReader(bytes.NewReader(data))
					if err == nil {
						for range ir.All() {
						}
						err = ir.Err()
					}
				}
				var de *dataerr.Error
				if !errors.As(err, &de) {
					t.Fatalf("%s: error %v is not a *dataerr.Error", mode, err)
				}
				for _, target := range tc.is {
					if !errors.Is(err, target) {
						t.Errorf("%s: error %q is not %v", mode, err, target)
					}
				}
				if de.Offset != tc.offset || de.Record != tc.record {
					t.Errorf("%s: error %q at offset %d record %d, want offset %d record %d", mode, err, de.Offset, de.Record, tc.offset, tc.record)
				}
				if mode == "ReadImages" && !strings.Contains(err.Error(), tc.text) {
					t.Errorf("%s: error %q does not contain %q", mode, err, tc.text)
				}
			}
		})
	}
}

func TestCorruptLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		is     error
		offset int64
		record int64
	}{
		{"image file as label file", header(0x803, 1), datasets.ErrHeader, 0, -1},
		{"truncated", append(header(0x801, 5), 1, 2, 3), io.ErrUnexpectedEOF, 11, 3},
		{"trailing", append(header(0x801, 2), 1, 2, 3), datasets.ErrTrailingData, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLabels(bytes.NewReader(tc.data))
			var de *dataerr.Error
			if !errors.As(err, &de) || !errors.Is(err, tc.is) || de.Offset != tc.offset || de.Record != tc.record {
				t.Fatalf("error %v, want %v at offset %d record %d", err, tc.is, tc.offset, tc.record)
			}
		})
	}
}

func TestErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train-images-idx3-ubyte.gz")
	data := gzipped(t, encodeImages(t, testImages(4, 28, 28))[:16+2*784+100])
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadImagesFile(path)
	want := path + ": record 2 at offset 1584: size does not match header (unexpected EOF)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %q, want prefix %q", err, want)
	}
	if _, err := ReadLabelsFile(path); err == nil || !strings.HasPrefix(err.Error(), path+": offset 0: invalid header: invalid magic number 2051") {
		t.Fatalf("labels error %q", err)
	}
}

func TestCorruptGzip(t *testing.T) {
	data := gzipped(t, encodeImages(t, testImages(20, 28, 28)))
	data[len(data)-6] ^= 0xff // the CRC-32 in the gzip trailer
	if _, err := ReadImages(bytes.NewReader(data)); !errors.Is(err, gzip.ErrChecksum) {
		t.Fatalf("error %v, want gzip.ErrChecksum", err)
	}
}

// TestHostileCountAllocatesLittle checks that a header declaring a
// billion images, or one image of two gigabytes, does not make either
// reader allocate for them.
func TestHostileCountAllocatesLittle(t *testing.T) {
	for _, data := range [][]byte{
		append(header(0x803, 1_000_000_000, 28, 28), make([]byte, 100)...),
		append(header(0x803, 1, 1<<30, 2), make([]byte, 100)...),
	} {
		for _, stream := range []bool{false, true} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if stream {
				var ir *ImageReader
				if ir, err = NewImageReader(bytes.NewReader(data)); err == nil {
					_, err = ir.Next()
				}
			} else {
				_, err = ReadImages(bytes.NewReader(data))
			}
			runtime.ReadMemStats(&after)
			// A 32-bit int cannot hold the declared size: the header is
			// refused.
			if !errors.Is(err, io.ErrUnexpectedEOF) && !(math.MaxInt < 1<<40 && errors.Is(err, datasets.ErrHeader)) {
				t.Fatalf("error %v, want unexpected EOF", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Fatalf("allocated %d bytes for a 116-byte file (% x)", alloc, data[:16])
			}
		}
	}
}

func BenchmarkReadImages(b *testing.B) {
	data := encodeImages(b, testImages(10000, 28, 28))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadImages(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImageReader(b *testing.B) {
	data := encodeImages(b, testImages(10000, 28, 28))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ir, err := NewImageReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for range ir.All() {
		}
		if ir.Err() != nil {
			b.Fatal(ir.Err())
		}
	}
}
