package cifar10

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/datasets"
)

// FuzzReader reads arbitrary bytes as records of a small layout and of
// CIFAR-10's. It must not panic; every record it accepts must survive a
// decode and re-encode unchanged; every failure must be a *dataerr.Error
// for a record that really is bad (short tail or bad label).
func FuzzReader(f *testing.F) {
	small := Layout{LabelBytes: 2, Height: 2, Width: 3, Depth: 2, Classes: 5}
	f.Add([]byte{}, false)
	f.Add(bytes.Repeat([]byte{1}, 2*small.RecordBytes()), false)
	f.Add(append(bytes.Repeat([]byte{1}, small.RecordBytes()), 9, 9), false)
	f.Add(append([]byte{3}, make([]byte, ImageBytes)...), true)
	f.Add(append([]byte{12}, make([]byte, ImageBytes+4)...), true)
	f.Fuzz(func(t *testing.T, data []byte, cifar bool) {
		l := small
		if cifar {
			l = CIFAR10
		}
		rd, err := NewReader(bytes.NewReader(data), l)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, rec := range rd.All() {
			if int(i) != n {
				t.Fatalf("index %d, want %d", i, n)
			}
			hwc := make([]byte, l.ImageBytes())
			ToHWC(hwc, rec.Image, l.Height, l.Width, l.Depth, 1)
			again, err := l.AppendRecord(nil, rec.Labels, hwc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data[n*l.RecordBytes():(n+1)*l.RecordBytes()]) {
				t.Fatalf("record %d does not round-trip", n)
			}
			n++
		}
		err = rd.Err()
		whole := len(data) / l.RecordBytes()
		switch {
		case err == nil:
			if len(data)%l.RecordBytes() != 0 || n != whole {
				t.Fatalf("clean end after %d records of a %d-byte file", n, len(data))
			}
		case errors.Is(err, io.ErrUnexpectedEOF):
			if n != whole || len(data)%l.RecordBytes() == 0 {
				t.Fatalf("truncation reported after %d records of a %d-byte file", n, len(data))
			}
		case errors.Is(err, datasets.ErrLabel):
			if int(data[n*l.RecordBytes()+l.LabelBytes-1]) < l.Classes {
				t.Fatalf("label error for a good label: %v", err)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
		var de *dataerr.Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("error %v is not a *dataerr.Error", err)
		}
	})
}
