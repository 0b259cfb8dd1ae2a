package mnist

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// FuzzReadImages feeds arbitrary bytes to both image readers. They must
// not panic, must agree, must return *dataerr.Error on failure, and what
// they accept must be exactly what WriteImages writes back.
func FuzzReadImages(f *testing.F) {
	f.Add(header(0x803, 1, 2, 2))
	f.Add(append(header(0x803, 1, 2, 2), 1, 2, 3, 4))
	f.Add(append(header(0x803, 2, 1, 1), 1, 2, 3))
	f.Add(append(header(0x803, 1<<31, 1, 1), 1))
	f.Add(header(0x801, 3, 1, 2, 3, 4))
	f.Add(gzipped(f, append(header(0x803, 1, 1, 3), 7, 8, 9)))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Add(append(gzipped(f, append(header(0x803, 1, 1, 3), 7, 8, 9)), 'x', 'y'))
	f.Add(append(gzipped(f, header(0x803, 1, 1, 3)), gzipped(f, []byte{7, 8, 9})...))
	f.Add(header(0x803, 0, 1<<20, 1<<21))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadImages(bytes.NewReader(data))
		ir, rerr := NewImageReader(bytes.NewReader(data))
		var streamed []byte
		if rerr == nil {
			for _, img := range ir.All() {
				streamed = append(streamed, img...)
			}
			rerr = ir.Err()
		}
		if (err == nil) != (rerr == nil) {
			t.Fatalf("ReadImages: %v; ImageReader: %v", err, rerr)
		}
		if err != nil {
			var de *dataerr.Error
			if !errors.As(err, &de) && !errors.As(rerr, &de) {
				t.Fatalf("error %v is not a *dataerr.Error", err)
			}
			return
		}
		if !bytes.Equal(streamed, m.Pixels) {
			t.Fatal("ImageReader and ReadImages disagree")
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return // the compressed form is not canonical
		}
		var b bytes.Buffer
		if err := WriteImages(&b, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), data) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}

// FuzzReadLabels does the same for label files.
func FuzzReadLabels(f *testing.F) {
	f.Add(append(header(0x801, 2), 3, 4))
	f.Add(append(header(0x801, 3), 3, 4))
	f.Add(header(0x803, 0))
	f.Add(append(gzipped(f, append(header(0x801, 2), 3, 4)), 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		ls, err := ReadLabels(bytes.NewReader(data))
		// The streaming reader reads the same labels, or fails as well.
		var streamed []byte
		lr, serr := NewLabelReader(bytes.NewReader(data))
		for serr == nil {
			var l byte
			if l, serr = lr.Next(); serr == nil {
				streamed = append(streamed, l)
			}
		}
		if serr == io.EOF {
			serr = nil
		}
		if (err == nil) != (serr == nil) || err == nil && !bytes.Equal(ls, streamed) {
			t.Fatalf("ReadLabels: %d labels, %v; LabelReader: %d labels, %v", len(ls), err, len(streamed), serr)
		}
		if serr != nil {
			if _, ok := errors.AsType[*dataerr.Error](serr); !ok {
				t.Fatalf("LabelReader's error %v is not a *dataerr.Error", serr)
			}
		}
		if err != nil {
			var de *dataerr.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *dataerr.Error", err)
			}
			return
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		var b bytes.Buffer
		WriteLabels(&b, ls)
		if !bytes.Equal(b.Bytes(), data) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}
