package decode

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tensor"
)

// FuzzCSV: decode_csv never panics, and a record decodes the same alone
// (Decode), in a batch (DecodeBatch) and into reused tensors
// (DecodeBatchInto, and with ReuseStrings after another batch), with
// every option in play.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{"1,2.5,x,4", `"a""b",1.5,c,`, ",,,", "\"", "1,\n2,3,4", "x,y,z,w", "0x1p3,inf,\"q\",NA",
		"nan(1),-0,\"a\nb\",7", "1;2;3;4", " 1 , 2 ,3,4", "2147483648,1e39,x,9223372036854775808"} {
		f.Add([]byte(s), true, byte(','), "NA", uint8(0))
	}
	f.Add([]byte("1;2;3;4"), false, byte(';'), "", uint8(0b1010))
	cols := []Column{Int32Column(-1), Float64Column(0.5), StringColumn("d"), Int64Column(7)}
	f.Fuzz(func(t *testing.T, rec []byte, quote bool, delim byte, na string, sel uint8) {
		opts := []CSVOption{UseQuoteDelim(quote), FieldDelim(string([]byte{delim})), NAValue(na)}
		columns := cols
		if sel&0xf != 0 {
			// A subset of up to four of the first eight columns.
			var idx []int
			columns = nil
			for i := range 8 {
				if sel&(1<<i) != 0 && len(idx) < 4 {
					idx = append(idx, i)
					columns = append(columns, cols[len(idx)-1])
				}
			}
			opts = append(opts, SelectCols(idx...))
		}
		d, err := NewCSV(columns, opts...)
		if err != nil {
			t.Fatal(err)
		}
		single, errSingle := d.Decode(rec)
		batch, errBatch := d.DecodeBatch([][]byte{rec, rec}, []string{"a", "b"})
		into := d.NewBatch(2)
		errInto := d.DecodeBatchInto(into, [][]byte{rec, rec}, nil)
		if (errSingle == nil) != (errBatch == nil) || (errSingle == nil) != (errInto == nil) {
			t.Fatalf("single %v, batch %v, into %v", errSingle, errBatch, errInto)
		}
		reused, err := NewCSV(columns, opts...)
		if err != nil {
			t.Fatal(err)
		}
		reused.ReuseStrings()
		again := reused.NewBatch(2)
		// The record reversed first: other bytes to be written over.
		back := slices.Clone(rec)
		slices.Reverse(back)
		reused.DecodeBatchInto(again, [][]byte{back, bytes.Repeat(back, 2)}, nil)
		if err := reused.DecodeBatchInto(again, [][]byte{rec, rec}, nil); (err == nil) != (errInto == nil) {
			t.Fatalf("into %v, reusing strings %v", errInto, err)
		}
		if errSingle != nil {
			if de, ok := errBatch.(*dataerr.Error); !ok || de.Key != "a" || de.Record != 0 {
				t.Fatalf("batch error %#v does not name record 0 by its key", errBatch)
			}
			return
		}
		for i := range columns {
			for r := range 2 {
				s := elemString(single[i], 0)
				if elemString(batch[i], r) != s || elemString(into[i], r) != s || elemString(again[i], r) != s {
					t.Fatalf("column %d differs: %v / %v / %v / %v", i, single[i], batch[i], into[i], again[i])
				}
			}
		}
	})
}

func elemString(t tensor.Tensor, i int) string {
	switch t.DType() {
	case tensor.Int32:
		return fmt.Sprint(t.Int32s()[i])
	case tensor.Int64:
		return fmt.Sprint(t.Int64s()[i])
	case tensor.Float64:
		return fmt.Sprint(math.Float64bits(t.Float64s()[i]))
	}
	return string(t.Strings()[i])
}

// FuzzRaw: decode_raw never panics, accepts exactly the lengths that are
// multiples of the type's size, and agrees element by element with
// encoding/binary in both byte orders and in both forms.
func FuzzRaw(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(tensor.Float32), true)
	f.Add([]byte{1, 2, 3}, uint8(tensor.Int16), false)
	f.Add([]byte{0, 1, 2, 0, 255, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0}, uint8(tensor.Complex128), false)
	f.Fuzz(func(t *testing.T, b []byte, dt uint8, le bool) {
		r, err := NewRaw(tensor.DType(dt), le)
		if err != nil {
			return
		}
		v, err := r.Decode(b)
		if (err == nil) != (len(b)%r.size == 0) {
			t.Fatalf("%d bytes of %v: %v", len(b), r.dtype, err)
		}
		if err != nil {
			return
		}
		m, err := r.DecodeBatch([][]byte{b, b}, nil)
		if err != nil || !m.Shape().Equal(tensor.Shape{2, len(b) / r.size}) {
			t.Fatalf("batch: %v %v", m.Shape(), err)
		}
		var order binary.ByteOrder = binary.BigEndian
		if le {
			order = binary.LittleEndian
		}
		got := bytesOrBools(v)
		row := bytesOrBools(m.Row(1))
		for i := range len(b) / r.size {
			e := b[i*r.size : (i+1)*r.size]
			want := make([]byte, r.size)
			switch {
			case r.dtype == tensor.Bool:
				if e[0] != 0 {
					want[0] = 1
				}
			case r.dtype == tensor.Complex64 || r.dtype == tensor.Complex128:
				h := r.size / 2
				putNative(want[:h], e[:h], order)
				putNative(want[h:], e[h:], order)
			default:
				putNative(want, e, order)
			}
			if !bytes.Equal(got[i*r.size:(i+1)*r.size], want) || !bytes.Equal(row[i*r.size:(i+1)*r.size], want) {
				t.Fatalf("%v element %d: % x, want % x", r.dtype, i, got[i*r.size:(i+1)*r.size], want)
			}
		}
	})
}

// putNative writes the value e holds in order into dst in the machine's
// (little-endian) order.
func putNative(dst, e []byte, order binary.ByteOrder) {
	switch len(e) {
	case 1:
		dst[0] = e[0]
	case 2:
		binary.LittleEndian.PutUint16(dst, order.Uint16(e))
	case 4:
		binary.LittleEndian.PutUint32(dst, order.Uint32(e))
	case 8:
		binary.LittleEndian.PutUint64(dst, order.Uint64(e))
	}
}

func bytesOrBools(t tensor.Tensor) []byte {
	switch t.DType() {
	case tensor.Bool:
		out := make([]byte, t.NumElements())
		for i, v := range t.Bools() {
			if v {
				out[i] = 1
			}
		}
		return out
	case tensor.Int8:
		out := make([]byte, t.NumElements())
		for i, v := range t.Int8s() {
			out[i] = byte(v)
		}
		return out
	case tensor.Uint8:
		return t.Uint8s()
	}
	return bytesOf(t)
}

// FuzzImage: decoding never panics, never allocates past the limit, and a
// decoded image has the requested channels. Seeds are every reference
// image and edge case; inputs are capped at 64 KiB.
func FuzzImage(f *testing.F) {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4)))
	f.Add(b.Bytes(), uint8(0))
	b.Reset()
	gif.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4)), nil)
	f.Add(b.Bytes(), uint8(3))
	f.Add([]byte("BM\x00\x00"), uint8(0))
	files, _ := filepath.Glob("testdata/images/*")
	jpegs, _ := filepath.Glob("testdata/jpeg/*.jpg")
	for i, name := range append(files, jpegs...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, uint8(i))
		}
	}
	// The edge cases asked of TensorFlow: PNGs and GIFs sluice mends,
	// PNG image data it cuts after the last row.
	var edge struct{ Cases []struct{ Data string } }
	if b, err := os.ReadFile("testdata/tf_decode_image_edge.json"); err == nil && json.Unmarshal(b, &edge) == nil {
		for i, c := range edge.Cases {
			if data, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
				f.Add(data, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, ch uint8) {
		if len(data) > 64<<10 {
			return
		}
		channels := []int{0, 1, 3, 4}[ch%4]
		d, _ := NewImage(channels, MaxBytes(1<<20))
		img, err := d.Decode(data, "fuzz")
		if err != nil {
			return
		}
		if img.Rank() != 3 || (channels != 0 && img.Shape()[2] != channels) || img.NumElements() > 1<<20 {
			t.Fatalf("shape %v for channels %d", img.Shape(), channels)
		}
		if channels == 0 {
			return
		}
		// DecodeFit, to a size made of the input, is Decode fitted.
		h, w := img.Shape()[0], img.Shape()[1]
		th, tw := max(h+int(ch>>2)%7-3, 1), max(w+int(ch>>5)-3, 1)
		want := make([]uint8, th*tw*channels)
		fit(want, img, th, tw)
		got := make([]uint8, len(want))
		if err := d.DecodeFit(got, data, "fuzz", th, tw); err != nil {
			t.Fatalf("DecodeFit %d×%d: %v, where Decode succeeded", th, tw, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("DecodeFit %d×%d of %d×%d differs from Decode's, fitted", th, tw, h, w)
		}
	})
}
