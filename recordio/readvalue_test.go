package recordio

import (
	"errors"
	"io"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// TestReadValue: ReadValue returns Read's values, in turn with Read on one
// reader, and the keys of the Reads in between are whole; the built-in
// formats then make no key, so reading a TFRecord allocates nothing per
// record.
func TestReadValue(t *testing.T) {
	dir := t.TempDir()
	tf := writeTFRecords(t, dir, tfrecord.None, 2, 7)
	text := writeFile(t, dir, "lines.txt", []byte("a\nbb\nccc\ndddd\n"))
	fixed := writeFile(t, dir, "fixed.bin", []byte("abcdefghijkl"))
	tests := []struct {
		name  string
		units []string
		make  func(q *queue.FIFO) (*Reader, error)
	}{
		{"TFRecord", tf, func(q *queue.FIFO) (*Reader, error) { return NewTFRecordReader(q, tfrecord.None), nil }},
		{"TextLine", []string{text, text}, func(q *queue.FIFO) (*Reader, error) { return NewTextLineReader(q) }},
		{"FixedLength", []string{fixed, fixed}, func(q *queue.FIFO) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }},
		{"WholeFile", []string{text, fixed, text}, func(q *queue.FIFO) (*Reader, error) { return NewWholeFileReader(q), nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := workQueue(t, tt.units...)
			q.Close(bg)
			r, err := tt.make(q)
			if err != nil {
				t.Fatal(err)
			}
			q2 := workQueue(t, tt.units...)
			q2.Close(bg)
			ref, _ := tt.make(q2)
			want := readAll(t, ref)
			for i, w := range want {
				if i%2 == 1 {
					k, v, err := r.Read(bg)
					if err != nil || k != w.key || string(v) != w.value {
						t.Fatalf("Read %d after ReadValue: %q, %q, %v; want %q, %q", i, k, v, err, w.key, w.value)
					}
					continue
				}
				v, err := r.ReadValue(bg)
				if err != nil || string(v) != w.value {
					t.Fatalf("ReadValue %d: %q, %v; want %q", i, v, err, w.value)
				}
			}
			if _, err := r.ReadValue(bg); !errors.Is(err, io.EOF) {
				t.Fatalf("ReadValue at the end: %v, want io.EOF", err)
			}
		})
	}
}

// TestReadValueAllocs: a TFRecord reader's ReadValue allocates nothing
// per record.
func TestReadValueAllocs(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.None, 1, 1000)
	q := workQueue(t, names...)
	q.Close(bg)
	r := NewTFRecordReader(q, tfrecord.None)
	if _, err := r.ReadValue(bg); err != nil { // opens the file
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := r.ReadValue(bg); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ReadValue: %v allocations a record, want 0", allocs)
	}
}
