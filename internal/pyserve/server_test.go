//go:build unix

package pyserve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// A client is the test's side of a Serve session, doing what the Python
// package does: it maps each new slot file and says so.
type client struct {
	t     testing.TB
	in    *io.PipeWriter // the server's stdin
	out   *io.PipeReader // the server's stdout
	done  chan error
	slots map[int][]byte
	shm   string // the slot files' directory
	keep  int    // the nexts' keep
}

// startServer starts a session whose slots are named files in a
// directory of the test's.
func startServer(t testing.TB) *client {
	t.Helper()
	return startServerIn(t, t.TempDir())
}

// startServerIn starts a session whose slots are named files in shm, or
// anonymous files if shm is "".
func startServerIn(t testing.TB, shm string) *client {
	t.Helper()
	t.Setenv("SLUICE_SHM_DIR", shm)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: outR, done: make(chan error, 1), slots: map[int][]byte{}, shm: shm}
	go func() {
		err := Serve(context.Background(), inR, outW)
		outW.Close()
		inR.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		c.in.Close()
		// Replies nobody will read (a test that failed in the middle of
		// a request) must not keep Serve from ending.
		c.out.Close()
		<-c.done
		for _, m := range c.slots {
			syscall.Munmap(m)
		}
		if left := c.files(); len(left) > 0 {
			t.Errorf("slot files left behind: %v", left)
		}
	})
	return c
}

func (c *client) files() []string {
	if c.shm == "" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(c.shm, "sluice-*"))
	return m
}

func (c *client) call(req any) Reply {
	c.t.Helper()
	if err := WriteMessage(c.in, req); err != nil {
		c.t.Fatalf("writing %v: %v", req, err)
	}
	msg, err := ReadMessage(c.out)
	if err != nil {
		c.t.Fatalf("reading the reply to %v: %v", req, err)
	}
	var r Reply
	if err := json.Unmarshal(msg, &r); err != nil {
		c.t.Fatalf("reply %s: %v", msg, err)
	}
	return r
}

// A row-major array as the client sees it: raw values, or bytes values.
type array struct {
	shape   []int
	raw     []byte
	strs    [][]byte
	lengths []int64
	indices []int64 // a sparse feature's
}

// mapSlot maps the new file of batch b's slot and says so.
func (c *client) mapSlot(b *BatchInfo) {
	c.t.Helper()
	f, err := os.Open(b.File)
	if err != nil {
		c.t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, b.FileSize, syscall.PROT_READ, syscall.MAP_SHARED)
	f.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	if old := c.slots[b.Slot]; old != nil {
		syscall.Munmap(old)
	}
	c.slots[b.Slot] = m
	if r := c.call(map[string]string{"op": "mapped", "file": b.File}); !r.OK {
		c.t.Fatalf("mapped: %+v", r)
	}
}

// next asks for a batch and copies its arrays out; nil at the end.
func (c *client) next() (map[string]array, *Reply) {
	c.t.Helper()
	r := c.call(map[string]any{"op": "next", "keep": c.keep})
	if r.Batch == nil {
		return nil, &r
	}
	b := r.Batch
	if b.File != "" {
		c.mapSlot(b)
		if c.shm == "" {
			// Anonymous: opened by the server's descriptor, which it
			// keeps as long as the slot has the file.
			if link, err := os.Readlink(b.File); err != nil || !strings.HasPrefix(link, "/memfd:sluice-") {
				c.t.Errorf("slot file %s is %q (%v), want a memfd of the server's", b.File, link, err)
			}
		} else if _, err := os.Stat(b.File); !os.IsNotExist(err) {
			c.t.Errorf("slot file %s is still there after mapped (%v)", b.File, err)
		}
	}
	mem := c.slots[b.Slot]
	if mem == nil {
		c.t.Fatalf("a batch in slot %d, whose file the client has not mapped", b.Slot)
	}
	out := map[string]array{}
	for _, a := range b.Arrays {
		x := array{shape: a.Shape}
		n := 1
		for _, d := range a.Shape {
			n *= d
		}
		if a.IndicesOffset != 0 {
			n = a.NNZ
			x.indices = slices.Clone(int64s(mem[a.IndicesOffset:], n*len(a.Shape)))
		}
		if a.DType == "bytes" {
			offs := int64s(mem[a.Offset:], n+1)
			data := mem[a.DataOffset : a.DataOffset+a.NBytes]
			for i := range n {
				x.strs = append(x.strs, bytes.Clone(data[offs[i]:offs[i+1]]))
			}
		} else {
			x.raw = bytes.Clone(mem[a.Offset : a.Offset+a.NBytes])
		}
		if a.LengthsOffset != 0 {
			x.lengths = slices.Clone(int64s(mem[a.LengthsOffset:], b.Rows))
		}
		out[a.Name] = x
	}
	return out, &r
}

// writeExamples writes files of perFile Examples: "label" (an int64
// counting up), "image" (4 floats), "name" (bytes) and "tokens" (label%4
// int64s, for a VarLen feature).
func writeExamples(t *testing.T, dir string, files, perFile int) string {
	t.Helper()
	label := 0
	for i := range files {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("train-%d.tfrecord", i)))
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(f, []tfrecord.Compression{tfrecord.None, tfrecord.Gzip}[i%2])
		for range perFile {
			l := float32(label)
			steps := make([]float32, 2*(label%3)) // label%3 steps of 2
			for j := range steps {
				steps[j] = l + float32(j)
			}
			tokens := make([]int64, label%4)
			for j := range tokens {
				tokens[j] = int64(label*10 + j)
			}
			// A SparseFeature's entries: label%3 of them, at indices
			// counting down (so that they need sorting).
			var sidx []int64
			var sval []float32
			for j := range label % 3 {
				sidx = append(sidx, int64(5-j))
				sval = append(sval, l+float32(j)/10)
			}
			rec := example.New().Int64("label", int64(label)).Floats("image", []float32{l, -l, l / 2, 1}).
				Int64s("sidx", sidx).Floats("sval", sval).
				Strings("name", strings.Repeat("x", label%5)).Int64s("tokens", tokens).
				Bytes("pix", []byte{byte(label), 1, 2, byte(label)}).
				Floats("steps", steps).Marshal()
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			label++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return filepath.Join(dir, "train-*.tfrecord")
}

// TestServeMatchesBatches reads each kind of data set through the server
// and through sluice directly, with one reader so that the order is the
// same, and compares every array of every batch.
func TestServeMatchesBatches(t *testing.T) {
	tests := []struct {
		name string
		// make writes the data into dir and returns the open request
		// and the same data set for sluice.
		make func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption)
	}{{
		name: "examples",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			pat := writeExamples(t, dir, 2, 25)
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8, "readers": 1,
				"spec": map[string]any{
					"label":  map[string]any{"kind": "fixed", "dtype": "int64"},
					"image":  map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{2, 2}},
					"name":   map[string]any{"kind": "fixed", "dtype": "bytes"},
					"tokens": map[string]any{"kind": "varlen", "dtype": "int64"},
					"absent": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{3}, "default": []float64{1, 2, 3}},
					"words":  map[string]any{"kind": "varlen", "dtype": "bytes"},
					"pix":    map[string]any{"kind": "fixed", "dtype": "uint16", "shape": []int{2}},
					"steps":  map[string]any{"kind": "sequence", "dtype": "float32", "shape": []int{2}},
					"sparse": map[string]any{"kind": "sparse", "dtype": "float32", "index_keys": []string{"sidx"}, "value_key": "sval", "size": []int{6}},
				}}
			spec := example.Spec{
				"label":  example.FixedLen(tensor.Int64),
				"image":  example.FixedLen(tensor.Float32, 2, 2),
				"name":   example.FixedLen(tensor.String),
				"tokens": example.VarLen(tensor.Int64),
				"absent": example.FixedLen(tensor.Float32, 3).WithDefault(tensor.New([]float32{1, 2, 3}, 3)),
				"words":  example.VarLen(tensor.String),
				"pix":    example.FixedLen(tensor.String),
				"steps":  example.FixedLenSequence(tensor.Float32, 2).AllowMissing(),
				"sparse": example.SparseFeature([]string{"sidx"}, "sval", tensor.Float32, []int{6}, false),
			}
			return open, sluice.Examples(pat, spec, sluice.Readers(1)), nil
		},
	}, {
		name: "examples with images",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			// PNGs of varying sizes, cropped or padded to 4 × 5.
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf, tfrecord.None)
			for i := range 20 {
				img := image.NewNRGBA(image.Rect(0, 0, 3+i%4, 2+i%5))
				for j := range img.Pix {
					img.Pix[j] = byte(i*7 + j)
				}
				var b bytes.Buffer
				if err := png.Encode(&b, img); err != nil {
					t.Fatal(err)
				}
				w.Write(example.New().Bytes("img", b.Bytes()).Int64("label", int64(i)).Marshal())
			}
			w.Close()
			name := filepath.Join(dir, "images.tfrecord")
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{name}, "batch_size": 6, "readers": 1,
				"spec": map[string]any{
					"img":   map[string]any{"kind": "image", "dtype": "uint8", "shape": []int{4, 5, 3}},
					"label": map[string]any{"kind": "fixed", "dtype": "int64"},
				}}
			spec := example.Spec{"img": example.FixedLen(tensor.String), "label": example.FixedLen(tensor.Int64)}
			return open, sluice.Examples(name, spec, sluice.Readers(1), sluice.DecodeImage("img", 4, 5, 3)), nil
		},
	}, {
		name: "examples with JPEGs, INTEGER_ACCURATE",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			// At quality 100 the accurate inverse DCT's pixels differ
			// from the fast one's, so a server that dropped dct_method
			// would not match.
			files, err := filepath.Glob(filepath.Join("..", "..", "decode", "testdata", "jpeg", "*q100*.jpg"))
			if err != nil || len(files) < 2 {
				t.Fatalf("%v: %v", files, err)
			}
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf, tfrecord.None)
			for i, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(example.New().Bytes("img", b).Int64("label", int64(i)).Marshal())
			}
			w.Close()
			name := filepath.Join(dir, "jpegs.tfrecord")
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{name}, "batch_size": 2, "readers": 1,
				"spec": map[string]any{
					"img":   map[string]any{"kind": "image", "dtype": "uint8", "shape": []int{40, 50, 3}, "dct_method": "INTEGER_ACCURATE"},
					"label": map[string]any{"kind": "fixed", "dtype": "int64"},
				}}
			spec := example.Spec{"img": example.FixedLen(tensor.String), "label": example.FixedLen(tensor.Int64)}
			return open, sluice.Examples(name, spec, sluice.Readers(1), sluice.DecodeImage("img", 40, 50, 3, decode.AccurateDCT())), nil
		},
	}, {
		name: "records",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			pat := writeExamples(t, dir, 2, 25)
			open := map[string]any{"op": "open", "kind": "records", "files": []string{pat}, "batch_size": 8, "readers": 1}
			return open, sluice.Records(pat, sluice.Readers(1)), nil
		},
	}, {
		name: "sequence_examples",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			var buf bytes.Buffer
			w := tfrecord.NewWriter(&buf, tfrecord.Gzip)
			for i := range 30 {
				steps := make([]example.Feature, i%4)
				words := make([]example.Feature, i%3)
				names := make([]example.Feature, i%5)
				for j := range steps {
					steps[j] = example.FloatList(float32(i), float32(j))
				}
				for j := range words {
					words[j] = example.Int64List(make([]int64, j+1)...)
				}
				for j := range names {
					names[j] = example.StringList(strings.Repeat("n", j))
				}
				w.Write(example.NewSequence().Context("label", example.Int64List(int64(i))).
					Context("pix", example.StringList("ab")).Context("tags", example.StringList(make([]string, i%2)...)).
					List("steps", steps...).List("words", words...).List("names", names...).Marshal())
			}
			w.Close()
			name := filepath.Join(dir, "seq.tfrecord")
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			open := map[string]any{"op": "open", "kind": "sequence_examples", "files": []string{name}, "batch_size": 7, "readers": 1,
				"context": map[string]any{
					"label": map[string]any{"kind": "fixed", "dtype": "int64"},
					"pix":   map[string]any{"kind": "fixed", "dtype": "uint8", "shape": []int{2}},
					"tags":  map[string]any{"kind": "varlen", "dtype": "bytes"},
				},
				"sequence": map[string]any{
					"steps": map[string]any{"kind": "sequence", "dtype": "float32", "shape": []int{2}, "default": -1},
					"words": map[string]any{"kind": "varlen", "dtype": "int64"},
					"names": map[string]any{"kind": "sequence", "dtype": "bytes", "allow_missing": false},
				}}
			ds := sluice.SequenceExamples(name, example.Spec{
				"label": example.FixedLen(tensor.Int64),
				"pix":   example.FixedLen(tensor.String),
				"tags":  example.VarLen(tensor.String),
			}, example.Spec{
				"steps": example.FixedLenSequence(tensor.Float32, 2).AllowMissing().WithDefault(tensor.Scalar(float32(-1))),
				"words": example.VarLen(tensor.Int64),
				"names": example.FixedLenSequence(tensor.String),
			}, sluice.Readers(1))
			return open, ds, nil
		},
	}, {
		// Only FixedLen numbers: decoded into lent slots, a short
		// last batch too, and a default filled in.
		name: "examples of dense numbers",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			pat := writeExamples(t, dir, 2, 25)
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8, "readers": 1,
				"spec": map[string]any{
					"label":  map[string]any{"kind": "fixed", "dtype": "int64"},
					"image":  map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{2, 2}},
					"absent": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{3}, "default": []float64{1, 2, 3}},
				}}
			spec := example.Spec{
				"label":  example.FixedLen(tensor.Int64),
				"image":  example.FixedLen(tensor.Float32, 2, 2),
				"absent": example.FixedLen(tensor.Float32, 3).WithDefault(tensor.New([]float32{1, 2, 3}, 3)),
			}
			return open, sluice.Examples(pat, spec, sluice.Readers(1)), nil
		},
	}, {
		name: "csv",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			var b strings.Builder
			b.WriteString("x,y,tag\n")
			for i := range 30 {
				if i%7 == 3 {
					fmt.Fprintf(&b, "%d,,t%d\n", i, i) // y's default
					continue
				}
				fmt.Fprintf(&b, "%d,%g,t%d\n", i, float64(i)/3, i)
			}
			name := filepath.Join(dir, "data.csv")
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			open := map[string]any{"op": "open", "kind": "csv", "files": []string{name}, "batch_size": 7, "readers": 1,
				"header_lines": 1, "drop_remainder": true, "epochs": 2,
				"columns": []map[string]any{
					{"name": "x", "dtype": "int64", "required": true},
					{"name": "y", "dtype": "float32", "default": -1.5},
					{"name": "tag", "dtype": "bytes"},
				}}
			ds := sluice.CSV(name, []sluice.Column{
				sluice.Col("x", decode.RequiredInt64()),
				sluice.Col("y", decode.Float32Column(-1.5)),
				sluice.Col("tag", decode.StringColumn("")),
			}, sluice.SkipHeaderLines(1), sluice.Readers(1), sluice.Epochs(2))
			return open, ds, []sluice.BatchOption{sluice.DropRemainder()}
		},
	}, {
		name: "fixed",
		make: func(t *testing.T, dir string) (map[string]any, *sluice.Dataset, []sluice.BatchOption) {
			// Records of 1 label byte and 2x3 big-endian uint16 pixels.
			var data []byte
			for i := range 20 {
				data = append(data, byte(i))
				for j := range 6 {
					data = append(data, byte(i), byte(j))
				}
			}
			name := filepath.Join(dir, "data.bin")
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			open := map[string]any{"op": "open", "kind": "fixed", "files": []string{name}, "batch_size": 6, "readers": 1,
				"record_bytes": 13,
				"fields": []map[string]any{
					{"name": "label", "offset": 0, "size": 1, "dtype": "uint8", "shape": []int{}},
					{"name": "pixels", "offset": 1, "size": 12, "dtype": "uint16", "shape": []int{2, 3}, "big_endian": true},
					{"name": "raw", "offset": 1, "size": 12, "dtype": "bytes"},
				}}
			ds := sluice.FixedLengthRecords(name, 13, []sluice.Field{
				{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
				{Name: "pixels", Offset: 1, Size: 12, DType: tensor.Uint16, Shape: []int{2, 3}, BigEndian: true},
				{Name: "raw", Offset: 1, Size: 12, DType: tensor.String},
			}, sluice.Readers(1))
			return open, ds, nil
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open, ds, bopts := tt.make(t, t.TempDir())
			c := startServer(t)
			r := c.call(open)
			if r.Error != nil || len(r.Features) == 0 || r.ShmDir != c.shm {
				t.Fatalf("open: %+v", r)
			}
			features := r.Features
			n := open["batch_size"].(int)
			batches := 0
			for want, err := range ds.Batches(context.Background(), n, bopts...) {
				if err != nil {
					t.Fatal(err)
				}
				got, r := c.next()
				if got == nil {
					t.Fatalf("batch %d: %+v, want a batch", batches, r)
				}
				if r.Batch.Rows != want.Len() {
					t.Fatalf("batch %d: %d rows, want %d", batches, r.Batch.Rows, want.Len())
				}
				if len(got) != len(features) {
					t.Fatalf("batch %d: %d arrays for %d features", batches, len(got), len(features))
				}
				for _, f := range features {
					compareFeature(t, fmt.Sprintf("batch %d: %s", batches, f.Name), got[f.Name], want, f)
				}
				batches++
			}
			if batches == 0 {
				t.Fatal("no batches")
			}
			for range 2 { // the end, and again
				if got, r := c.next(); got != nil || !r.End {
					t.Fatalf("after %d batches: %+v, want the end", batches, r)
				}
			}
			if r := c.call(map[string]string{"op": "close"}); !r.OK {
				t.Fatalf("close: %+v", r)
			}
			if err := <-c.done; err != nil {
				t.Fatalf("Serve: %v", err)
			}
			c.done <- nil // for the cleanup
		})
	}
}

func compareFeature(t *testing.T, what string, got array, want *sluice.Batch, f FeatureInfo) {
	t.Helper()
	if f.Kind == "sparse" {
		sp := want.Sparse(f.Name)
		var shape []int
		for _, d := range sp.DenseShape {
			shape = append(shape, int(d))
		}
		if !slices.Equal(got.shape, shape) || !slices.Equal(got.indices, sp.Indices.Int64s()) ||
			!bytes.Equal(got.raw, rawBytes(sp.Values)) {
			t.Errorf("%s: shape %v, indices %v, values %v; want %v, %v, %v", what, got.shape, got.indices, got.raw,
				shape, sp.Indices.Int64s(), rawBytes(sp.Values))
		}
		return
	}
	d := want.Dense(f.Name)
	if f.Kind == "raw" {
		// Numbers from each record's bytes value.
		var raw []byte
		for _, v := range d.Strings() {
			raw = append(raw, v...)
		}
		if len(got.shape) == 0 || got.shape[0] != want.Len() || !bytes.Equal(got.raw, raw) {
			t.Errorf("%s: shape %v, bytes %v, want %d rows of %v", what, got.shape, got.raw, want.Len(), raw)
		}
		return
	}
	if !slices.Equal(got.shape, []int(d.Shape())) {
		t.Errorf("%s: shape %v, want %v", what, got.shape, d.Shape())
		return
	}
	if f.DType == "bytes" {
		if !slices.EqualFunc(got.strs, d.Strings(), bytes.Equal) {
			t.Errorf("%s: %q, want %q", what, got.strs, d.Strings())
		}
	} else if w := rawBytes(d); !bytes.Equal(got.raw, w) {
		t.Errorf("%s: bytes %v, want %v", what, got.raw, w)
	}
	if f.Kind == "varlen" || f.Kind == "list" {
		var wl []int64
		for _, l := range want.Lengths(f.Name) {
			wl = append(wl, int64(l))
		}
		if !slices.Equal(got.lengths, wl) {
			t.Errorf("%s: lengths %v, want %v", what, got.lengths, wl)
		}
	}
}

// TestServeErrors checks that each kind of failure comes back as an error
// reply of its kind, and that the session goes on where it can.
func TestServeErrors(t *testing.T) {
	dir := t.TempDir()
	pat := writeExamples(t, dir, 1, 10)
	// A corrupt record: flip a byte of the 4th record's data.
	corrupt := filepath.Join(dir, "corrupt.tfrecord")
	good, err := os.ReadFile(filepath.Join(dir, "train-0.tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	off := recordOffset(t, good, 3)
	bad[off+12+5] ^= 0xff
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}
	tests := []struct {
		name    string
		reqs    []any // all but the last must succeed
		kind    string
		message string
		file    string
		offset  int64
	}{
		{name: "corrupt record",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{corrupt}, "spec": spec, "batch_size": 10, "readers": 1},
				map[string]any{"op": "next"}},
			kind: "data", message: "corrupt", file: corrupt, offset: int64(off)},
		{name: "int32 of an int64 list",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int32"}}, "batch_size": 2, "readers": 1},
				map[string]any{"op": "next"}},
			kind: "data", message: "dtype int32 reads a bytes feature holding the values' little-endian bytes", file: filepath.Join(dir, "train-0.tfrecord")},
		{name: "no files",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{filepath.Join(dir, "none-*")}, "spec": spec, "batch_size": 2},
				map[string]any{"op": "next"}},
			kind: "nofiles", message: "no files match", offset: -1},
		{name: "batch size 0",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "spec": spec, "batch_size": 0},
				map[string]any{"op": "next"}},
			kind: "invalid", message: "batch size 0", offset: -1},
		{name: "unknown kind",
			reqs: []any{map[string]any{"op": "open", "kind": "parquet", "files": []string{pat}, "batch_size": 2}},
			kind: "invalid", message: `kind "parquet"`, offset: -1},
		{name: "bad dtype",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "complex64"}}}},
			kind: "invalid", message: `dtype "complex64"`, offset: -1},
		{name: "misspelt option",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "spec": spec, "batchsize": 2}},
			kind: "protocol", message: "batchsize", offset: -1},
		{name: "bad shard",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "spec": spec, "batch_size": 2, "shard": []int{2, 2}}},
			kind: "invalid", message: "shard", offset: -1},
		{name: "a dense feature missing",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 1,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
					"nowhere": map[string]any{"kind": "fixed", "dtype": "float32"}}},
				map[string]any{"op": "next"}},
			// Named as a batch parse names it, though the lent slot's
			// parse fails first.
			kind: "data", message: `Feature: nowhere (data type: float) is required but could not be found`,
			file: filepath.Join(dir, "train-0.tfrecord"), offset: 0},
		{name: "raw bytes of the wrong size",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4,
				"spec": map[string]any{"pix": map[string]any{"kind": "fixed", "dtype": "uint8", "shape": []int{5}}}},
				map[string]any{"op": "next"}},
			// Named as the decoders' errors are: the reading goroutine
			// checks the bytes.
			kind: "data", message: `feature "pix": 4 bytes, want 5`, file: filepath.Join(dir, "train-0.tfrecord"), offset: 0},
		{name: "an image of floats",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"img": map[string]any{"kind": "image", "dtype": "float32", "shape": []int{2, 2, 3}}}}},
			kind: "invalid", message: "an image is an Example's, uint8", offset: -1},
		{name: "an unknown dct_method",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"img": map[string]any{"kind": "image", "dtype": "uint8", "shape": []int{2, 2, 3}, "dct_method": "FLOAT"}}}},
			kind: "invalid", message: `dct_method "FLOAT"`, offset: -1},
		{name: "a max_scans not an image's",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64", "max_scans": 3}}}},
			kind: "invalid", message: "max_scans 3", offset: -1},
		{name: "a negative max_scans",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"img": map[string]any{"kind": "image", "dtype": "uint8", "shape": []int{2, 2, 3}, "max_scans": -1}}}},
			kind: "invalid", message: "max_scans -1", offset: -1},
		{name: "a dct_method not an image's",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64", "dct_method": "INTEGER_ACCURATE"}}}},
			kind: "invalid", message: "dct_method is an image's", offset: -1},
		// Refused at the open, whose reply has no features to describe
		// (audit 56: the client called that reply malformed).
		{name: "csv without columns",
			reqs: []any{map[string]any{"op": "open", "kind": "csv", "files": []string{pat}, "columns": []any{}, "batch_size": 2}},
			kind: "invalid", message: "csv: no features", offset: -1},
		{name: "fixed without fields",
			reqs: []any{map[string]any{"op": "open", "kind": "fixed", "files": []string{pat}, "fields": []any{}, "record_bytes": 4, "batch_size": 2}},
			kind: "invalid", message: "fixed: no features", offset: -1},
		{name: "examples with an empty spec",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "spec": map[string]any{}, "batch_size": 2}},
			kind: "invalid", message: "examples: no features", offset: -1},
		{name: "records with a spec",
			reqs: []any{map[string]any{"op": "open", "kind": "records", "files": []string{pat}, "spec": spec, "batch_size": 2}},
			kind: "invalid", message: "without a spec", offset: -1},
		{name: "sequence_examples with a spec",
			reqs: []any{map[string]any{"op": "open", "kind": "sequence_examples", "files": []string{pat}, "spec": spec, "batch_size": 2}},
			kind: "invalid", message: "context and sequence, not spec", offset: -1},
		{name: "a fixed feature list",
			reqs: []any{map[string]any{"op": "open", "kind": "sequence_examples", "files": []string{pat}, "batch_size": 2, "sequence": spec}},
			kind: "invalid", message: `feature list "label": kind "fixed"`, offset: -1},
		{name: "a required sequence feature of an Example",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"s": map[string]any{"kind": "sequence", "dtype": "int64", "allow_missing": false}}}},
			kind: "invalid", message: "must allow missing", offset: -1},
		{name: "a missing feature list",
			reqs: []any{map[string]any{"op": "open", "kind": "sequence_examples", "files": []string{corrupt}, "batch_size": 2, "readers": 1,
				"sequence": map[string]any{"s": map[string]any{"kind": "sequence", "dtype": "int64", "allow_missing": false}}},
				map[string]any{"op": "next"}},
			kind: "data", message: "Feature list 's' is required", file: corrupt, offset: 0},
		{name: "a transpose of a shape no record makes",
			// A shape of 2^60 values once crashed the server: the
			// transposer was sized by it before Shape was checked
			// against Size (found by an audit, 2026-11-27). As for
			// the other build errors, the open succeeds and the
			// session's first next reports it.
			reqs: []any{map[string]any{"op": "open", "kind": "fixed", "files": []string{pat}, "record_bytes": 12, "batch_size": 2,
				"fields": []any{map[string]any{"name": "a", "offset": 0, "size": 12, "dtype": "uint8",
					"shape": []int{1 << 30, 1 << 30}, "transpose": []int{1, 0}}}},
				map[string]any{"op": "next"}},
			kind: "invalid", message: "do not make shape [1073741824 1073741824]", offset: -1},
		// The user's arguments, kind "invalid" (a ValueError in
		// Python), not "other" or "protocol" (audit 18, bug 5).
		{name: "a negative shape",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"x": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{-1}}}},
				map[string]any{"op": "next"}},
			kind: "invalid", message: "invalid feature spec", offset: -1},
		{name: "a default of another shape",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"x": map[string]any{"kind": "fixed", "dtype": "int64", "shape": []int{2}, "default": []int{1, 2, 3}}}},
				map[string]any{"op": "next"}},
			kind: "invalid", message: "invalid feature spec", offset: -1},
		{name: "a sparse feature of a negative size",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"s": map[string]any{"kind": "sparse", "dtype": "float32", "index_keys": []string{"v"}, "value_key": "x", "size": []int{-3}}}},
				map[string]any{"op": "next"}},
			kind: "invalid", message: "invalid feature spec", offset: -1},
		{name: "a misspelt key of a feature",
			reqs: []any{map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 2,
				"spec": map[string]any{"id": map[string]any{"kind": "fixed", "dtype": "int64", "shpae": []int{3}}}}},
			kind: "invalid", message: `feature "id": json: unknown field "shpae"`, offset: -1},
		{name: "a misspelt key of a context feature",
			reqs: []any{map[string]any{"op": "open", "kind": "sequence_examples", "files": []string{pat}, "batch_size": 2,
				"context": map[string]any{"id": map[string]any{"kind": "fixed", "dtype": "int64", "defalt": 3}}}},
			kind: "invalid", message: `feature "id": json: unknown field "defalt"`, offset: -1},
		{name: "a misspelt key of a column",
			reqs: []any{map[string]any{"op": "open", "kind": "csv", "files": []string{pat}, "batch_size": 2,
				"columns": []any{map[string]any{"name": "a", "dtype": "int64", "requird": true}}}},
			kind: "invalid", message: `column "a": json: unknown field "requird"`, offset: -1},
		{name: "a misspelt key of a field",
			reqs: []any{map[string]any{"op": "open", "kind": "fixed", "files": []string{pat}, "record_bytes": 4, "batch_size": 2,
				"fields": []any{map[string]any{"name": "f", "offset": 0, "size": 4, "dtype": "uint8", "shap": []int{4}}}}},
			kind: "invalid", message: `field "f": json: unknown field "shap"`, offset: -1},
		{name: "an empty delim",
			// Not the default comma: TensorFlow refuses it (bug 6).
			reqs: []any{map[string]any{"op": "open", "kind": "csv", "files": []string{pat}, "batch_size": 2, "delim": "",
				"columns": []any{map[string]any{"name": "a", "dtype": "int64"}}}},
			kind: "invalid", message: `delim ""`, offset: -1},
		{name: "a delim of two bytes",
			reqs: []any{map[string]any{"op": "open", "kind": "csv", "files": []string{pat}, "batch_size": 2, "delim": ";;",
				"columns": []any{map[string]any{"name": "a", "dtype": "int64"}}}},
			kind: "invalid", message: `delim ";;"`, offset: -1},
		{name: "a fixed-length compression",
			reqs: []any{map[string]any{"op": "open", "kind": "fixed", "files": []string{pat}, "record_bytes": 4, "batch_size": 2, "compression": "LZ4",
				"fields": []any{map[string]any{"name": "f", "offset": 0, "size": 4, "dtype": "uint8"}}}},
			kind: "invalid", message: `fixed-length records: compression "LZ4"`, offset: -1},
		{name: "next before open", reqs: []any{map[string]any{"op": "next"}}, kind: "protocol", message: "before open", offset: -1},
		{name: "unknown op", reqs: []any{map[string]any{"op": "rewind"}}, kind: "protocol", message: "rewind", offset: -1},
		{name: "mapped, not a slot", reqs: []any{map[string]any{"op": "mapped", "file": "/etc/passwd"}}, kind: "protocol", message: "not a slot file", offset: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t)
			for _, req := range tt.reqs[:len(tt.reqs)-1] {
				if r := c.call(req); r.Error != nil {
					t.Fatalf("%v: %+v", req, r.Error)
				}
			}
			var r Reply
			for range 2 { // the error, and again: it stays
				r = c.call(tt.reqs[len(tt.reqs)-1])
				e := r.Error
				if e == nil {
					t.Fatalf("%+v, want an error", r)
				}
				if e.Kind != tt.kind || !strings.Contains(e.Message, tt.message) || e.File != tt.file || e.Offset != tt.offset {
					t.Errorf("error %+v, want kind %q, a message with %q, file %q, offset %d", e, tt.kind, tt.message, tt.file, tt.offset)
				}
			}
			// The session is still alive.
			if r := c.call(map[string]string{"op": "close"}); !r.OK {
				t.Fatalf("close: %+v", r)
			}
		})
	}
}

// recordOffset returns the offset of TFRecord i in data.
func recordOffset(t *testing.T, data []byte, i int) int {
	t.Helper()
	off := 0
	for range i {
		if off+12 > len(data) {
			t.Fatal("too few records")
		}
		n := int(data[off]) | int(data[off+1])<<8 | int(data[off+2])<<16 | int(data[off+3])<<24
		off += 12 + n + 4
	}
	return off
}

// TestServeEndsWithItsInput checks that the server stops when its input
// ends in the middle of a data set, as when the client dies, and leaves
// no slot file, mapped or not.
func TestServeEndsWithItsInput(t *testing.T) {
	for _, mapFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("mapped=", mapFirst), func(t *testing.T) {
			pat := writeExamples(t, t.TempDir(), 2, 50)
			c := startServer(t)
			r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "epochs": 1000, "shuffle": 10,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}})
			if r.Error != nil {
				t.Fatal(r.Error)
			}
			if mapFirst {
				c.next()
			} else if r := c.call(map[string]string{"op": "next"}); r.Batch == nil || r.Batch.File == "" {
				t.Fatalf("next: %+v, want a batch in a new file", r)
			}
			c.in.Close()
			if err := <-c.done; err != nil {
				t.Fatalf("Serve: %v", err)
			}
			c.done <- nil
		})
	}
}

// TestServeStopsWithContext checks that a cancelled context ends the
// session while the client is silent.
func TestServeStopsWithContext(t *testing.T) {
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, inR, io.Discard) }()
	cancel()
	if err := <-done; err == nil {
		t.Error("Serve returned nil after its context was cancelled")
	}
	inW.Close()
}

// TestServeReopen checks that a second open, in the middle of a data set
// or after its end, starts the new one from its beginning in the same
// slot files, and that a failed open leaves the session usable.
func TestServeReopen(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 20)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8, "readers": 1,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	c := startServer(t)
	labels := func(a array) []int64 { return slices.Clone(int64s(a.raw, len(a.raw)/8)) }
	files := map[string]bool{}
	for pass := range 3 {
		r := c.call(open)
		if r.Error != nil {
			t.Fatal(r.Error)
		}
		// The first open makes the slots; the others reuse them.
		if r.NewSlots != (pass == 0) {
			t.Errorf("pass %d: new_slots %v", pass, r.NewSlots)
		}
		var got []int64
		for {
			b, r := c.next()
			if b == nil {
				if !r.End {
					t.Fatalf("pass %d: %+v", pass, r)
				}
				break
			}
			if r.Batch.File != "" {
				if pass > 0 {
					t.Errorf("pass %d: a new slot file %s", pass, r.Batch.File)
				}
				files[r.Batch.File] = true
			}
			got = append(got, labels(b["label"])...)
			if pass == 1 && len(got) == 8 {
				break // reopened in the middle
			}
		}
		if pass != 1 && !slices.Equal(got, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
			t.Errorf("pass %d: labels %v", pass, got)
		}
	}
	bad := map[string]any{"op": "open", "kind": "parquet", "files": []string{pat}, "batch_size": 8}
	if r := c.call(bad); r.Error == nil || r.Error.Kind != "invalid" {
		t.Errorf("open of kind parquet: %+v, want an invalid-argument error", r)
	}
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	if b, r := c.next(); b == nil {
		t.Errorf("after a failed open: %+v", r)
	}
	// Another number of slots: all new.
	other := maps.Clone(open)
	other["slots"] = 5
	if r := c.call(other); r.Error != nil || !r.NewSlots {
		t.Errorf("open with other slots: %+v, want new_slots", r)
	}
}

// A slot an open retires gets a new file before its next batch, and the
// memory the client kept of it is never written again, whether the slot
// is one of the ring's (a copied batch) or lent (decoded into); without
// retire the next pass writes over it.
func TestServeRetire(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	tests := []struct {
		name     string
		minBytes int
		spec     map[string]any
	}{
		{"ring slot", 64, map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}},
		{"lent slot", 12, map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{4}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func(m int) func() { return func() { minLentBytes = m } }(minLentBytes))
			minLentBytes = tt.minBytes
			c := startServer(t)
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8, "readers": 1,
				"spec": tt.spec}
			// pass reads the data set to its end and returns the last
			// batch's slot and whether a batch in slot k came with a new
			// file.
			seed := 0
			pass := func(open map[string]any, k int) (last int, newFile bool) {
				// Another order each pass, so that a slot's memory
				// written again is not the same.
				seed++
				open = maps.Clone(open)
				open["shuffle"], open["seed"] = 40, seed
				if r := c.call(open); r.Error != nil {
					t.Fatal(r.Error)
				}
				for {
					b, r := c.next()
					if b == nil {
						if !r.End {
							t.Fatalf("%+v", r)
						}
						return last, newFile
					}
					last = r.Batch.Slot
					newFile = newFile || last == k && r.Batch.File != ""
				}
			}
			k, _ := pass(open, -1)
			if lent := k >= DefaultSlots; lent != (tt.minBytes < 64) {
				t.Fatalf("the last batch in slot %d, want it lent %v", k, tt.minBytes < 64)
			}
			// The test's client keeps the slot's old mapping as the
			// trainer's arrays would, out of its own list, which
			// unmaps a slot's mapping when the slot gets a new file.
			kept := c.slots[k]
			defer syscall.Munmap(kept)
			delete(c.slots, k)
			want := bytes.Clone(kept)
			retire := maps.Clone(open)
			retire["retire"] = []int{k}
			// Which lent slot a reader decodes into depends on timing
			// (the one free on top of the stack), so a pass may not use
			// slot k: the passes go on, bounded, until one does; the
			// retired slot gets its new file whenever it is next used.
			got := false
			for i := 0; i < 50 && !got; i++ {
				o := open
				if i == 0 {
					o = retire
				}
				_, got = pass(o, k)
			}
			if !got {
				t.Errorf("no batch in retired slot %d came with a new file in 50 passes", k)
			}
			if !bytes.Equal(kept, want) {
				t.Errorf("the retired slot's old memory was written")
			}
			// The control: the new file, not retired, is written over.
			mem := c.slots[k]
			before := bytes.Clone(mem)
			for i := 0; i < 50 && bytes.Equal(mem, before); i++ {
				if _, got := pass(open, k); got {
					t.Errorf("slot %d got a new file without retire", k)
				}
			}
			if bytes.Equal(mem, before) {
				t.Errorf("slot %d not written in 50 passes: the test shows nothing", k)
			}
			for _, bad := range [][]int{{-1}, {k, 99}} {
				r := c.call(map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 8, "spec": tt.spec, "retire": bad})
				if r.Error == nil || !strings.Contains(r.Error.Message, "retire names slot") {
					t.Errorf("retire %v: %+v, want a protocol error", bad, r)
				}
			}
		})
	}
}

// A state taken after some batches, sent with the next open, resumes
// there: the client gets the batches a run without the break would have
// given it, although the server had prepared more.
func TestServeStateResumes(t *testing.T) {
	// Uncompressed, for the global shuffle's index.
	dir := t.TempDir()
	for i := range 3 {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b)
		for j := range 30 {
			w.Write(example.New().Int64("label", int64(30*i+j)).Marshal())
		}
		w.Close()
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pat := filepath.Join(dir, "part-*")
	for _, mode := range []string{"deterministic", "global_shuffle"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 7,
				"shuffle": 20, "seed": 3, "epochs": 2, mode: true,
				"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
			c := startServer(t)
			labels := func(a array) []int64 { return slices.Clone(int64s(a.raw, len(a.raw)/8)) }
			all := func() (out [][]int64) {
				for {
					b, r := c.next()
					if b == nil {
						if !r.End {
							t.Fatalf("%+v", r.Error)
						}
						return out
					}
					out = append(out, labels(b["label"]))
				}
			}
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
			want := all()
			for _, cut := range []int{0, 4, len(want) - 1} {
				if r := c.call(open); r.Error != nil {
					t.Fatal(r.Error)
				}
				for range cut {
					c.next()
				}
				st := c.call(map[string]string{"op": "state"})
				if st.Error != nil || len(st.State) == 0 {
					t.Fatalf("state: %+v", st.Error)
				}
				resume := maps.Clone(open)
				resume["resume"] = st.State
				if r := c.call(resume); r.Error != nil {
					t.Fatal(r.Error)
				}
				if got := all(); !reflect.DeepEqual(got, want[cut:]) {
					t.Fatalf("cut %d: resumed with %d batches, want %d", cut, len(got), len(want)-cut)
				}
			}
		})
	}
}

// With keep=1 the batch sent last stays intact while the client reads
// the next one: its slot is written again only after the client asks for
// the batch after that.
func TestServeKeep(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	c := startServer(t)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 1,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	c.keep = 1
	type sent struct {
		slot   int
		offset int
		labels []int64
	}
	var prev *sent
	for want := int64(0); ; want += 4 {
		b, r := c.next()
		if b == nil {
			if !r.End || want != 40 {
				t.Fatalf("after %d labels: %+v", want, r)
			}
			break
		}
		if prev != nil {
			// The batch before is still the client's.
			mem := c.slots[prev.slot]
			if got := int64s(mem[prev.offset:], 4); !slices.Equal(got, prev.labels) {
				t.Fatalf("batch of labels %v overwritten with %v while kept", prev.labels, got)
			}
		}
		labels := slices.Clone(int64s(b["label"].raw, 4))
		if labels[0] != want {
			t.Fatalf("labels %v, want from %d", labels, want)
		}
		prev = &sent{slot: r.Batch.Slot, offset: r.Batch.Arrays[0].Offset, labels: labels}
	}
	c.keep = 2 // with 3 slots, none spare
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	if _, r := c.next(); r.Error == nil || r.Error.Kind != "protocol" {
		t.Errorf("keep 2 of 3 slots: %+v, want a protocol error", r)
	}
}

// A batch of FixedLen numbers only is decoded into a slot lent to the
// readers, past the ring; a batch with another kind of feature is copied
// into the ring. Either way a kept batch stays intact (TestServeKeep) and
// the values are Go's (TestServeMatchesBatches).
func TestServeLendsSlots(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 2, 30)
	dense := map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
		"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{4}}}
	tests := []struct {
		name     string
		spec     map[string]any
		minBytes int // minLentBytes: the features here take 12 bytes a record on average
		lent     bool
	}{
		{"dense numbers", dense, 12, true},
		{"dense numbers of few bytes", dense, 13, false},
		{"with a VarLen feature", map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"tokens": map[string]any{"kind": "varlen", "dtype": "int64"}}, 0, false},
		{"with a bytes feature", map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"name": map[string]any{"kind": "fixed", "dtype": "bytes"}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Restored after the server's cleanup, which ends it.
			t.Cleanup(func(m int) func() { return func() { minLentBytes = m } }(minLentBytes))
			minLentBytes = tt.minBytes
			c := startServer(t)
			c.keep = 1
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 7, "readers": 2, "spec": tt.spec}
			for pass := range 2 { // the second reuses the slots
				if r := c.call(open); r.Error != nil {
					t.Fatal(r.Error)
				}
				rows := 0
				for {
					b, r := c.next()
					if b == nil {
						if !r.End {
							t.Fatalf("pass %d: %+v", pass, r)
						}
						break
					}
					if lent := r.Batch.Slot >= DefaultSlots; lent != tt.lent {
						t.Fatalf("pass %d: batch in slot %d (lent %v), want lent %v", pass, r.Batch.Slot, lent, tt.lent)
					}
					rows += r.Batch.Rows
				}
				if rows != 60 {
					t.Fatalf("pass %d: %d rows, want 60", pass, rows)
				}
			}
		})
	}
}

// Fixed-length records of numbers only are decoded into lent slots too,
// transposed fields and other byte orders included, with the values a
// decode into Go memory gives; a bytes field makes them copied.
func TestServeLendsFixedLengthSlots(t *testing.T) {
	// Records of a label byte and six big-endian uint16s, label*10+j.
	dir := t.TempDir()
	for f := range 2 {
		var data []byte
		for i := range 10 {
			label := f*10 + i
			data = append(data, byte(label))
			for j := range 6 {
				data = binary.BigEndian.AppendUint16(data, uint16(label*10+j))
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%d.bin", f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	numbers := []map[string]any{
		{"name": "label", "offset": 0, "size": 1, "dtype": "uint8", "shape": []int{}},
		{"name": "be", "offset": 1, "size": 12, "dtype": "uint16", "shape": []int{2, 3}, "big_endian": true},
		{"name": "t", "offset": 1, "size": 12, "dtype": "uint16", "shape": []int{2, 3}, "transpose": []int{1, 0}, "big_endian": true},
		{"name": "le", "offset": 1, "size": 12, "dtype": "int16"},
	}
	tests := []struct {
		name   string
		fields []map[string]any
		lent   bool
	}{
		{"numbers", numbers, true},
		{"with a bytes field", append(slices.Clone(numbers), map[string]any{"name": "raw", "offset": 1, "size": 12, "dtype": "bytes"}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func(m int) func() { return func() { minLentBytes = m } }(minLentBytes))
			minLentBytes = 1
			c := startServer(t)
			c.keep = 1
			open := map[string]any{"op": "open", "kind": "fixed", "files": []string{filepath.Join(dir, "d*.bin")},
				"batch_size": 7, "readers": 2, "record_bytes": 13, "fields": tt.fields}
			for pass := range 2 {
				if r := c.call(open); r.Error != nil {
					t.Fatal(r.Error)
				}
				var labels []int
				for {
					b, r := c.next()
					if b == nil {
						if !r.End {
							t.Fatalf("pass %d: %+v", pass, r)
						}
						break
					}
					if lent := r.Batch.Slot >= DefaultSlots; lent != tt.lent {
						t.Fatalf("pass %d: batch in slot %d (lent %v), want lent %v", pass, r.Batch.Slot, lent, tt.lent)
					}
					for i, l := range b["label"].raw {
						labels = append(labels, int(l))
						for j := range 6 {
							want := uint16(int(l)*10 + j)
							be := binary.NativeEndian.Uint16(b["be"].raw[2*(6*i+j):])
							// be[j/3][j%3] is t[j%3][j/3].
							tr := binary.NativeEndian.Uint16(b["t"].raw[2*(6*i+j%3*2+j/3):])
							le := binary.NativeEndian.Uint16(b["le"].raw[2*(6*i+j):])
							if be != want || tr != want || le != want>>8|want<<8 {
								t.Fatalf("pass %d: record %d value %d: be %d, t %d, le %#x, want %d", pass, l, j, be, tr, le, want)
							}
						}
					}
					if !slices.Equal(b["t"].shape, []int{r.Batch.Rows, 3, 2}) || !slices.Equal(b["le"].shape, []int{r.Batch.Rows, 6}) {
						t.Fatalf("shapes %v and %v", b["t"].shape, b["le"].shape)
					}
				}
				slices.Sort(labels)
				if len(labels) != 20 {
					t.Fatalf("pass %d: %d records, want 20", pass, len(labels))
				}
				for i, l := range labels {
					if l != i {
						t.Fatalf("pass %d: labels %v, want 0 to 19 once each", pass, labels)
					}
				}
			}
		})
	}
}

// TestServeAnonymousSlots reads data sets through slots that are
// anonymous files (where the system has memfd_create): lent and copied
// batches over two passes, whose memory is the server's descriptors and
// the client's mappings only, and goes with them: when the session ends,
// no descriptor of a slot is left.
func TestServeAnonymousSlots(t *testing.T) {
	if !haveMemFiles() {
		t.Skip("no memfd_create or /proc here: slots are named files")
	}
	before := memFDs(t)
	pat := writeExamples(t, t.TempDir(), 2, 30)
	c := startServerIn(t, "")
	c.keep = 1
	specs := map[string]map[string]any{
		"lent": {"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{4}}},
		"copied": {"label": map[string]any{"kind": "fixed", "dtype": "int64"},
			"tokens": map[string]any{"kind": "varlen", "dtype": "int64"}},
	}
	t.Cleanup(func(m int) func() { return func() { minLentBytes = m } }(minLentBytes))
	minLentBytes = 12 // the image and label take 12 bytes a record: lent
	files := map[string]bool{}
	for _, name := range []string{"lent", "copied"} {
		open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 7, "readers": 2, "spec": specs[name]}
		for pass := range 2 {
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
			var labels []int64
			for {
				b, r := c.next()
				if b == nil {
					if !r.End {
						t.Fatalf("%s, pass %d: %+v", name, pass, r)
					}
					break
				}
				if lent := r.Batch.Slot >= DefaultSlots; lent != (name == "lent") {
					t.Fatalf("%s: batch in slot %d (lent %v)", name, r.Batch.Slot, lent)
				}
				if f := r.Batch.File; f != "" {
					if !strings.HasPrefix(f, fmt.Sprintf("/proc/%d/fd/", os.Getpid())) {
						t.Errorf("%s: slot file %s, want a descriptor of the server's", name, f)
					}
					files[f] = true
				}
				labels = append(labels, int64s(b["label"].raw, r.Batch.Rows)...)
			}
			slices.Sort(labels)
			for i, l := range labels {
				if l != int64(i) || len(labels) != 60 {
					t.Fatalf("%s, pass %d: labels %v, want 0 to 59 once each", name, pass, labels)
				}
			}
		}
	}
	if len(files) == 0 {
		t.Fatal("no slot file was named")
	}
	if n := memFDs(t); n <= before {
		t.Errorf("%d memfds while serving, %d before", n, before)
	}
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	c.done <- nil
	if n := memFDs(t); n != before {
		t.Errorf("%d memfds after the session, %d before", n, before)
	}
}

// memFDs counts this process's descriptors of sluice's anonymous files.
// A spec whose batch would take gigabytes, over records of one value each,
// fails its first batch with the records' error, having taken none of that
// memory: a slot lent for the batch is an anonymous file sized only, whose
// pages come as the batch is written (audit 96: allocated, such a spec's
// 5 GiB of slots set off the out-of-memory killer).
func TestServeHugeSpecTakesNoMemory(t *testing.T) {
	if !haveMemFiles() {
		t.Skip("no memfd_create or /proc here: slots are named files")
	}
	pat := writeExamples(t, t.TempDir(), 1, 10)
	c := startServerIn(t, "")
	spec := map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64", "shape": []int{1 << 21}}}
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 64, "readers": 2, "spec": spec}
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	if b, r := c.next(); b != nil || r.Error == nil || !strings.Contains(r.Error.Message, "shape") {
		t.Fatalf("a batch of 2^21 values a record from records of one: %+v, want the records' error", r)
	}
	if used := memFDBytes(t); used > 64<<20 {
		t.Errorf("the slots hold %d MiB of memory for a batch that failed", used>>20)
	}
}

// memFDBytes returns the memory the process's slot files hold.
func memFDBytes(t *testing.T) int64 {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, fd := range fds {
		name := "/proc/self/fd/" + fd.Name()
		if link, _ := os.Readlink(name); strings.HasPrefix(link, "/memfd:sluice-") {
			var st syscall.Stat_t
			if syscall.Stat(name, &st) == nil {
				n += st.Blocks * 512
			}
		}
	}
	return n
}

func memFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if link, _ := os.Readlink("/proc/self/fd/" + fd.Name()); strings.HasPrefix(link, "/memfd:sluice-") {
			n++
		}
	}
	return n
}

// A next with a count gets that many replies; a client that asks for two
// at a time, ahead, with the batches it has not handed out kept (as the
// Python package does), finds each batch intact until it asks again.
func TestServeCount(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	for _, spec := range []map[string]any{
		{"label": map[string]any{"kind": "fixed", "dtype": "int64"}},                                                            // lent slots
		{"label": map[string]any{"kind": "fixed", "dtype": "int64"}, "name": map[string]any{"kind": "fixed", "dtype": "bytes"}}, // the ring
	} {
		c := startServer(t)
		open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 3, "readers": 2, "slots": 5, "spec": spec}
		if r := c.call(open); r.Error != nil {
			t.Fatal(r.Error)
		}
		var pending []Reply // received, not handed out
		ahead := 0
		recv := func() {
			msg, err := ReadMessage(c.out)
			if err != nil {
				t.Fatal(err)
			}
			var r Reply
			if err := json.Unmarshal(msg, &r); err != nil {
				t.Fatal(err)
			}
			if b := r.Batch; b != nil && b.File != "" {
				f, err := os.Open(b.File)
				if err != nil {
					t.Fatal(err)
				}
				m, err := syscall.Mmap(int(f.Fd()), 0, b.FileSize, syscall.PROT_READ, syscall.MAP_SHARED)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if old := c.slots[b.Slot]; old != nil {
					syscall.Munmap(old)
				}
				c.slots[b.Slot] = m
			}
			pending = append(pending, r)
			ahead--
		}
		var held *Reply
		var heldLabels []int64
		labels := func(r *Reply) []int64 {
			a := r.Batch.Arrays[slices.IndexFunc(r.Batch.Arrays, func(a ArrayInfo) bool { return a.Name == "label" })]
			return slices.Clone(int64s(c.slots[r.Batch.Slot][a.Offset:], a.Shape[0]))
		}
		for want := int64(0); ; {
			// The batch handed out last is the client's until it asks
			// for more: a request sent now frees it.
			if held != nil {
				if got := labels(held); !slices.Equal(got, heldLabels) {
					t.Fatalf("batch %v overwritten with %v while kept", heldLabels, got)
				}
			}
			for len(pending)+ahead <= 2 {
				keep := len(pending) + ahead
				if err := WriteMessage(c.in, map[string]any{"op": "next", "keep": keep, "count": 2}); err != nil {
					t.Fatal(err)
				}
				ahead += 2
				// Replies to requests before are read first.
				for ahead > 2 {
					recv()
				}
			}
			if len(pending) == 0 {
				recv()
			}
			r := pending[0]
			pending = pending[1:]
			if r.Batch != nil && r.Batch.File != "" {
				// The replies on their way come before mapped's, as
				// the Python client reads them.
				for ahead > 0 {
					recv()
				}
				if r := c.call(map[string]string{"op": "mapped", "file": r.Batch.File}); !r.OK {
					t.Fatalf("mapped: %+v", r)
				}
			}
			if r.Error != nil {
				t.Fatal(r.Error)
			}
			if r.End {
				if want != 40 {
					t.Fatalf("the end after %d labels", want)
				}
				break
			}
			got := labels(&r)
			if got[0] != want {
				t.Fatalf("labels %v, want from %d", got, want)
			}
			want += int64(len(got))
			held, heldLabels = &r, got
		}
		for ahead > 0 {
			recv()
		}
		// Four kept and two asked for do not fit in five slots: one
		// error reply, whatever the count, and no batch taken.
		if r := c.call(open); r.Error != nil {
			t.Fatal(r.Error)
		}
		if r := c.call(map[string]any{"op": "next", "keep": 4, "count": 2}); r.Error == nil || r.Error.Kind != "protocol" ||
			!strings.Contains(r.Error.Message, "keep 4 and count 2 with 5 slots") {
			t.Errorf("keep 4, count 2 of 5 slots: %+v, want a protocol error", r)
		}
		if r := c.call(map[string]any{"op": "next"}); r.Batch == nil {
			t.Fatalf("next after a refused one: %+v", r)
		} else {
			if r.Batch.File != "" {
				c.mapSlot(r.Batch)
			}
			if got := labels(&r); got[0] != 0 {
				t.Errorf("the first batch after a refused next starts at label %d, want 0", got[0])
			}
		}
	}
}

// A damaged TFRecord file's error tells a Python user the way out: the
// package's command salvages it, and skip_corrupt skips records whose
// CRCs fail, which does not help a truncated end.
func TestDamageHint(t *testing.T) {
	at := func(err error) error { return &dataerr.Error{File: "f.tfrecord", Offset: 9, Err: err} }
	corrupt := &tfrecord.RecordError{Err: tfrecord.ErrCorrupt}
	truncated := &tfrecord.RecordError{Err: tfrecord.ErrTruncated}
	large := &tfrecord.RecordError{Err: tfrecord.ErrTooLarge}
	for _, tc := range []struct {
		err                 error
		salvage, skipReader bool
	}{
		{at(corrupt), true, true},
		{at(truncated), true, false},
		{at(large), false, false},
		{at(errors.New("a CSV line with 3 fields, want 4")), false, false},
		// An index that does not match its file: nothing to salvage.
		{fmt.Errorf("%w; the index does not match the file (%w)", at(corrupt), index.ErrStale), false, false},
	} {
		msg := errorInfo(tc.err).Message
		if strings.Contains(msg, "sluice convert --skip-corrupt f.tfrecord --out NEW") != tc.salvage ||
			strings.Contains(msg, "skip_corrupt=True") != tc.skipReader {
			t.Errorf("%v: %q", tc.err, msg)
		}
	}
	// A sluice index met as data is named as one by the readers, which
	// is no damage to salvage (audit 53).
	if msg := errorInfo(at(index.ErrIndexFile)).Message; strings.Contains(msg, "skip-corrupt") {
		t.Errorf("an index read as data: %q", msg)
	}
}

// A client reads ahead of its trainer, so the server meets a corrupt
// record batches before the trainer does, and the client then asks for
// the state before the batches it holds: the server gives it, and the
// run resumed there gives those batches and the error again. Before, the
// state request returned the record's error (a trainer that saved its
// state each step failed that many steps early, and the positions just
// before the bad record, from which a run resumes with skip_corrupt, were
// lost).
func TestServeStateAfterError(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 60)
	good, err := os.ReadFile(filepath.Join(dir, "train-0.tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[recordOffset(t, good, 40)+12+5] ^= 0xff
	corrupt := filepath.Join(dir, "corrupt.tfrecord")
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{corrupt}, "batch_size": 5,
		"readers": 1, "deterministic": true, "spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	c := startServer(t)
	// all reads to the end: the batches' labels and the error.
	all := func() (out [][]int64, msg string) {
		for {
			b, r := c.next()
			if b == nil {
				if r.Error == nil {
					t.Fatal("the run ends without the corrupt record's error")
				}
				return out, r.Error.Message
			}
			out = append(out, slices.Clone(int64s(b["label"].raw, len(b["label"].raw)/8)))
		}
	}
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	want, wantErr := all()
	if len(want) != 8 {
		t.Fatalf("%d batches before the corrupt record, want 8", len(want))
	}
	for _, before := range []int{0, 1, 3} {
		if r := c.call(open); r.Error != nil {
			t.Fatal(r.Error)
		}
		all()
		// The trainer was handed len(want)-before batches.
		st := c.call(map[string]any{"op": "state", "before": before})
		if st.Error != nil || len(st.State) == 0 {
			t.Fatalf("state before %d after the error: %+v", before, st.Error)
		}
		resume := maps.Clone(open)
		resume["resume"] = st.State
		if r := c.call(resume); r.Error != nil {
			t.Fatal(r.Error)
		}
		got, gotErr := all()
		if fmt.Sprint(got) != fmt.Sprint(want[len(want)-before:]) || gotErr != wantErr {
			t.Errorf("before %d: resumed with %v then %q, want %v then %q", before, got, gotErr, want[len(want)-before:], wantErr)
		}
	}
}

// An open the server refuses ends the data set before it, as one it
// takes does: the client sends the first next right behind an open, and
// after a refused one that next must not get the old data set's batch.
func TestRefusedOpenEndsTheDataSetBefore(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 20)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	c := startServer(t)
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	if r := c.call(map[string]any{"op": "next"}); r.Batch == nil {
		t.Fatalf("first data set's batch: %+v", r)
	}
	bad := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64", "shpae": []int{3}}}}
	if r := c.call(bad); r.Error == nil {
		t.Fatalf("open with a misspelt key: %+v, want an error", r)
	}
	r := c.call(map[string]any{"op": "next"})
	if r.Error == nil || !strings.Contains(r.Error.Message, "before open") {
		t.Fatalf("next after the refused open: %+v, want a next before open", r)
	}
	if r := c.call(open); r.Error != nil {
		t.Fatal(r.Error)
	}
	if r := c.call(map[string]any{"op": "next"}); r.Batch == nil {
		t.Fatalf("after a new open: %+v", r)
	}
}
