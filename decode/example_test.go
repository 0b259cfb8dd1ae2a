package decode_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/tensor"
)

func ExampleCSV_Decode() {
	d, err := decode.NewCSV([]decode.Column{
		decode.RequiredInt64(),
		decode.Float32Column(0.5),
		decode.StringColumn("none"),
	})
	if err != nil {
		panic(err)
	}
	cols, err := d.Decode([]byte(`7,,"a, quoted ""field"""`))
	if err != nil {
		panic(err)
	}
	fmt.Println(cols[0].Shape(), cols[0].Int64s()[0], cols[1].Float32s()[0], string(cols[2].Strings()[0]))

	_, err = d.Decode([]byte(",1.5,x"))
	fmt.Println(err)
	// Output:
	// [] 7 0.5 a, quoted "field"
	// Field 0 is required but missing in record 0!
}

func ExampleCSV_DecodeBatch() {
	d, err := decode.NewCSV([]decode.Column{
		decode.Int32Column(0),
		decode.Float64Column(-1),
	}, decode.FieldDelim("|"), decode.NAValue("NA"))
	if err != nil {
		panic(err)
	}
	lines := [][]byte{[]byte("1|2.5"), []byte("2|NA"), []byte(" 3 |1e3")}
	cols, err := d.DecodeBatch(lines, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(cols[0].Int32s(), cols[1].Float64s())

	// Keys name the bad record in errors.
	_, err = d.DecodeBatch([][]byte{[]byte("1|2"), []byte("x|3")}, []string{"data.csv:1", "data.csv:2"})
	// The error says where (a *dataerr.Error: the record's index in the
	// batch and its key) and what (a *decode.CSVError: the field).
	var where *dataerr.Error
	var what *decode.CSVError
	if errors.As(err, &where) && errors.As(err, &what) {
		fmt.Printf("record %d, key %q, field %d\n", where.Record, where.Key, what.Field)
	}
	fmt.Println(err)
	// Output:
	// [1 2 3] [2.5 -1 1000]
	// record 1, key "data.csv:2", field 0
	// data.csv:2: Field 0 in record 1 is not a valid int32: x
}

func ExampleCSV_DecodeBatchInto() {
	d, _ := decode.NewCSV([]decode.Column{decode.Int64Column(0), decode.Float32Column(0)})
	batch := d.NewBatch(2) // reused for every batch: no allocation per batch
	for _, lines := range [][][]byte{
		{[]byte("1,0.5"), []byte("2,1.5")},
		{[]byte("3,2.5"), []byte("4,")},
	} {
		if err := d.DecodeBatchInto(batch, lines, nil); err != nil {
			panic(err)
		}
		fmt.Println(batch[0].Int64s(), batch[1].Float32s())
	}
	// Output:
	// [1 2] [0.5 1.5]
	// [3 4] [2.5 0]
}

func ExampleRaw() {
	r, _ := decode.NewRaw(tensor.Uint16, false) // big-endian
	v, _ := r.Decode([]byte{0x01, 0x02, 0xff, 0x00})
	fmt.Println(v.Shape(), v.Uint16s())

	f, _ := decode.NewRaw(tensor.Float32, true)
	m, _ := f.DecodeBatch([][]byte{{0, 0, 0x80, 0x3f}, {0, 0, 0, 0xc0}}, nil)
	fmt.Println(m.Shape(), m.Float32s())

	_, err := f.Decode([]byte{1, 2, 3})
	fmt.Println(err)
	// Output:
	// [2] [258 65280]
	// [2,1] [1 -2]
	// Input to DecodeRaw has length 3 that is not a multiple of 4, the size of float
}

func ExampleImage() {
	// A 2×1 gray PNG.
	g := image.NewGray(image.Rect(0, 0, 2, 1))
	g.SetGray(0, 0, color.Gray{10})
	g.SetGray(1, 0, color.Gray{200})
	var buf bytes.Buffer
	png.Encode(&buf, g)

	asRGB, _ := decode.NewImage(3)
	t, err := asRGB.Decode(buf.Bytes(), "img-0001.png")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Shape(), t.Uint8s())

	_, err = asRGB.Decode([]byte("not an image"), "img-0002.png")
	fmt.Println(err)
	// Output:
	// [1,2,3] [10 10 10 200 200 200]
	// img-0002.png: Unknown image file format. One of JPEG, PNG, GIF, BMP required.
}

func ExampleImage_DecodeFit() {
	// A 4×1 gray PNG, fitted to 2×3 as tf.image.resize_with_crop_or_pad
	// fits it: cropped to its middle two columns, padded with a row of
	// zeros above and below.
	g := image.NewGray(image.Rect(0, 0, 4, 1))
	for x, v := range []uint8{1, 2, 3, 4} {
		g.SetGray(x, 0, color.Gray{v})
	}
	var buf bytes.Buffer
	png.Encode(&buf, g)

	gray, _ := decode.NewImage(1)
	px := make([]uint8, 3*2*1)
	if err := gray.DecodeFit(px, buf.Bytes(), "img-0003.png", 3, 2); err != nil {
		panic(err)
	}
	fmt.Println(px)
	// Output:
	// [0 0 2 3 0 0]
}
