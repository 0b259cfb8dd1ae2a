package tfrecord_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

func TestParseCompression(t *testing.T) {
	tests := []struct {
		in      string
		want    tfrecord.Compression
		wantErr bool
	}{
		{"", tfrecord.None, false},
		{"NONE", tfrecord.None, false},
		{"ZLIB", tfrecord.Zlib, false},
		{"GZIP", tfrecord.Gzip, false},
		{"ZSTD", tfrecord.Zstd, false},
		{"gzip", tfrecord.None, true}, // TensorFlow is case-sensitive
		{"SNAPPY", tfrecord.None, true},
		{" GZIP", tfrecord.None, true},
	}
	for _, tt := range tests {
		got, err := tfrecord.ParseCompression(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseCompression(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if tt.wantErr && !errors.Is(err, tfrecord.ErrUnknownCompression) {
			t.Errorf("ParseCompression(%q) error %v does not wrap ErrUnknownCompression", tt.in, err)
		}
		if !tt.wantErr && tt.in != "" {
			if s := got.String(); s != tt.in {
				t.Errorf("%v.String() = %q, want %q", got, s, tt.in)
			}
		}
	}
}

func TestDetectCompression(t *testing.T) {
	ref, recs := loadReference(t)
	hexb := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A 40056-byte record's length starts 78 9c, a valid zlib header.
	zlibLike := make([]byte, 12)
	binary.LittleEndian.PutUint64(zlibLike, 0x9c78)
	binary.LittleEndian.PutUint32(zlibLike[8:], tfrecord.MaskedCRC(zlibLike[:8]))
	tests := []struct {
		name   string
		prefix []byte
		want   tfrecord.Compression
	}{
		{"empty", nil, tfrecord.None},
		{"tf none", hexb(ref.Files["tf_none.tfrecord"].HeadHex), tfrecord.None},
		{"tf zlib", hexb(ref.Files["tf_zlib.tfrecord"].HeadHex), tfrecord.Zlib},
		{"tf gzip", hexb(ref.Files["tf_gzip.tfrecord"].HeadHex), tfrecord.Gzip},
		{"sluice zstd", write(t, tfrecord.Zstd, recs...)[:16], tfrecord.Zstd},
		{"python zlib full flush", readTestdata(t, "zlib_full_flush.tfrecord.z")[:16], tfrecord.Zlib},
		{"zlib-like length", zlibLike, tfrecord.None},
		{"zlib header only", []byte{0x78, 0x9c}, tfrecord.Zlib},
		{"zlib with preset dictionary", []byte{0x78, 0xbb}, tfrecord.None},
		{"garbage", []byte("hello, world!"), tfrecord.None},
	}
	for _, tt := range tests {
		if got := tfrecord.DetectCompression(tt.prefix); got != tt.want {
			t.Errorf("%s: DetectCompression(%x) = %v, want %v", tt.name, tt.prefix, got, tt.want)
		}
	}
}

// NewCompressor writes the stream the Writer writes around its framing:
// a compressed file's bytes are those of its records' framing put
// through NewCompressor; NewDecompressor reads them back as a plain
// stream, the framing. An unknown compression is refused by both.
func TestNewCompressorAndDecompressor(t *testing.T) {
	recs := []string{"one", "", strings.Repeat("long ", 10000)}
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			var plain, file, packed bytes.Buffer
			for _, dst := range []struct {
				buf *bytes.Buffer
				c   tfrecord.Compression
			}{{&plain, tfrecord.None}, {&file, c}} {
				w := tfrecord.NewWriter(dst.buf, dst.c)
				for _, rec := range recs {
					if err := w.Write([]byte(rec)); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			w, err := tfrecord.NewCompressor(c, &packed)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(plain.Bytes()); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(packed.Bytes(), file.Bytes()) {
				t.Errorf("%d bytes, want the Writer's %d", packed.Len(), file.Len())
			}
			d, err := tfrecord.NewDecompressor(c, &packed)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, plain.Bytes()) {
				t.Errorf("read back %d bytes, %v", len(got), err)
			}
		})
	}
	bad := tfrecord.Compression(9)
	if _, err := tfrecord.NewCompressor(bad, io.Discard); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("NewCompressor(%v): %v", bad, err)
	}
	if _, err := tfrecord.NewDecompressor(bad, strings.NewReader("")); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("NewDecompressor(%v): %v", bad, err)
	}
}

// A decompressor handed back by Close serves the next stream, never two at
// once: many goroutines decompressing streams of their own, each opening
// and closing decompressors in turn, read their own bytes. Closing twice
// is harmless, and a read after Close fails.
func TestDecompressorsReused(t *testing.T) {
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 20 {
					plain := bytes.Repeat([]byte(fmt.Sprintf("stream %d.%d ", g, i)), 500+i)
					var packed bytes.Buffer
					w, err := tfrecord.NewCompressor(c, &packed)
					if err != nil {
						t.Error(err)
						return
					}
					w.Write(plain)
					w.Close()
					d, err := tfrecord.NewDecompressor(c, &packed)
					if err != nil {
						t.Error(err)
						return
					}
					got, err := io.ReadAll(d)
					d.Close()
					if err != nil || !bytes.Equal(got, plain) {
						t.Errorf("%v: goroutine %d stream %d: %d bytes, %v", c, g, i, len(got), err)
						return
					}
				}
			})
		}
		wg.Wait()
		d, err := tfrecord.NewDecompressor(c, bytes.NewReader(nil))
		if err == nil {
			d.Close()
			d.Close()
			if _, err := d.Read(make([]byte, 1)); err == nil {
				t.Errorf("%v: a read after Close succeeded", c)
			}
		}
	}
}

// A decompressor released after a damaged stream (a bad header, a cut or
// corrupted body) reads the next stream as a new one would: the pools hand
// back nothing of the stream before. One Reader reads them in turn, as a
// Reader of many files does.
func TestPooledAfterDamage(t *testing.T) {
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		var buf bytes.Buffer
		w := tfrecord.NewWriter(&buf, c)
		for i := range 50 {
			w.Write(bytes.Repeat([]byte{byte(i)}, 100+i))
		}
		w.Close()
		good := buf.Bytes()
		corrupt := bytes.Clone(good)
		corrupt[len(corrupt)/2] ^= 0xff
		streams := [][]byte{good, []byte("not compressed at all"), good[:len(good)/3], good, corrupt, {}, good}
		r := tfrecord.NewReader(bytes.NewReader(nil), c)
		for round := range 3 {
			for i, s := range streams {
				r.ResetBytes(s, c)
				n := 0
				var err error
				for {
					var rec []byte
					if rec, err = r.Next(); err != nil {
						break
					}
					if len(rec) != 100+n || rec[0] != byte(n) {
						t.Fatalf("%v round %d stream %d: record %d is %d bytes of %d", c, round, i, n, len(rec), rec[0])
					}
					n++
				}
				whole := bytes.Equal(s, good)
				switch {
				case whole && (err != io.EOF || n != 50):
					t.Errorf("%v round %d stream %d: %d records, then %v", c, round, i, n, err)
				case len(s) == 0 && err != io.EOF:
					t.Errorf("%v round %d: an empty stream: %v", c, round, err)
				case !whole && len(s) > 0 && err == io.EOF:
					t.Errorf("%v round %d stream %d: damage read as a whole stream of %d records", c, round, i, n)
				}
			}
		}
		r.Close()
	}
}

// Bytes after a ZLIB stream's end, a second stream or junk, are an error
// wrapping tfrecord.ErrTrailingData, from the Reader and from tfrecord.NewDecompressor: zlib
// has no members, and ending quietly dropped what they hold (audit 49).
// The records before them are read.
func TestZlibTrailingData(t *testing.T) {
	var one, two bytes.Buffer
	for _, c := range []struct {
		b    *bytes.Buffer
		recs []string
	}{{&one, []string{"one", "two"}}, {&two, []string{"three"}}} {
		w := tfrecord.NewWriter(c.b, tfrecord.Zlib)
		for _, r := range c.recs {
			if err := w.Write([]byte(r)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for name, after := range map[string][]byte{"second stream": two.Bytes(), "junk": []byte("junk"), "a byte": {0}} {
		t.Run(name, func(t *testing.T) {
			file := append(bytes.Clone(one.Bytes()), after...)
			r := tfrecord.NewReader(bytes.NewReader(file), tfrecord.Zlib, tfrecord.Name("f"))
			var got []string
			var err error
			for {
				var rec []byte
				if rec, err = r.Next(); err != nil {
					break
				}
				got = append(got, string(rec))
			}
			if !slices.Equal(got, []string{"one", "two"}) || !errors.Is(err, tfrecord.ErrTrailingData) {
				t.Errorf("Reader: %q, %v; want one, two and tfrecord.ErrTrailingData", got, err)
			}
			d, err := tfrecord.NewDecompressor(tfrecord.Zlib, bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if _, err := io.ReadAll(d); !errors.Is(err, tfrecord.ErrTrailingData) {
				t.Errorf("tfrecord.NewDecompressor: %v; want tfrecord.ErrTrailingData", err)
			}
		})
	}
	// Without them, the stream ends at io.EOF.
	d, err := tfrecord.NewDecompressor(tfrecord.Zlib, bytes.NewReader(one.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := io.ReadAll(d); err != nil {
		t.Errorf("a whole stream: %v", err)
	}
}
