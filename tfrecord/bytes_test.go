package tfrecord_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/sluiceml/sluice/tfrecord"
)

// trace reads r to its end and describes everything a caller sees: each
// record with its offsets, the error with its text, and the counts.
func trace(r *tfrecord.Reader) string {
	var b strings.Builder
	for {
		rec, err := r.Next()
		if err != nil {
			fmt.Fprintf(&b, "err %v; next %d; %+v", err, r.NextOffset(), r.Stats())
			return b.String()
		}
		fmt.Fprintf(&b, "%d-%d %x\n", r.Offset(), r.NextOffset(), rec)
	}
}

// byteStreams are streams of every framing case: good records of every
// size class, each kind of damage, and each compression.
func byteStreams(t testing.TB) map[string][]byte {
	recs := [][]byte{[]byte("first record"), []byte("second record"), []byte("third")}
	good := frame(recs...)
	r1 := 16 + len(recs[0])
	r2 := r1 + 16 + len(recs[1])
	m := map[string][]byte{
		"empty":                 nil,
		"good":                  good,
		"sizes":                 frame(testRecords()...),
		"data CRC":              corrupt(good, r1+12+3),
		"data CRC field":        corrupt(good, r2-1),
		"length CRC":            corrupt(good, r1+9),
		"length field":          corrupt(good, r1+1),
		"truncated header":      good[:r1+5],
		"partial header at end": append(bytes.Clone(good), 1, 2, 3),
		"truncated payload":     good[:r1+12+4],
		"truncated footer":      good[:r2-1],
		"huge length":           append(frameHeader(1<<40), "abc"...),
		"long claim":            append(frameHeader(70_000), make([]byte, 70_003)...),
		"garbage":               append(append(bytes.Clone(good[:r1]), "some garbage in the middle"...), good[r1:]...),
		"both kinds":            corrupt(corrupt(frame(testRecords()...), 12+3), 65536+40),
	}
	for _, c := range compressions[1:] {
		m[c.String()] = write(t, c, testRecords()...)
		w := write(t, c, recs...)
		m[c.String()+" truncated"] = w[:len(w)-3]
	}
	return m
}

// ResetBytes reads every stream exactly as a Reader of a bytes.Reader
// does, under every policy: the same records at the same offsets, the same
// error and the same counts.
func TestResetBytesSameAsReader(t *testing.T) {
	policies := map[string][]tfrecord.Option{
		"fail":         nil,
		"skip":         {tfrecord.SkipCorrupt()},
		"skip 1":       {tfrecord.SkipCorruptUpTo(1)},
		"no data CRC":  {tfrecord.SkipDataCRC()},
		"small buffer": {tfrecord.SkipCorrupt(), tfrecord.BufferSize(64)},
		"limit":        {tfrecord.MaxRecordSize(1000)},
		"no limit":     {tfrecord.MaxRecordSize(1 << 62)},
		"start offset": {tfrecord.StartOffset(100)},
	}
	view := tfrecord.NewReader(nil)
	for name, data := range byteStreams(t) {
		c := tfrecord.DetectCompression(data)
		for pname, p := range policies {
			opts := append([]tfrecord.Option{c, tfrecord.Name("x.tfrecord")}, p...)
			want := trace(tfrecord.NewReader(bytes.NewReader(data), opts...))
			view.ResetBytes(data, opts...)
			if got := trace(view); got != want {
				t.Errorf("%s, %s: ResetBytes read\n%s\nwant\n%s", name, pname, got, want)
			}
		}
	}
}

// An uncompressed stream's records are b's own bytes, capped so that an
// append cannot write into the next record; and a Reader goes back to its
// own buffer after a ResetBytes.
func TestResetBytesViews(t *testing.T) {
	recs := testRecords()
	data := frame(recs...)
	r := tfrecord.NewReader(nil)
	for range 2 {
		r.ResetBytes(data)
		var got [][]byte
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if len(rec) > 0 {
				p := uintptr(unsafe.Pointer(unsafe.SliceData(rec)))
				base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
				if p < base || p >= base+uintptr(len(data)) {
					t.Fatalf("record at %d is a copy, not a view of the stream", r.Offset())
				}
			}
			if cap(rec) != len(rec) {
				t.Fatalf("record at %d has capacity %d beyond its length %d", r.Offset(), cap(rec), len(rec))
			}
			got = append(got, rec)
		}
		equalRecords(t, got, recs)
		// The stream must not become the read buffer of the next one.
		before := bytes.Clone(data)
		r.Reset(bytes.NewReader(frame([]byte("other"), bytes.Repeat([]byte{9}, 1000))))
		trace(r)
		if !bytes.Equal(data, before) {
			t.Fatal("Reset after ResetBytes wrote into the previous stream")
		}
	}
}
