package recordio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/tfrecord"
)

// Seek in a compressed file to the record after one SkipCorrupt skips
// reads that record in the step that skips the bad one: it is held, so
// that Position names it and Read returns it next, not the one after.
func TestSeekPastSkippedRecord(t *testing.T) {
	var raw bytes.Buffer
	w := tfrecord.NewWriter(&raw, tfrecord.None)
	recs := [][]byte{[]byte("r0"), []byte("r1"), []byte("r2"), []byte("r3")}
	var offs []int64
	for _, r := range recs {
		offs = append(offs, int64(raw.Len()))
		w.Write(r)
		w.Flush()
	}
	w.Close()
	data := raw.Bytes()
	data[offs[1]+12] ^= 0xff // r1's data CRC fails
	var gz bytes.Buffer
	cw, err := tfrecord.NewCompressor(tfrecord.Gzip, &gz)
	if err != nil {
		t.Fatal(err)
	}
	cw.Write(data)
	cw.Close()
	name := filepath.Join(t.TempDir(), "a.tfrecord.gz")
	if err := os.WriteFile(name, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f := recordhook.NewTFRecordFormat([]tfrecord.Option{tfrecord.SkipCorrupt()})
	ctx := context.Background()
	pos, _ := f.PositionOf(offs[2])
	if err := f.Seek(ctx, name, pos); err != nil {
		t.Fatal(err)
	}
	defer f.OnWorkFinished()
	if got, _ := f.Position(); !bytes.Equal(got, pos) {
		t.Errorf("Position after Seek = %x, want %x (r2's)", got, pos)
	}
	for _, want := range recs[2:] {
		_, got, produced, _, err := f.Read(ctx)
		if err != nil || !produced || !bytes.Equal(got, want) || f.Offset() != offs[2+int(want[1]-'2')] {
			t.Fatalf("Read = %q, %v, %v at %d; want %q", got, produced, err, f.Offset(), want)
		}
	}
}

// A state saved after a read failed on a damaged record restores at that
// record, which fails again, as TensorFlow's reader (whose offset moves
// only past a good record) does: it restored past a record whose data
// CRC failed, which the restored reader then skipped without a word or a
// count (audit 30). A damaged length or a cut never moved the position.
func TestRestoreAfterDamagedRecord(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(data []byte, second int64) []byte
	}{
		{"data CRC", func(d []byte, at int64) []byte { d[at+12] ^= 1; return d }},
		{"length CRC", func(d []byte, at int64) []byte { d[at] ^= 1; return d }},
		{"cut", func(d []byte, at int64) []byte { return d[:at+14] }},
	} {
		for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip} {
			t.Run(tc.name+"/"+c.String(), func(t *testing.T) {
				var raw bytes.Buffer
				w := tfrecord.NewWriter(&raw, tfrecord.None)
				w.Write([]byte("first"))
				w.Flush()
				second := int64(raw.Len())
				w.Write([]byte("second"))
				w.Write([]byte("third"))
				w.Close()
				data := tc.damage(raw.Bytes(), second)
				if c != tfrecord.None {
					var z bytes.Buffer
					cw, err := tfrecord.NewCompressor(c, &z)
					if err != nil {
						t.Fatal(err)
					}
					cw.Write(data)
					cw.Close()
					data = z.Bytes()
				}
				name := filepath.Join(t.TempDir(), "a.tfrecord")
				if err := os.WriteFile(name, data, 0o644); err != nil {
					t.Fatal(err)
				}
				r := NewTFRecordReader(workQueue(t, name), c)
				if _, v, err := r.Read(ctx); err != nil || string(v) != "first" {
					t.Fatalf("first read: %q, %v", v, err)
				}
				_, _, want := r.Read(ctx)
				if !errors.Is(want, tfrecord.ErrDataLoss) {
					t.Fatalf("second read: %v, want a data loss", want)
				}
				st, err := r.SerializeState()
				if err != nil {
					t.Fatal(err)
				}
				r2 := NewTFRecordReader(workQueue(t, name), c)
				if err := r2.RestoreState(ctx, st); err != nil {
					t.Fatalf("restore: %v", err)
				}
				k, v, err := r2.Read(ctx)
				if err == nil || err.Error() != want.Error() {
					t.Errorf("restored reader: %q %q, %v; want the error again: %v", k, v, err, want)
				}
			})
		}
	}
}
