package recordio

import (
	"bytes"
	"context"
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
