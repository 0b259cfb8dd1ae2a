package decode

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TensorFlow's decode_image (expand_animations=False) of edge-case images
// (tools/tfref/imageedge.py): images of no pixels, which libjpeg, libpng
// and giflib refuse; PNG chunks libpng skips with a warning (an ancillary
// chunk whose CRC is wrong, a tRNS of the wrong length, in an image with
// alpha, longer than the palette or the bit depth allows, a second one, one
// before the PLTE, a PLTE in a grayscale image) and a palette whose tRNS
// is all opaque, which still makes 4 channels at channels 0; and GIFs whose
// first frame extends past a logical screen, or whose screen is 0 × 0,
// which giflib decodes at the frame's size; and PNG image data libpng
// reads otherwise than Go's image/png: zlib data after the last row, a
// wrong zlib checksum read with the last row's data (an error) or after it
// (decoded), too little data, a stream that does not end, IDAT chunks with
// a bad CRC.
func TestDecodeImageEdgesMatchTensorFlow(t *testing.T) {
	var ref struct {
		Cases []struct {
			Name, Data, Pixels string
			Error              *string
			Channels           int
			Shape              []int
		}
	}
	loadJSON(t, "tf_decode_image_edge.json", &ref)
	// Deliberate differences (CONFORMANCE.md).
	skip := map[string]string{
		// The first frame's pixels, not TensorFlow's: the frame shifted by
		// its offset within an output of its own size.
		"frame_offset_past_screen.gif": "pixels",
		// zlib data after the last row that does not end: libpng inflates
		// it to its end and fails, sluice inflates only the rows.
		"extra_zlib_unterminated.png": "all",
	}
	for _, c := range ref.Cases {
		data, _ := base64.StdEncoding.DecodeString(c.Data)
		name := fmt.Sprintf("%s channels=%d", c.Name, c.Channels)
		if skip[c.Name] == "all" {
			continue
		}
		d, _ := NewImage(c.Channels)
		got, err := d.Decode(data, c.Name)
		if c.Error != nil {
			var ie *ImageError
			switch {
			case err == nil:
				t.Errorf("%s: decoded to %v, TensorFlow says %q", name, got.Shape(), *c.Error)
			case !errors.As(err, &ie) || !strings.Contains(err.Error(), c.Name):
				t.Errorf("%s: error %q does not name the record", name, err)
			}
			if c.Channels == 0 || c.Channels == 3 {
				dst := make([]uint8, 2*2*3)
				d3, _ := NewImage(3)
				if err := d3.DecodeFit(dst, data, c.Name, 2, 2); err == nil {
					t.Errorf("%s: DecodeFit gave %v, TensorFlow says %q", name, dst, *c.Error)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fmt.Sprint([]int(got.Shape())) != fmt.Sprint(c.Shape) {
			t.Errorf("%s: shape %v, TensorFlow %v", name, got.Shape(), c.Shape)
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(c.Pixels)
		if strings.HasSuffix(c.Name, ".png") && data[24] < 8 && c.Channels == 4 {
			// Deliberate: TensorFlow's alpha of an opaque 1-, 2- or 4-bit
			// PNG is 1, 3 or 15, sluice's 255.
			for i := 3; i < len(want); i += 4 {
				want[i] = 255
			}
		}
		if skip[c.Name] == "" && string(got.Uint8s()) != string(want) {
			t.Errorf("%s: pixels %v, TensorFlow %v", name, got.Uint8s(), want)
		}
	}
}

// A PNG whose zlib stream holds data after the last row decodes as the
// same PNG without it, whatever the data: much of it, past flate's window,
// in IDAT chunks of its own, damaged or never ending (which libpng refuses,
// a deliberate difference). Rows of over 1 MiB are stored again in more
// than one chunk.
func TestDecodePNGDataAfterLastRow(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	deflate := func(b []byte, finish bool) []byte {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
		zw.Write(b)
		if finish {
			zw.Close()
		} else {
			zw.Flush()
		}
		return z.Bytes()
	}
	junk := make([]byte, 1000)
	r.Read(junk)
	for _, c := range []struct {
		w, h             uint32
		colorType, depth byte
		interlace        byte
		all              bool // every kind of extra data, or the first
	}{
		{60, 40, 6, 16, 0, true},
		{60, 40, 6, 16, 1, true},
		{33, 17, 3, 2, 1, true},
		{1100, 1000, 0, 8, 0, false},
	} {
		raw := make([]byte, pngRowBytes(int64(c.w), int64(c.h), int64(c.depth*pngSamples[c.colorType]), c.interlace == 1))
		r.Read(raw)
		for i := range raw {
			raw[i] %= 5 // every byte a valid filter type, wherever the rows start
		}
		extra := append(append(slices.Clone(raw), make([]byte, 64<<10)...), junk...)
		whole := deflate(raw, true)
		long := deflate(extra, true)
		idats := map[string][][]byte{"extra": {long}}
		if c.all {
			damaged := slices.Clone(long)
			damaged[len(damaged)-1] ^= 1
			unended := deflate(extra, false)
			idats["extra in chunks"] = [][]byte{long[:len(long)/2], long[len(long)/2 : len(long)-3], long[len(long)-3:]}
			idats["extra, bad adler"] = [][]byte{damaged}
			idats["extra, unended"] = [][]byte{unended}
			idats["extra, cut"] = [][]byte{unended[:len(whole)+100]}
			idats["garbage after the end"] = [][]byte{append(slices.Clone(whole), junk...)}
		}
		var plte []byte
		if c.colorType == 3 {
			plte = make([]byte, 12)
		}
		d, _ := NewImage(0)
		want, err := d.Decode(testPNG(c.w, c.h, c.colorType, c.depth, c.interlace, plte, whole), "")
		if err != nil {
			t.Fatal(err)
		}
		for name, idat := range idats {
			got, err := d.Decode(testPNG(c.w, c.h, c.colorType, c.depth, c.interlace, plte, idat...), name)
			if err != nil {
				t.Errorf("%+v, %s: %v", c, name, err)
			} else if !bytes.Equal(got.Uint8s(), want.Uint8s()) {
				t.Errorf("%+v, %s: pixels differ", c, name)
			}
		}
	}
}

// testPNG is a PNG of the IHDR's values, a PLTE chunk if plte is not nil,
// and the image data in IDAT chunks.
func testPNG(w, h uint32, colorType, depth, interlace byte, plte []byte, idats ...[]byte) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		start := len(b)
		b = append(append(b, typ...), data...)
		b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	chunk("IHDR", append(ihdr, depth, colorType, 0, 0, interlace))
	if plte != nil {
		chunk("PLTE", plte)
	}
	for _, d := range idats {
		chunk("IDAT", d)
	}
	chunk("IEND", nil)
	return b
}
