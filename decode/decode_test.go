package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tensor"
	"golang.org/x/image/bmp"
)

func TestCSVErrorNamesKey(t *testing.T) {
	d, _ := NewCSV([]Column{Int32Column(0), Int32Column(0)})
	_, err := d.DecodeBatch([][]byte{[]byte("1,2"), []byte("3,x")}, []string{"a.csv:1", "a.csv:2"})
	var ce *CSVError
	de, _ := errors.AsType[*dataerr.Error](err)
	if !errors.As(err, &ce) || !errors.Is(err, ErrCSV) || de == nil || de.Record != 1 || de.Key != "a.csv:2" || ce.Field != 1 ||
		err.Error() != "a.csv:2: Field 1 in record 1 is not a valid int32: x" {
		t.Fatalf("got %v", err)
	}
}

func TestCSVSingleRecord(t *testing.T) {
	d, _ := NewCSV([]Column{Float32Column(0), StringColumn("none"), Required(tensor.Int64)})
	cols, err := d.Decode([]byte(`2.5,,"7"`))
	if err != nil {
		t.Fatal(err)
	}
	if cols[0].Rank() != 0 || cols[0].Float32s()[0] != 2.5 || string(cols[1].Strings()[0]) != "none" || cols[2].Int64s()[0] != 7 {
		t.Fatalf("got %v", cols)
	}
}

// Strings of a batch do not alias the caller's record buffers.
func TestCSVStringsCopied(t *testing.T) {
	d, _ := NewCSV([]Column{StringColumn("")})
	rec := []byte("hello")
	cols, _ := d.DecodeBatch([][]byte{rec}, nil)
	rec[0] = 'j'
	if string(cols[0].Strings()[0]) != "hello" {
		t.Fatal("string aliases the input")
	}
}

func TestRawErrors(t *testing.T) {
	r, _ := NewRaw(tensor.Int32, true)
	if _, err := r.Decode([]byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "Input to DecodeRaw has length 3 that is not a multiple of 4, the size of int32") {
		t.Fatalf("got %v", err)
	}
	if _, err := NewRaw(tensor.String, true); err == nil {
		t.Fatal("String accepted")
	}
	v, _ := r.Decode([]byte{1, 0, 0, 0, 0, 0, 0, 2})
	if v.Int32s()[0] != 1 || v.Int32s()[1] != 2<<24 {
		t.Fatalf("got %v", v)
	}
}

func encode(t *testing.T, f string, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch f {
	case "png":
		err = png.Encode(&b, img)
	case "gif":
		err = gif.Encode(&b, img, nil)
	case "bmp":
		err = bmp.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImageChannels(t *testing.T) {
	rgba := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	gray := image.NewGray(image.Rect(0, 0, 3, 2))
	var pal color.Palette
	for v := range 256 {
		pal = append(pal, color.Gray{uint8(v)})
	}
	paletted := image.NewPaletted(image.Rect(0, 0, 3, 2), pal)
	for y := range 2 {
		for x := range 3 {
			rgba.SetNRGBA(x, y, color.NRGBA{uint8(10 * x), uint8(20 * y), 200, 128})
			gray.SetGray(x, y, color.Gray{uint8(40*x + y)})
			paletted.SetColorIndex(x, y, uint8(40*x+y))
		}
	}
	cases := []struct {
		name     string
		data     []byte
		channels int
		want     tensor.Shape
		pixel    []uint8 // at (x=2, y=1)
	}{
		{"png rgba native", encode(t, "png", rgba), 0, tensor.Shape{2, 3, 4}, []uint8{20, 20, 200, 128}},
		{"png rgba to rgb", encode(t, "png", rgba), 3, tensor.Shape{2, 3, 3}, []uint8{20, 20, 200}},
		{"png gray native", encode(t, "png", gray), 0, tensor.Shape{2, 3, 1}, []uint8{81}},
		{"png gray to rgb", encode(t, "png", gray), 3, tensor.Shape{2, 3, 3}, []uint8{81, 81, 81}},
		{"png gray to rgba", encode(t, "png", gray), 4, tensor.Shape{2, 3, 4}, []uint8{81, 81, 81, 255}},
		{"png rgb to gray", encode(t, "png", rgba), 1, tensor.Shape{2, 3, 1}, []uint8{uint8((9798*20 + 19235*20 + 3735*200) >> 15)}},
		{"bmp 8-bit is gray", encode(t, "bmp", gray), 0, tensor.Shape{2, 3, 1}, []uint8{81}},
		{"bmp 8-bit to rgba", encode(t, "bmp", gray), 4, tensor.Shape{2, 3, 4}, []uint8{81, 81, 81, 255}},
		{"bmp 32-bit keeps alpha", encode(t, "bmp", rgba), 0, tensor.Shape{2, 3, 4}, []uint8{20, 20, 200, 128}},
		{"gif", encode(t, "gif", paletted), 0, tensor.Shape{2, 3, 3}, []uint8{81, 81, 81}},
	}
	for _, c := range cases {
		d, _ := NewImage(c.channels)
		got, err := d.Decode(c.data, "k")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		ch := got.Shape()[2]
		px := got.Uint8s()[(1*3+2)*ch : (1*3+2)*ch+ch]
		if !got.Shape().Equal(c.want) || !bytes.Equal(px, c.pixel) {
			t.Errorf("%s: shape %v pixel %v, want %v %v", c.name, got.Shape(), px, c.want, c.pixel)
		}
	}
}

func TestImageBadInput(t *testing.T) {
	d, _ := NewImage(0)
	if _, err := d.Decode([]byte("not an image"), "rec:3"); !errors.Is(err, ErrImageFormat) || !strings.Contains(err.Error(), "rec:3") {
		t.Fatalf("got %v", err)
	}
	// A PNG header claiming 100000×100000 pixels is refused before any
	// pixel memory is allocated.
	big := encode(t, "png", image.NewGray(image.Rect(0, 0, 1, 1)))
	big[16], big[17], big[18], big[19] = 0, 1, 0x86, 0xa0
	big[20], big[21], big[22], big[23] = 0, 1, 0x86, 0xa0
	if _, err := d.Decode(big, "huge"); err == nil {
		t.Fatal("huge image accepted")
	}
	if _, err := NewImage(2); err == nil {
		t.Fatal("channels 2 accepted")
	}
	trunc := encode(t, "png", image.NewGray(image.Rect(0, 0, 8, 8)))
	if _, err := d.Decode(trunc[:len(trunc)-20], "t"); err == nil {
		t.Fatal("truncated PNG accepted")
	}
}

// DECODERS.md decode_csv: decoding batch after batch into the same
// tensors allocates nothing for numeric columns.
func TestCSVDecodeBatchIntoAllocationFree(t *testing.T) {
	d, _ := NewCSV([]Column{Int64Column(0), Float32Column(0), Float64Column(1), Int32Column(2)})
	recs := [][]byte{[]byte("1,2.5,3e2,4"), []byte(`"5",-1.25,,`), []byte("-7,inf,0x1p-2, 8 ")}
	dst := d.NewBatch(len(recs))
	allocs := testing.AllocsPerRun(100, func() {
		if err := d.DecodeBatchInto(dst, recs, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per batch", allocs)
	}
	if got := fmt.Sprint(dst[0].Int64s(), dst[1].Float32s(), dst[2].Float64s(), dst[3].Int32s()); got != "[1 5 -7] [2.5 -1.25 +Inf] [300 1 0.25] [4 2 8]" {
		t.Errorf("got %s", got)
	}
}

// A record of far more fields than columns is refused with its count, as
// decode_csv's message gives it, without a slice header kept per field:
// a megabyte of delimiters costs no more than the string column's room for
// the record's bytes (audit 62).
func TestCSVTooManyFieldsBounded(t *testing.T) {
	d, _ := NewCSV([]Column{Int64Column(0), StringColumn(""), Float32Column(0)})
	rec := bytes.Repeat([]byte{','}, 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := d.Decode(rec)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("Expect 3 fields but have %d", 1<<20+1)) {
		t.Fatalf("error %v, want decode_csv's count of %d fields", err, 1<<20+1)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*uint64(len(rec)) {
		t.Errorf("allocated %d bytes refusing a record of %d", got, len(rec))
	}
}

// With ReuseStrings, string columns are written over the last batch's
// bytes: nothing is allocated once the buffer fits, and each batch reads
// as a fresh decoder reads it, a default longer than its record
// included.
func TestCSVReuseStrings(t *testing.T) {
	cols := []Column{StringColumn("a default longer than the record"), Int64Column(0), RequiredString()}
	d, _ := NewCSV(cols)
	d.ReuseStrings()
	fresh, _ := NewCSV(cols)
	batches := [][][]byte{
		{[]byte(`x,1,"q""1"`), []byte(",2,y")},
		{[]byte(",3,z"), []byte(`"long, quoted",4,w`)},
		{[]byte("s,5,t"), []byte(",6,u")},
	}
	dst := d.NewBatch(2)
	for round := range 2 {
		for _, recs := range batches {
			if err := d.DecodeBatchInto(dst, recs, nil); err != nil {
				t.Fatal(err)
			}
			want, err := fresh.DecodeBatch(recs, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range dst {
				if !tensor.Equal(dst[i], want[i]) {
					t.Fatalf("round %d, %q: column %d is %v, want %v", round, recs, i, dst[i], want[i])
				}
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { d.DecodeBatchInto(dst, batches[1], nil) }); allocs != 0 {
		t.Errorf("%v allocations a batch with ReuseStrings", allocs)
	}
}

func TestCSVDecodeBatchIntoChecksTensors(t *testing.T) {
	d, _ := NewCSV([]Column{Int64Column(0), StringColumn("")})
	recs := [][]byte{[]byte("1,a"), []byte("2,b")}
	for _, dst := range [][]tensor.Tensor{
		{tensor.Zeros(tensor.Int64, tensor.Shape{2})},
		{tensor.Zeros(tensor.Int32, tensor.Shape{2}), tensor.Zeros(tensor.String, tensor.Shape{2})},
		{tensor.Zeros(tensor.Int64, tensor.Shape{3}), tensor.Zeros(tensor.String, tensor.Shape{2})},
	} {
		if err := d.DecodeBatchInto(dst, recs, nil); err == nil {
			t.Errorf("accepted %v", dst)
		}
	}
	if _, err := d.DecodeBatch(recs, []string{"only one"}); err == nil {
		t.Error("accepted 1 key for 2 records")
	}
}

// DECODERS.md decode_csv: options are checked when the decoder is built,
// with TensorFlow's messages.
func TestNewCSVValidates(t *testing.T) {
	one := []Column{Int32Column(0)}
	for _, c := range []struct {
		cols []Column
		opts []CSVOption
		want string
	}{
		{one, []CSVOption{FieldDelim("ab")}, "field_delim should be only 1 char"},
		{one, []CSVOption{FieldDelim("")}, "field_delim should be only 1 char"},
		{nil, nil, "at least one column"},
		{[]Column{Required(tensor.Bool)}, nil, "unsupported type"},
		{one, []CSVOption{SelectCols(1, 2)}, "Length of select_cols and record_defaults do not match."},
		{[]Column{Int32Column(0), Int32Column(0)}, []CSVOption{SelectCols(2, 2)}, "select_cols is not strictly increasing."},
		{one, []CSVOption{SelectCols(-1)}, "select_cols contains negative values."},
	} {
		if _, err := NewCSV(c.cols, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want %q", c.cols, c.opts, err, c.want)
		}
	}
}

// Strings taking the default do not share memory with the decoder or with
// each other.
func TestCSVStringDefaultsIndependent(t *testing.T) {
	d, _ := NewCSV([]Column{StringColumn("def")})
	cols, err := d.DecodeBatch([][]byte{[]byte(`""`), []byte(`""`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols[0].Strings()[0][0] = 'X'
	if got := string(cols[0].Strings()[1]); got != "def" {
		t.Fatalf("second default became %q", got)
	}
	again, _ := d.Decode([]byte(`""`))
	if got := string(again[0].Strings()[0]); got != "def" {
		t.Fatalf("decoder's default became %q", got)
	}
}

// DECODERS.md decode_raw: batch errors name the record by index and key.
func TestRawBatchErrors(t *testing.T) {
	r, _ := NewRaw(tensor.Int16, true)
	_, err := r.DecodeBatch([][]byte{{1, 2}, {3, 4}, {5}}, []string{"f:0", "f:1", "f:2"})
	var re *RawError
	de, _ := errors.AsType[*dataerr.Error](err)
	if !errors.As(err, &re) || !errors.Is(err, ErrRaw) || de == nil || de.Record != 2 || de.Key != "f:2" ||
		err.Error() != "f:2: DecodeRaw requires input strings to all be the same size, but element 2 has size 2 != 1" {
		t.Fatalf("got %v", err)
	}
	_, err = r.DecodeBatch([][]byte{{1, 2, 3}}, []string{"g:0"})
	if err == nil || err.Error() != "g:0: Input to DecodeRaw has length 3 that is not a multiple of 2, the size of int16" {
		t.Fatalf("got %v", err)
	}
	if err := r.DecodeBatchInto(tensor.Zeros(tensor.Int16, tensor.Shape{1, 2}), [][]byte{{1, 2}}, nil); err == nil {
		t.Fatal("wrong destination shape accepted")
	}
	m, err := r.DecodeBatch(nil, nil)
	if err != nil || !m.Shape().Equal(tensor.Shape{0, 0}) {
		t.Fatalf("empty batch: %v %v", m.Shape(), err)
	}
}

func TestRawDecodeBatchIntoAllocationFree(t *testing.T) {
	for _, le := range []bool{true, false} {
		r, _ := NewRaw(tensor.Float32, le)
		recs := [][]byte{{0, 0, 0x80, 0x3f}, {0x3f, 0x80, 0, 0}}
		dst := tensor.Zeros(tensor.Float32, tensor.Shape{2, 1})
		if allocs := testing.AllocsPerRun(100, func() { r.DecodeBatchInto(dst, recs, nil) }); allocs != 0 {
			t.Errorf("little=%v: %v allocations", le, allocs)
		}
		want := []float32{1, 4.6006e-41}
		if !le {
			want = []float32{4.6006e-41, 1}
		}
		if got := dst.Float32s(); got[0] != want[0] || math.Abs(float64(got[1]-want[1])) > 1e-44 {
			t.Errorf("little=%v: %v, want %v", le, got, want)
		}
	}
}

// A header claiming a huge image is refused from the header alone, for
// every format: the decoder allocates next to nothing for it.
func TestImageSizeLimitBeforeAllocation(t *testing.T) {
	small := image.NewGray(image.Rect(0, 0, 8, 8))
	pngHuge := encode(t, "png", small)
	binary.BigEndian.PutUint32(pngHuge[16:], 100000) // IHDR width, height
	binary.BigEndian.PutUint32(pngHuge[20:], 100000)
	binary.BigEndian.PutUint32(pngHuge[29:], crc32.ChecksumIEEE(pngHuge[12:29]))
	gifHuge := encode(t, "gif", small)
	binary.LittleEndian.PutUint16(gifHuge[6:], 0xffff) // logical screen
	binary.LittleEndian.PutUint16(gifHuge[8:], 0xffff)
	// And the first frame, whose size is the output's (giflib's, as
	// TensorFlow reads GIFs), whatever the screen's.
	desc := 13 + 3<<(gifHuge[10]&7+1)
	if gifHuge[desc] != 0x2c {
		t.Fatalf("no image descriptor at %d", desc)
	}
	binary.LittleEndian.PutUint16(gifHuge[desc+5:], 0xffff)
	binary.LittleEndian.PutUint16(gifHuge[desc+7:], 0xffff)
	var jb bytes.Buffer
	jpeg.Encode(&jb, small, nil)
	jpegHuge := jb.Bytes()
	sof := bytes.Index(jpegHuge, []byte{0xff, 0xc0})
	binary.BigEndian.PutUint16(jpegHuge[sof+5:], 65500) // height, width: libjpeg's largest
	binary.BigEndian.PutUint16(jpegHuge[sof+7:], 65500)
	for _, c := range []struct {
		name string
		data []byte
	}{{"png", pngHuge}, {"gif", gifHuge}, {"jpeg", jpegHuge}} {
		d, _ := NewImage(0)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := d.Decode(c.data, "huge."+c.name)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrImageTooLarge) || !strings.Contains(err.Error(), "huge."+c.name) {
			t.Errorf("%s: error %v", c.name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, n)
		}
	}
	// BMP: TensorFlow's own checks bound the size by the input's; the
	// limit still applies.
	bmpData, _ := os.ReadFile("testdata/images/rgb24.bmp")
	d, _ := NewImage(0, MaxBytes(44))
	if _, err := d.Decode(bmpData, "b"); !errors.Is(err, ErrImageTooLarge) {
		t.Errorf("bmp: %v", err)
	}
	if _, err := NewImage(0, MaxBytes(45)); err != nil {
		t.Fatal(err)
	}
}

func TestImageErrorType(t *testing.T) {
	d, _ := NewImage(4)
	data, _ := os.ReadFile("testdata/images/rgb.jpg")
	_, err := d.Decode(data, "photos:17")
	var ie *ImageError
	de, _ := errors.AsType[*dataerr.Error](err)
	if !errors.As(err, &ie) || de == nil || de.Key != "photos:17" || ie.Format != "jpeg" ||
		err.Error() != "photos:17: jpeg: JPEG does not support 4 channels" {
		t.Fatalf("got %v", err)
	}
	for _, c := range []struct{ data, format string }{
		{"\xff\xd8\xffjunk", "jpeg"}, {"\x89PNG\r\n\x1a\n", "png"}, {"GIF89a", "gif"}, {"BM", "bmp"}, {"RIFF", ""},
	} {
		if got := ImageFormat([]byte(c.data)); got != c.format {
			t.Errorf("ImageFormat(%q) = %q, want %q", c.data, got, c.format)
		}
	}
}

// A GIF whose first frame is off the canvas origin: TensorFlow returns
// the frame's size filled with zeros (a bug); sluice returns the frame.
func TestGIFOffsetFrame(t *testing.T) {
	data, _ := os.ReadFile("testdata/images/offset.gif")
	g, err := gif.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewImage(3)
	got, err := d.Decode(data, "")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Shape().Equal(tensor.Shape{2, 3, 3}) {
		t.Fatalf("shape %v", got.Shape())
	}
	b := g.Bounds()
	r, gr, bl, _ := g.At(b.Min.X+2, b.Min.Y+1).RGBA()
	if px := got.Uint8s()[(1*3+2)*3:][:3]; px[0] != uint8(r>>8) || px[1] != uint8(gr>>8) || px[2] != uint8(bl>>8) {
		t.Fatalf("pixel %v, want %d %d %d", px, r>>8, gr>>8, bl>>8)
	}
}

// A PNG chunk whose type is not four ASCII letters is refused, as libpng
// refuses it ("invalid chunk type"; TensorFlow: "Invalid PNG. Failed to
// initialize decoder."), where Go's decoder passes over it; an unknown
// ancillary chunk of letters is passed over by both (audit 37).
func TestPNGChunkType(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	withChunk := func(typ string) []byte {
		data := b.Bytes()
		iend := len(data) - 12
		c := binary.BigEndian.AppendUint32(nil, 1)
		c = append(c, typ...)
		c = append(c, 'x')
		c = binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
		return append(append(slices.Clip(data[:iend]), c...), data[iend:]...)
	}
	d, err := NewImage(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ string
		ok  bool
	}{{"abCd", true}, {"sR#B", false}, {"sRG\xc2", false}, {"s RB", false}} {
		_, err := d.Decode(withChunk(tc.typ), "k")
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "invalid chunk type") {
			t.Errorf("chunk %q: %v", tc.typ, err)
		}
	}
}
