package cifar10

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/datasets"
	"github.com/sluiceml/sluice/tensor"
)

// refRecord builds record i as tools/tfref/datasets.py does.
func refRecord(l Layout, i int) []byte {
	rec := make([]byte, 0, l.RecordBytes())
	for k := range l.LabelBytes {
		rec = append(rec, byte((3*i+1+k*5)%l.Classes))
	}
	plane := l.Height * l.Width
	for j := range l.ImageBytes() {
		rec = append(rec, byte(j*7+(j/plane)*50+i*13))
	}
	return rec
}

func refFile(l Layout) []byte {
	var b []byte
	for i := range 3 {
		b = append(b, refRecord(l, i)...)
	}
	return append(b, bytes.Repeat([]byte{0xab}, l.RecordBytes()/2)...)
}

// TestAgainstTensorFlow compares Reader and Decode with TensorFlow's
// FixedLengthRecordReader and the CIFAR-10 tutorial's decoding (decode_raw,
// strided_slice, reshape to [depth, height, width], transpose [1, 2, 0],
// cast to float32) on the same files, from testdata/tfref.json. TensorFlow
// silently drops the truncated final record; Reader reports it.
func TestAgainstTensorFlow(t *testing.T) {
	data, err := os.ReadFile("testdata/tfref.json")
	if err != nil {
		t.Fatal(err)
	}
	type refRec struct {
		Key       string  `json:"key"`
		Label     int     `json:"label"`
		HWCSHA256 string  `json:"hwc_sha256"`
		FloatSum  float64 `json:"float_sum"`
		HWCFirst  []int   `json:"hwc_first"`
		HWC       []int   `json:"hwc"`
	}
	var ref map[string]json.RawMessage
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cifar10", "small"} {
		t.Run(name, func(t *testing.T) {
			var r struct {
				LabelBytes  int      `json:"label_bytes"`
				Height      int      `json:"height"`
				Width       int      `json:"width"`
				Depth       int      `json:"depth"`
				Classes     int      `json:"classes"`
				RecordBytes int      `json:"record_bytes"`
				FileBytes   int      `json:"file_bytes"`
				Records     []refRec `json:"records"`
			}
			if err := json.Unmarshal(ref[name], &r); err != nil {
				t.Fatal(err)
			}
			l := Layout{LabelBytes: r.LabelBytes, Height: r.Height, Width: r.Width, Depth: r.Depth, Classes: r.Classes}
			if name == "cifar10" && (l != CIFAR10 || r.RecordBytes != RecordBytes) {
				t.Fatalf("layout %+v, record_bytes %d", l, r.RecordBytes)
			}
			file := refFile(l)
			if len(file) != r.FileBytes || l.RecordBytes() != r.RecordBytes {
				t.Fatalf("file of %d bytes, TensorFlow read %d", len(file), r.FileBytes)
			}
			rd, err := NewReader(bytes.NewReader(file), l)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i, rec := range rd.All() {
				if int(i) >= len(r.Records) {
					t.Fatalf("record %d: TensorFlow read only %d", i, len(r.Records))
				}
				want := r.Records[i]
				if key := name + ".bin:" + itoa(int(i)); key != want.Key {
					t.Errorf("key %s, TensorFlow %s", key, want.Key)
				}
				raw := append(append([]byte{}, rec.Labels...), rec.Image...)
				label, img, err := l.Decode(raw)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(img.Uint8s())
				if label != want.Label || rec.Label() != want.Label || hex.EncodeToString(sum[:]) != want.HWCSHA256 {
					t.Errorf("record %d: label %d, image sha256 %x; TensorFlow %d, %s", i, label, sum, want.Label, want.HWCSHA256)
				}
				if !img.Shape().Equal(tensor.Shape{l.Height, l.Width, l.Depth}) {
					t.Errorf("shape %v", img.Shape())
				}
				for k, v := range want.HWC {
					if int(img.Uint8s()[k]) != v {
						t.Fatalf("record %d: hwc[%d] = %d, TensorFlow %d", i, k, img.Uint8s()[k], v)
					}
				}
				_, f, err := l.DecodeFloat32(raw, 1)
				if err != nil {
					t.Fatal(err)
				}
				var fs float64
				for k, v := range f.Float32s() {
					fs += float64(v)
					if k < len(want.HWCFirst) && int(v) != want.HWCFirst[k] {
						t.Errorf("record %d: float hwc[%d] = %v, TensorFlow %d", i, k, v, want.HWCFirst[k])
					}
				}
				if fs != want.FloatSum {
					t.Errorf("record %d: float sum %v, TensorFlow %v", i, fs, want.FloatSum)
				}
				n++
			}
			if n != len(r.Records) {
				t.Fatalf("read %d records, TensorFlow %d", n, len(r.Records))
			}
			// The deliberate difference: the truncated tail is an error.
			err = rd.Err()
			var de *dataerr.Error
			if !errors.As(err, &de) || !errors.Is(err, io.ErrUnexpectedEOF) || de.Record != 3 || de.Offset != 3*int64(l.RecordBytes()) {
				t.Fatalf("after the last record: %v", err)
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestRoundTrip(t *testing.T) {
	for _, l := range []Layout{CIFAR10, CIFAR100, {LabelBytes: 1, Height: 28, Width: 28, Depth: 1, Classes: 10}, {Height: 2, Width: 3, Depth: 4}} {
		var b bytes.Buffer
		w, err := NewWriter(&b, l)
		if err != nil {
			t.Fatal(err)
		}
		var images [][]byte
		for i := range 5 {
			labels := make([]byte, l.LabelBytes)
			for k := range labels {
				labels[k] = byte(i + k)
			}
			hwc := make([]byte, l.ImageBytes())
			for k := range hwc {
				hwc[k] = byte(k*13 + i)
			}
			images = append(images, hwc)
			if err := w.Write(labels, hwc); err != nil {
				t.Fatal(err)
			}
		}
		if b.Len() != 5*l.RecordBytes() {
			t.Fatalf("%+v: wrote %d bytes, want %d", l, b.Len(), 5*l.RecordBytes())
		}
		rd, _ := NewReader(&b, l)
		n := 0
		for i, rec := range rd.All() {
			wantLabel := int(i) + l.LabelBytes - 1
			if l.LabelBytes == 0 {
				wantLabel = -1
			}
			if rec.Label() != wantLabel {
				t.Errorf("%+v: record %d label %d, want %d", l, i, rec.Label(), wantLabel)
			}
			hwc := make([]byte, l.ImageBytes())
			ToHWC(hwc, rec.Image, l.Height, l.Width, l.Depth, 1)
			if !bytes.Equal(hwc, images[i]) {
				t.Errorf("%+v: record %d image differs", l, i)
			}
			n++
		}
		if n != 5 || rd.Err() != nil {
			t.Fatalf("%+v: read %d records, err %v", l, n, rd.Err())
		}
	}
}

// TestChannelMajor pins the stored order: red plane, green plane, blue.
func TestChannelMajor(t *testing.T) {
	l := Layout{LabelBytes: 1, Height: 1, Width: 2, Depth: 3}
	rec, err := l.AppendRecord(nil, []byte{9}, []byte{1, 2, 3, 4, 5, 6}) // two RGB pixels
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{9, 1, 4, 2, 5, 3, 6}; !bytes.Equal(rec, want) {
		t.Fatalf("record %v, want %v", rec, want)
	}
	_, f, _ := l.DecodeFloat32(rec, 0.5)
	if got := f.Float32s(); got[0] != 0.5 || got[5] != 3 {
		t.Fatalf("scaled %v", got)
	}
}

func TestBadRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Layout
		rec  []byte
		is   error
	}{
		{"short", CIFAR10, make([]byte, RecordBytes-1), datasets.ErrSize},
		{"long", CIFAR10, make([]byte, RecordBytes+1), datasets.ErrSize},
		{"CIFAR-100 record as CIFAR-10", CIFAR10, make([]byte, CIFAR100RecordBytes), datasets.ErrSize},
		{"label 10", CIFAR10, append([]byte{10}, make([]byte, ImageBytes)...), datasets.ErrLabel},
		{"fine label 100", CIFAR100, append([]byte{3, 100}, make([]byte, ImageBytes)...), datasets.ErrLabel},
		{"coarse label 20", CIFAR100, append([]byte{20, 3}, make([]byte, ImageBytes)...), datasets.ErrLabel},
		{"coarse label 255", CIFAR100, append([]byte{255, 99}, make([]byte, ImageBytes)...), datasets.ErrLabel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.l.Parse(tc.rec); !errors.Is(err, tc.is) {
				t.Errorf("Parse: %v, want %v", err, tc.is)
			}
			if _, _, err := tc.l.Decode(tc.rec); !errors.Is(err, tc.is) {
				t.Errorf("Decode: %v, want %v", err, tc.is)
			}
		})
	}
	if _, err := CIFAR10.AppendRecord(nil, []byte{11}, make([]byte, ImageBytes)); !errors.Is(err, datasets.ErrLabel) {
		t.Errorf("AppendRecord label 11: %v", err)
	}
	if _, err := CIFAR100.AppendRecord(nil, []byte{20, 1}, make([]byte, ImageBytes)); !errors.Is(err, datasets.ErrLabel) {
		t.Errorf("AppendRecord coarse label 20: %v", err)
	}
	if _, err := CIFAR10.AppendRecord(nil, []byte{1}, make([]byte, 5)); !errors.Is(err, datasets.ErrSize) {
		t.Errorf("AppendRecord 5 bytes: %v", err)
	}
	for _, l := range []Layout{{Height: 0, Width: 1, Depth: 1}, {LabelBytes: -1, Height: 1, Width: 1, Depth: 1}, {Height: 1 << 20, Width: 1 << 20, Depth: 1}, {Height: 1, Width: 1, Depth: 1, Classes: 3}, {LabelBytes: 1, Height: 1, Width: 1, Depth: 1, CoarseClasses: 3}} {
		if _, err := NewReader(nil, l); err == nil {
			t.Errorf("NewReader accepted layout %+v", l)
		}
	}
}

// TestReaderErrorNamesFileRecordAndOffset: a bad label in record 2 of a
// file is reported with the file, the record index and its offset.
func TestReaderErrorNamesFileRecordAndOffset(t *testing.T) {
	var b bytes.Buffer
	w, _ := NewWriter(&b, CIFAR10)
	for range 3 {
		w.Write([]byte{4}, make([]byte, ImageBytes))
	}
	data := b.Bytes()
	data[2*RecordBytes] = 200
	path := filepath.Join(t.TempDir(), "data_batch_1.bin")
	os.WriteFile(path, data, 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, _ := NewReader(f, CIFAR10)
	n := 0
	for range rd.All() {
		n++
	}
	want := path + ": record 2 at offset 6146: cifar10: label out of range: label 200, want 0 to 9"
	if n != 2 || rd.Err() == nil || rd.Err().Error() != want {
		t.Fatalf("read %d records, error %q, want %q", n, rd.Err(), want)
	}
	if _, err := rd.Next(); err != rd.Err() {
		t.Fatalf("Next after an error: %v", err)
	}
	if !strings.Contains(rd.Err().Error(), "data_batch_1.bin") {
		t.Fatal("no file name")
	}
}

func TestEmptyFile(t *testing.T) {
	rd, _ := NewReader(bytes.NewReader(nil), CIFAR10)
	if _, err := rd.Next(); err != io.EOF || rd.Err() != nil {
		t.Fatalf("empty file: %v, Err %v", err, rd.Err())
	}
}

func BenchmarkReaderDecode(b *testing.B) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, CIFAR10)
	for i := range 1000 {
		w.Write([]byte{byte(i % 10)}, make([]byte, ImageBytes))
	}
	data := buf.Bytes()
	dst := make([]float32, ImageBytes)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, _ := NewReader(bytes.NewReader(data), CIFAR10)
		for _, rec := range rd.All() {
			ToHWC(dst, rec.Image, Height, Width, Depth, 1.0/255)
		}
		if rd.Err() != nil {
			b.Fatal(rd.Err())
		}
	}
}
