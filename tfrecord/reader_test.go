package tfrecord_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tfrecord"
)

// sizes covers empty records, tiny ones, and records around and above the
// reader's 64 KiB buffer (the copy-free path and the large-record path).
var sizes = []int{0, 1, 17, 0, 1000, 65536 - 16, 65536 - 15, 65536, 70000, 300000, 0, 5}

func testRecords() [][]byte {
	var recs [][]byte
	for i, n := range sizes {
		r := make([]byte, n)
		for j := range r {
			r[j] = byte(i*31 + j*7 + j>>8)
		}
		recs = append(recs, r)
	}
	return recs
}

// READERS.md §6: offsets are record starts in the uncompressed stream, for
// every compression.
func TestRoundTrip(t *testing.T) {
	recs := testRecords()
	var wantOffs []int64
	var off int64
	for _, r := range recs {
		wantOffs = append(wantOffs, off)
		off += int64(len(r)) + tfrecord.Overhead
	}
	for _, c := range compressions {
		for _, bufSize := range []int{0, 64, 1 << 20} {
			t.Run(fmt.Sprintf("%v/buf%d", c, bufSize), func(t *testing.T) {
				data := write(t, c, recs...)
				opts := []tfrecord.Option{c}
				if bufSize > 0 {
					opts = append(opts, tfrecord.BufferSize(bufSize))
				}
				got, offs, err := readAll(data, opts...)
				if err != nil {
					t.Fatal(err)
				}
				equalRecords(t, got, recs)
				if fmt.Sprint(offs) != fmt.Sprint(wantOffs) {
					t.Errorf("offsets %v, want %v", offs, wantOffs)
				}
				if c == tfrecord.None && !bytes.Equal(data, frame(recs...)) {
					t.Error("uncompressed writer output differs from the hand-framed stream")
				}
			})
		}
	}
}

// The reader must not depend on how the source splits its reads.
func TestRoundTripOddReaders(t *testing.T) {
	recs := testRecords()
	for _, c := range compressions {
		data := write(t, c, recs...)
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"onebyte": iotest.OneByteReader,
			"half":    iotest.HalfReader,
			"dataerr": iotest.DataErrReader,
		} {
			r := tfrecord.NewReader(wrap(bytes.NewReader(data)), c)
			var got [][]byte
			for rec, err := range r.All() {
				if err != nil {
					t.Fatalf("%v/%s: %v", c, name, err)
				}
				got = append(got, bytes.Clone(rec))
			}
			equalRecords(t, got, recs)
			r.Close()
		}
	}
}

// DECODERS.md: an empty file holds zero records, whatever the compression
// (TensorFlow yields nothing for an empty file with any compression_type).
func TestEmptyStream(t *testing.T) {
	for _, c := range compressions {
		for _, data := range [][]byte{nil, write(t, c)} {
			r := tfrecord.NewReader(bytes.NewReader(data), c)
			for range 2 { // end of input is sticky
				if rec, err := r.Next(); err != io.EOF || rec != nil {
					t.Errorf("%v, %d bytes: Next = %q, %v; want io.EOF", c, len(data), rec, err)
				}
			}
			if s := r.Stats(); s.Records != 0 {
				t.Errorf("%v: Stats = %+v", c, s)
			}
		}
	}
}

func TestEmptyRecords(t *testing.T) {
	data := write(t, tfrecord.None, nil, []byte{}, nil)
	if len(data) != 3*16 {
		t.Fatalf("3 empty records are %d bytes, want 48", len(data))
	}
	got, offs, err := readAll(data)
	if err != nil || len(got) != 3 || fmt.Sprint(offs) != "[0 16 32]" {
		t.Fatalf("got %d records at %v, %v", len(got), offs, err)
	}
	for _, r := range got {
		if len(r) != 0 {
			t.Errorf("record %q, want empty", r)
		}
	}
}

func TestStartOffset(t *testing.T) {
	recs := [][]byte{[]byte("a"), []byte("bc")}
	_, offs, err := readAll(frame(recs...), tfrecord.StartOffset(1000))
	if err != nil || fmt.Sprint(offs) != "[1000 1017]" {
		t.Errorf("offsets %v, %v; want [1000 1017]", offs, err)
	}
	r := tfrecord.NewReader(bytes.NewReader(frame(recs...)))
	r.Next()
	if r.Offset() != 0 || r.NextOffset() != 17 {
		t.Errorf("Offset, NextOffset = %d, %d; want 0, 17", r.Offset(), r.NextOffset())
	}
}

// corrupt returns data with byte i flipped.
func corrupt(data []byte, i int) []byte {
	d := bytes.Clone(data)
	d[i] ^= 0x40
	return d
}

// DECODERS.md reader errors: every kind, with TensorFlow's words and the
// offsets it reports.
func TestCorruption(t *testing.T) {
	recs := [][]byte{[]byte("first record"), []byte("second record"), []byte("third")}
	good := frame(recs...)
	r1 := int64(16 + len(recs[0])) // start of record 1: 28
	r2 := r1 + 16 + int64(len(recs[1]))
	tests := []struct {
		name    string
		data    []byte
		opts    []tfrecord.Option
		records int   // records before the error
		kind    error // sentinel
		part    string
		offset  int64  // dataerr.Error.Offset
		msg     string // substring of Error()
	}{
		{"data CRC", corrupt(good, int(r1)+12+3), nil, 1, tfrecord.ErrCorrupt, "data", r1, fmt.Sprintf("x.tfrecord: corrupted record at %d", r1+12)},
		{"data CRC field", corrupt(good, int(r2)-1), nil, 1, tfrecord.ErrCorrupt, "data", r1, fmt.Sprintf("corrupted record at %d", r1+12)},
		{"length CRC", corrupt(good, int(r1)+9), nil, 1, tfrecord.ErrCorrupt, "length", r1, fmt.Sprintf("corrupted record at %d", r1)},
		{"length field", corrupt(good, int(r1)+1), nil, 1, tfrecord.ErrCorrupt, "length", r1, fmt.Sprintf("corrupted record at %d", r1)},
		{"truncated header", good[:r1+5], nil, 1, tfrecord.ErrTruncated, "", r1, fmt.Sprintf("truncated record at %d", r1)},
		{"partial header at end", append(bytes.Clone(good), 1, 2, 3), nil, 3, tfrecord.ErrTruncated, "", int64(len(good)), fmt.Sprintf("truncated record at %d", len(good))},
		{"truncated payload", good[:r1+12+4], nil, 1, tfrecord.ErrTruncated, "", r1, fmt.Sprintf("truncated record at %d", r1)},
		{"truncated footer", good[:r2-1], nil, 1, tfrecord.ErrTruncated, "", r1, fmt.Sprintf("truncated record at %d", r1)},
		{"too large", good, []tfrecord.Option{tfrecord.MaxRecordSize(12)}, 1, tfrecord.ErrTooLarge, "", r1, "record size too large (13 bytes, more than the limit of 12) at 28"},
		{"huge length", append(frameHeader(1<<40), "abc"...), nil, 0, tfrecord.ErrTooLarge, "", 0, "record size too large"},
		{"huge length, no limit", append(frameHeader(1<<40), "abc"...), []tfrecord.Option{tfrecord.MaxRecordSize(1 << 62)}, 0, tfrecord.ErrTruncated, "", 0, "truncated record at 0"},
		// SkipCorrupt does not skip what it cannot get past.
		{"truncated, skipping", good[:r1+12+4], []tfrecord.Option{tfrecord.SkipCorrupt()}, 1, tfrecord.ErrTruncated, "", r1, "truncated record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := readAll(tt.data, append([]tfrecord.Option{tfrecord.Name("x.tfrecord")}, tt.opts...)...)
			if len(got) != tt.records {
				t.Errorf("%d records before the error, want %d", len(got), tt.records)
			}
			var re *tfrecord.RecordError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T), want a *RecordError", err, err)
			}
			if !errors.Is(err, tt.kind) || !errors.Is(err, tfrecord.ErrDataLoss) {
				t.Errorf("error %v: errors.Is(%v) = false or not ErrDataLoss", err, tt.kind)
			}
			de, _ := errors.AsType[*dataerr.Error](err)
			if de == nil || de.Offset != tt.offset || re.Part != tt.part || de.File != "x.tfrecord" || de.Record != -1 {
				t.Errorf("error %#v, Part %q; want offset %d, part %q, file x.tfrecord, record -1", de, re.Part, tt.offset, tt.part)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func frameHeader(length uint64) []byte {
	h := frame(make([]byte, 0))[:12]
	h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7] = byte(length), byte(length>>8), byte(length>>16), byte(length>>24), byte(length>>32), byte(length>>40), byte(length>>48), byte(length>>56)
	crc := tfrecord.MaskedCRC(h[:8])
	h[8], h[9], h[10], h[11] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
	return h
}

// A length field claiming far more than the stream holds must cost memory
// in proportion to the bytes present, not to the claim.
func TestHugeLengthDoesNotAllocate(t *testing.T) {
	for _, tc := range []struct {
		length uint64
		have   int
	}{{1 << 40, 10}, {1 << 30, 100_000}, {1<<62 - 1, 3 << 20}} {
		data := append(frameHeader(tc.length), make([]byte, tc.have)...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := readAll(data, tfrecord.MaxRecordSize(1<<62))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tfrecord.ErrTruncated) {
			t.Errorf("length %d with %d bytes: %v, want ErrTruncated", tc.length, tc.have, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if limit := uint64(256<<10 + 3*tc.have); alloc > limit {
			t.Errorf("length %d with %d bytes: allocated %d bytes, want ≤ %d", tc.length, tc.have, alloc, limit)
		}
	}
}

// Corrupt-record policies (DESIGN "Deliberate differences"): fail, skip and
// count, skip up to N.
func TestSkipCorrupt(t *testing.T) {
	var recs [][]byte
	for i := range 10 {
		recs = append(recs, []byte(fmt.Sprintf("record number %d", i)))
	}
	good := frame(recs...)
	start := func(i int) int { return i * (16 + 15) } // all records are 15 bytes
	badData := corrupt(corrupt(good, start(2)+12+1), start(7)+12+5)
	badLen := corrupt(corrupt(good, start(3)+2), start(6)+9)
	badBoth := corrupt(corrupt(good, start(1)+12), start(4)+10)
	lastLen := corrupt(good, start(9)+3)
	garbageMid := append(append(bytes.Clone(good[:start(5)]), []byte("some garbage in the middle")...), good[start(5):]...)
	tests := []struct {
		name     string
		data     []byte
		opts     []tfrecord.Option
		want     []int // indices of records returned
		skipped  int64
		skipped2 int64 // SkippedBytes
		wantErr  bool
	}{
		{"fail by default", badData, nil, []int{0, 1}, 0, 0, true},
		{"skip data CRC", badData, []tfrecord.Option{tfrecord.SkipCorrupt()}, []int{0, 1, 3, 4, 5, 6, 8, 9}, 2, 62, false},
		{"skip up to 1", badData, []tfrecord.Option{tfrecord.SkipCorruptUpTo(1)}, []int{0, 1, 3, 4, 5, 6}, 1, 31, true},
		{"skip up to 2", badData, []tfrecord.Option{tfrecord.SkipCorruptUpTo(2)}, []int{0, 1, 3, 4, 5, 6, 8, 9}, 2, 62, false},
		{"skip up to 0", badData, []tfrecord.Option{tfrecord.SkipCorruptUpTo(0)}, []int{0, 1}, 0, 0, true},
		{"resync after length CRC", badLen, []tfrecord.Option{tfrecord.SkipCorrupt()}, []int{0, 1, 2, 4, 5, 7, 8, 9}, 2, 62, false},
		{"both kinds", badBoth, []tfrecord.Option{tfrecord.SkipCorrupt()}, []int{0, 2, 3, 5, 6, 7, 8, 9}, 2, 62, false},
		{"length CRC of last record", lastLen, []tfrecord.Option{tfrecord.SkipCorrupt()}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 1, 31, false},
		{"garbage between records", garbageMid, []tfrecord.Option{tfrecord.SkipCorrupt()}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 26, false},
		{"skip data CRC, small buffer", badData, []tfrecord.Option{tfrecord.SkipCorrupt(), tfrecord.BufferSize(64)}, []int{0, 1, 3, 4, 5, 6, 8, 9}, 2, 62, false},
		{"resync, small buffer", badLen, []tfrecord.Option{tfrecord.SkipCorrupt(), tfrecord.BufferSize(64)}, []int{0, 1, 2, 4, 5, 7, 8, 9}, 2, 62, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tfrecord.NewReader(bytes.NewReader(tt.data), tt.opts...)
			var got []int
			var err error
			for rec, e := range r.All() {
				if e != nil {
					err = e
					break
				}
				var i int
				fmt.Sscanf(string(rec), "record number %d", &i)
				got = append(got, i)
				// Offsets stay those of the uncompressed stream, even
				// after garbage was skipped.
				wantOff := int64(start(i))
				if bytes.Equal(tt.data, garbageMid) && i >= 5 {
					wantOff += 26
				}
				if r.Offset() != wantOff {
					t.Errorf("record %d at offset %d, want %d", i, r.Offset(), wantOff)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("records %v, want %v", got, tt.want)
			}
			if (err != nil) != tt.wantErr || err != nil && !errors.Is(err, tfrecord.ErrCorrupt) {
				t.Errorf("error %v, want error: %v", err, tt.wantErr)
			}
			s := r.Stats()
			if s.Skipped != tt.skipped || s.SkippedBytes != tt.skipped2 || s.Records != int64(len(tt.want)) {
				t.Errorf("Stats = %+v, want %d records, %d skipped, %d bytes", s, len(tt.want), tt.skipped, tt.skipped2)
			}
		})
	}
}

func TestSkipDataCRC(t *testing.T) {
	bad := corrupt(frame([]byte("abc"), []byte("def")), 12+1)
	got, _, err := readAll(bad, tfrecord.SkipDataCRC())
	if err != nil || len(got) != 2 || string(got[0]) != "a\x22c" {
		t.Errorf("got %q, %v", got, err)
	}
	// The length CRC is still checked.
	if _, _, err := readAll(corrupt(bad, 9), tfrecord.SkipDataCRC()); !errors.Is(err, tfrecord.ErrCorrupt) {
		t.Errorf("bad length CRC with SkipDataCRC: %v", err)
	}
}

// A broken compressed stream is an error naming the file and offset.
func TestBrokenCompressedStream(t *testing.T) {
	recs := testRecords()
	for _, c := range compressions[1:] {
		data := write(t, c, recs...)
		tests := []struct {
			name string
			data []byte
			kind error
		}{
			{"truncated", data[:len(data)/2], tfrecord.ErrTruncated},
			{"trailer", corrupt(data, len(data)-2), tfrecord.ErrCorrupt},
			{"header", corrupt(data, 0), tfrecord.ErrCorrupt},
			{"garbage", append(bytes.Clone(data[:8]), bytes.Repeat([]byte{0xff}, 64)...), nil},
		}
		for _, tt := range tests {
			_, _, err := readAll(tt.data, c, tfrecord.Name("f.gz"))
			var re *tfrecord.RecordError
			if !errors.As(err, &re) || !errors.Is(err, tfrecord.ErrDataLoss) {
				t.Errorf("%v %s: error %v (%T), want a *RecordError", c, tt.name, err, err)
				continue
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("%v %s: error %v, want %v", c, tt.name, err, tt.kind)
			}
			if de, _ := errors.AsType[*dataerr.Error](err); de == nil || de.File != "f.gz" || !strings.Contains(err.Error(), "f.gz: ") || !strings.Contains(err.Error(), fmt.Sprintf(" at %d", de.Offset)) {
				t.Errorf("%v %s: error %q does not name the file and offset", c, tt.name, err)
			}
		}
	}
}

// An error of the caller's reader is passed on, not reported as data loss.
func TestSourceError(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, c := range compressions {
		data := write(t, c, testRecords()...)
		src := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom))
		r := tfrecord.NewReader(src, c, tfrecord.Name("f"))
		var n int
		var err error
		for _, err = range r.All() {
			if err != nil {
				break
			}
			n++
		}
		if !errors.Is(err, boom) || errors.Is(err, tfrecord.ErrDataLoss) || !strings.Contains(err.Error(), "f: ") {
			t.Errorf("%v: after %d records: %v; want the source's error, naming the file, not data loss", c, n, err)
		}
		if _, err2 := r.Next(); err2 != err {
			t.Errorf("%v: error not sticky: %v then %v", c, err, err2)
		}
	}
}

func TestUnknownCompressionValue(t *testing.T) {
	r := tfrecord.NewReader(bytes.NewReader(nil), tfrecord.Compression(42))
	if _, err := r.Next(); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("Next = %v", err)
	}
	w := tfrecord.NewWriter(io.Discard, tfrecord.Compression(42))
	if err := w.Write(nil); !errors.Is(err, tfrecord.ErrUnknownCompression) {
		t.Errorf("Write = %v", err)
	}
}

func TestAllStopsEarly(t *testing.T) {
	r := tfrecord.NewReader(bytes.NewReader(frame([]byte("a"), []byte("b"), []byte("c"))))
	for range r.All() {
		break
	}
	rec, err := r.Next()
	if string(rec) != "b" || err != nil {
		t.Errorf("after breaking out of All, Next = %q, %v; want b", rec, err)
	}
	r.Close()
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close = %v, want an error", err)
	}
}

// Steady-state reading allocates nothing per record.
func TestNextDoesNotAllocate(t *testing.T) {
	for _, size := range []int{100, 100_000} {
		rec := bytes.Repeat([]byte{7}, size)
		data := bytes.Repeat(frame(rec), 64)
		br := bytes.NewReader(data)
		r := tfrecord.NewReader(br)
		r.Next()
		r.Next()
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%d-byte records: %.1f allocations per Next, want 0", size, allocs)
		}
	}
}

// READERS.md §6 large-record round trip: about 5 MB (a poem repeated 10240
// times) through ZLIB.
func TestLargeRecordZlib(t *testing.T) {
	rec := bigPoemRecord()
	for _, c := range compressions {
		data := write(t, c, rec, []byte("after"))
		got, _, err := readAll(data, c)
		if err != nil {
			t.Fatal(err)
		}
		equalRecords(t, got, [][]byte{rec, []byte("after")})
	}
}

func bigPoemRecord() []byte {
	const poem = "Still round the corner there may wait\n" +
		"A new road or a secret gate,\n" +
		"And though I oft have passed them by,\n" +
		"A day will come at last when I\n" +
		"Shall take the hidden paths that run\n" +
		"West of the Moon, East of the Sun.\n"
	// 10240 copies of a ~500-byte verse ≈ 5 MB.
	return bytes.Repeat([]byte(strings.Repeat(poem, 2)), 10240)
}

func TestReset(t *testing.T) {
	recs := testRecords()
	r := tfrecord.NewReader(bytes.NewReader(nil))
	for _, c := range append(compressions, tfrecord.None, tfrecord.Gzip) {
		r.Reset(bytes.NewReader(write(t, c, recs...)), c, tfrecord.Name(c.String()))
		var got [][]byte
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, bytes.Clone(rec))
		}
		equalRecords(t, got, recs)
	}
	// Reset clears a sticky error, and the name and offsets start afresh.
	r.Reset(bytes.NewReader([]byte{1, 2, 3}), tfrecord.Name("bad"))
	if _, err := r.Next(); !errors.Is(err, tfrecord.ErrTruncated) || !strings.Contains(err.Error(), "bad: truncated record at 0") {
		t.Fatalf("Next = %v", err)
	}
	r.Reset(bytes.NewReader(frame([]byte("ok"))))
	if rec, err := r.Next(); err != nil || string(rec) != "ok" || r.Offset() != 0 {
		t.Errorf("after Reset: %q at %d, %v", rec, r.Offset(), err)
	}
	r.Close()
	// Reading file after file from one Reader does not allocate.
	small := frame(bytes.Repeat([]byte{1}, 100), bytes.Repeat([]byte{2}, 100))
	br := bytes.NewReader(small)
	allocs := testing.AllocsPerRun(50, func() {
		br.Reset(small)
		r.Reset(br)
		for _, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs > 1 {
		t.Errorf("%.1f allocations per reset-and-read, want ≤ 1", allocs)
	}
}
