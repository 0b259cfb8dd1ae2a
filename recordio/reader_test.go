package recordio

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/encoding/protowire"
)

var bg = context.Background()

// workQueue returns a queue holding units; closed unless open is set.
func workQueue(t *testing.T, units ...string) *queue.FIFO {
	t.Helper()
	q, err := queue.NewFIFO(100, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}), queue.Name("work"))
	if err != nil {
		t.Fatal(err)
	}
	if len(units) > 0 {
		if err := q.EnqueueMany(bg, queue.Element{tensor.Strings(units...)}); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

type kv struct{ key, value string }

// readAll reads until end of input, which must be the queue's EOF.
func readAll(t *testing.T, r *Reader) []kv {
	t.Helper()
	var out []kv
	for {
		k, v, err := r.Read(bg)
		if errors.Is(err, io.EOF) {
			if !strings.Contains(err.Error(), "is closed and has insufficient elements (requested 1, current size 0)") {
				t.Fatalf("end of input text: %v", err)
			}
			return out
		}
		if err != nil {
			t.Fatalf("read %d: %v", len(out), err)
		}
		out = append(out, kv{k, string(v)})
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// READERS.md §1, §2: IdentityReader testOneEpoch and counters.
func TestIdentityOneEpoch(t *testing.T) {
	q := workQueue(t, "A", "B", "C")
	q.Close(bg)
	r := NewIdentityReader(q)
	if r.NumRecordsProduced() != 0 || r.NumWorkUnitsCompleted() != 0 {
		t.Fatal("counters not zero")
	}
	k, v, err := r.Read(bg)
	if err != nil || k != "A" || string(v) != "A" || r.NumRecordsProduced() != 1 {
		t.Fatalf("first read %q %q %v", k, v, err)
	}
	got := readAll(t, r)
	if !slices.Equal(got, []kv{{"B", "B"}, {"C", "C"}}) {
		t.Fatalf("got %v", got)
	}
	if r.NumRecordsProduced() != 3 || r.NumWorkUnitsCompleted() != 3 || q.Size() != 0 {
		t.Fatalf("produced %d completed %d", r.NumRecordsProduced(), r.NumWorkUnitsCompleted())
	}
}

// READERS.md §1 testReset.
func TestIdentityReset(t *testing.T) {
	q := workQueue(t, "X", "Y", "Z")
	r := NewIdentityReader(q)
	r.Read(bg)
	r.Read(bg)
	if r.NumWorkUnitsCompleted() == 0 || r.NumRecordsProduced() != 2 {
		t.Fatal("counters")
	}
	r.Reset()
	if r.NumWorkUnitsCompleted() != 0 || r.NumRecordsProduced() != 0 || q.Size() != 1 {
		t.Fatal("reset")
	}
	if k, _, _ := r.Read(bg); k != "Z" {
		t.Fatalf("after reset read %q", k)
	}
	q.EnqueueMany(bg, queue.Element{tensor.Strings("K", "L")})
	if k, _, _ := r.Read(bg); k != "K" {
		t.Fatalf("read %q", k)
	}
}

// READERS.md §1 Serialize / restore.
func TestIdentitySerializeRestore(t *testing.T) {
	q := workQueue(t, "X", "Y", "Z")
	r := NewIdentityReader(q, Name("test_reader"))
	r.Read(bg)
	state, err := r.SerializeState()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(state); got != "080110011801220158" {
		t.Fatalf("state = %s, want TensorFlow's 080110011801220158", got)
	}
	r.Read(bg)
	r.Read(bg)
	q.EnqueueMany(bg, queue.Element{tensor.Strings("Y", "Z")})
	q.Close(bg)
	if err := r.RestoreState(bg, state); err != nil {
		t.Fatal(err)
	}
	if r.NumRecordsProduced() != 1 {
		t.Fatalf("produced after restore %d", r.NumRecordsProduced())
	}
	got := readAll(t, r)
	if !slices.Equal(got, []kv{{"Y", "Y"}, {"Z", "Z"}}) || r.NumRecordsProduced() != 3 {
		t.Fatalf("got %v", got)
	}
	for _, bad := range [][]byte{state[1:], state[:len(state)-1], append(slices.Clone(state), "ExtraJunk"...),
		append([]byte("PREFIX"), state...), append([]byte("BOGUS"), state[5:]...)} {
		err := r.RestoreState(bg, bad)
		if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "Could not parse state for IdentityReader 'test_reader'") {
			t.Errorf("restore %x: %v", bad, err)
		}
	}
	neg := []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	if err := r.RestoreState(bg, neg); err == nil || !strings.Contains(err.Error(), "Unexpected negative value when restoring in") {
		t.Errorf("negative: %v", err)
	}
	if err := r.RestoreState(bg, []byte{0x08, 0x01, 0x10, 0x02}); err == nil || !strings.Contains(err.Error(), "Inconsistent work started vs. finished") {
		t.Errorf("inconsistent: %v", err)
	}
	if r.NumRecordsProduced() != 0 {
		t.Error("a failed restore must reset the reader")
	}
}

// READERS.md §1: multiple epochs through an open queue.
func TestIdentityMultipleEpochs(t *testing.T) {
	q := workQueue(t, "DD", "EE", "DD", "EE", "DD", "EE")
	r := NewIdentityReader(q)
	for i := range 6 {
		k, _, err := r.Read(bg)
		if err != nil || k != []string{"DD", "EE"}[i%2] {
			t.Fatalf("read %d = %q %v", i, k, err)
		}
	}
	q.Close(bg)
	if _, _, err := r.Read(bg); !errors.Is(err, io.EOF) {
		t.Fatalf("got %v", err)
	}
}

// A read blocked on an empty queue returns when its context ends.
func TestReadCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workQueue(t)
		r := NewIdentityReader(q)
		ctx, cancel := context.WithCancel(bg)
		errc := make(chan error)
		go func() { _, _, err := r.Read(ctx); errc <- err }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	})
}

// READERS.md §3
func TestWholeFile(t *testing.T) {
	dir := t.TempDir()
	contents := []string{"One\na\nb\n", "Two\nC\nD", "Three x, y, z"}
	var names []string
	for i, c := range contents {
		names = append(names, writeFile(t, dir, fmt.Sprintf("whole_file.%d.txt", i), []byte(c)))
	}
	q := workQueue(t, names...)
	q.Close(bg)
	got := readAll(t, NewWholeFileReader(q))
	for i, g := range got {
		if g.key != names[i] || g.value != contents[i] {
			t.Fatalf("record %d = %v", i, g)
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d records", len(got))
	}
}

// READERS.md §4: TextLineReader vectors, CRLF, headers.
func TestTextLine(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		for _, skip := range []int{0, 1} {
			dir := t.TempDir()
			var names []string
			for i := range 2 {
				var b strings.Builder
				for j := range 5 {
					fmt.Fprintf(&b, "%d: %d", i, j)
					if i == 0 || j < 4 {
						b.WriteString(eol)
					}
				}
				names = append(names, writeFile(t, dir, fmt.Sprintf("text_line.%d.txt", i), []byte(b.String())))
			}
			q := workQueue(t, names...)
			q.Close(bg)
			r, err := NewTextLineReader(q, SkipHeaderLines(skip))
			if err != nil {
				t.Fatal(err)
			}
			var want []kv
			for i := range 2 {
				for j := skip; j < 5; j++ {
					want = append(want, kv{fmt.Sprintf("%s:%d", names[i], j+1), fmt.Sprintf("%d: %d", i, j)})
				}
			}
			if got := readAll(t, r); !slices.Equal(got, want) {
				t.Fatalf("eol %q skip %d: got %v", eol, skip, got)
			}
		}
	}
	if _, err := NewTextLineReader(workQueue(t), SkipHeaderLines(-1)); err == nil || !strings.Contains(err.Error(), "skip_header_lines must be >= 0 not -1") {
		t.Fatalf("negative skip: %v", err)
	}
}

// SetMaxLine: a line of the limit's length is read, a longer one is an
// error, short or past the buffer; and an endless line stops being read
// soon after the limit.
func TestLineSplitterMaxLine(t *testing.T) {
	for _, max := range []int{5, 100000} {
		long := strings.Repeat("x", max)
		s := NewLineSplitter(strings.NewReader(long + "\r\n" + long + "x\n"))
		s.SetMaxLine(max)
		if line, err := s.Next(); err != nil || string(line) != long {
			t.Fatalf("max %d: a line of %d bytes: %.20q, %v", max, len(line), line, err)
		}
		if _, err := s.Next(); !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), fmt.Sprint(max)) {
			t.Fatalf("max %d: a line of %d bytes: %v", max, max+1, err)
		}
	}
	endless := &countingReader{}
	s := NewLineSplitter(endless)
	s.SetMaxLine(1 << 20)
	if _, err := s.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("an endless line: %v", err)
	}
	if endless.n > 1<<20+256<<10 {
		t.Errorf("read %d bytes of an endless line before giving up at 1 MiB", endless.n)
	}
	// What it allocates on the way is at most about twice the limit, not
	// append's doubling: four times the limit (audits 49 and 51).
	const max = 8 << 20
	s = NewLineSplitter(&countingReader{})
	s.SetMaxLine(max)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := s.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("an endless line: %v", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*max+256<<10 {
		t.Errorf("allocated %d bytes (%.1f times the limit) to refuse a line over %d", got, float64(got)/max, max)
	}
}

// countingReader is an endless stream of 'x', counting what was read.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	r.n += len(p)
	return len(p), nil
}

// READERS.md §4 line-splitting vectors, at every buffer boundary.
func TestLineSplitter(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"line one\nline two\nline three\n", []string{"line one", "line two", "line three"}},
		{"line one\nline two\nline three", []string{"line one", "line two", "line three"}},
		{"line one\n\n\nline two\nline three", []string{"line one", "", "", "line two", "line three"}},
		{"line one\r\n\r\n\r\nline two\r\nline three", []string{"line one", "", "", "line two", "line three"}},
		{strings.Repeat("x", 200000) + "\ny", []string{strings.Repeat("x", 200000), "y"}},
	}
	for _, c := range cases {
		s := NewLineSplitter(strings.NewReader(c.in))
		var got []string
		for {
			line, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(line))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%.20q: got %d lines %.40q", c.in, len(got), got)
		}
		if _, err := s.Next(); err != io.EOF {
			t.Errorf("read after EOF: %v", err)
		}
	}
}

func compress(t *testing.T, c tfrecord.Compression, data []byte) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	switch c {
	case tfrecord.Gzip:
		w = gzip.NewWriter(&b)
	case tfrecord.Zlib:
		w = zlib.NewWriter(&b)
	default:
		return data
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// READERS.md §5: the FixedLengthRecordReader test files.
func TestFixedLength(t *testing.T) {
	type file struct {
		content string
		want    []string
	}
	records := func(f int) (gap0, gap1 string, want []string) {
		var a, b strings.Builder
		for r := range 7 {
			rec := strings.Repeat(fmt.Sprint(f*2+r), 3)
			a.WriteString(rec)
			if r > 0 {
				b.WriteString("G")
			}
			b.WriteString(rec)
			want = append(want, rec)
		}
		return "HHHHH" + a.String() + "FF", "HHHHH" + b.String() + "FF", want
	}
	f0g0, f0g1, w0 := records(0)
	f1g0, f1g1, w1 := records(1)
	cases := []struct {
		name  string
		hop   int
		files []file
	}{
		{"gap 0", 0, []file{{f0g0, w0}, {f1g0, w1}}},
		{"gap 1", 4, []file{{f0g1, w0}, {f1g1, w1}}},
		{"no records", 0, []file{{"HHHHHFF", nil}}},
		{"no records gap 1", 4, []file{{"HHHHHFF", nil}}},
		{"hop 2, n=2", 2, []file{{"HHHHH01234FF", []string{"012", "234"}}}},
		{"hop 2, n=3", 2, []file{{"HHHHH0123456FF", []string{"012", "234", "456"}}}},
		{"record without its footer dropped", 0, []file{{"HHHHH000111" + "2", []string{"000"}}}},
	}
	for _, c := range cases {
		for _, enc := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib} {
			dir := t.TempDir()
			var names []string
			var want []kv
			for i, f := range c.files {
				name := writeFile(t, dir, fmt.Sprintf("fixed_length_record.%d.txt", i), compress(t, enc, []byte(f.content)))
				names = append(names, name)
				for j, w := range f.want {
					want = append(want, kv{fmt.Sprintf("%s:%d", name, j), w})
				}
			}
			q := workQueue(t, names...)
			q.Close(bg)
			r, err := NewFixedLengthRecordReader(q, 3, HeaderBytes(5), FooterBytes(2), HopBytes(c.hop), Compression(enc))
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, r); !slices.Equal(got, want) {
				t.Errorf("%s %v: got %v, want %v", c.name, enc, got, want)
			}
		}
	}
	// A file shorter than its header fails its read; the next file follows.
	for _, enc := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib} {
		dir := t.TempDir()
		short := writeFile(t, dir, "short", compress(t, enc, []byte("HHH")))
		good := writeFile(t, dir, "good", compress(t, enc, []byte("HHHHHabcFF")))
		q := workQueue(t, short, good)
		q.Close(bg)
		r, _ := NewFixedLengthRecordReader(q, 3, HeaderBytes(5), FooterBytes(2), Compression(enc))
		_, _, err := r.Read(bg)
		if !errors.Is(err, ErrShortHeader) || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), short) {
			t.Errorf("%v: short header: %v", enc, err)
		}
		if got := readAll(t, r); !slices.Equal(got, []kv{{good + ":0", "abc"}}) {
			t.Errorf("%v: after a short header: %v", enc, got)
		}
	}
	if _, err := NewFixedLengthRecordReader(workQueue(t), 3, HeaderBytes(-1)); err == nil || !strings.Contains(err.Error(), "header_bytes must be >= 0 not -1") {
		t.Errorf("negative header: %v", err)
	}
}

// writeTFRecords writes the reader test's TFRecord files: record j of file
// i is "Record j of file i", 18 bytes, so record j starts at 34*j.
func writeTFRecords(t *testing.T, dir string, c tfrecord.Compression, files, records int) []string {
	t.Helper()
	var names []string
	for i := range files {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b, c)
		for j := range records {
			if err := w.Write([]byte(fmt.Sprintf("Record %d of file %d", j, i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		names = append(names, writeFile(t, dir, fmt.Sprintf("tf_record.%d.txt", i), b.Bytes()))
	}
	return names
}

// READERS.md §6: keys with uncompressed offsets, every compression.
func TestTFRecord(t *testing.T) {
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		names := writeTFRecords(t, t.TempDir(), c, 2, 7)
		q := workQueue(t, names...)
		q.Close(bg)
		got := readAll(t, NewTFRecordReader(q, c))
		var want []kv
		for i, n := range names {
			for j := range 7 {
				want = append(want, kv{fmt.Sprintf("%s:%d", n, 34*j), fmt.Sprintf("Record %d of file %d", j, i)})
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: got %v", c, got)
		}
	}
}

// READERS.md §1 testReadUpTo: batch sizes 3,3,1,3,3,1.
func TestReadUpTo(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.None, 2, 7)
	q := workQueue(t, names...)
	q.Close(bg)
	r := NewTFRecordReader(q, tfrecord.None)
	var sizes []int
	total := 0
	for {
		keys, values, err := r.ReadUpTo(bg, 3)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != len(values) {
			t.Fatal("keys and values differ in length")
		}
		file := strings.Split(keys[0], ":")[0]
		for _, k := range keys {
			if !strings.HasPrefix(k, file+":") {
				t.Fatalf("batch mixes files: %v", keys)
			}
		}
		sizes = append(sizes, len(keys))
		total += len(keys)
	}
	if !slices.Equal(sizes, []int{3, 3, 1, 3, 3, 1}) || total != 14 {
		t.Fatalf("sizes %v", sizes)
	}
}

// READERS.md §6 and DESIGN's corrupt-record policy: a corrupt record
// fails the read with the file and offset (fail is the default, as in
// TensorFlow); SkipCorrupt skips and counts; SkipCorruptUpTo(n) skips n
// per file and fails on the next.
func TestTFRecordCorruptPolicy(t *testing.T) {
	dir := t.TempDir()
	names := writeTFRecords(t, dir, tfrecord.None, 2, 4)
	for _, name := range names {
		data, _ := os.ReadFile(name)
		data[34+12] ^= 0xff // first payload byte of record 1
		data[3*34+12] ^= 0xff
		os.WriteFile(name, data, 0o644)
	}
	cases := []struct {
		name    string
		opts    []Option
		keys    []string // "ERROR" for a failed read
		skipped int64
	}{
		{"fail", nil, []string{"0:0", "ERROR"}, 0},
		{"skip", []Option{SkipCorrupt()}, []string{"0:0", "0:68", "1:0", "1:68"}, 4},
		{"skip up to 1", []Option{SkipCorruptUpTo(1)}, []string{"0:0", "0:68", "ERROR"}, 1},
	}
	for _, c := range cases {
		q := workQueue(t, names...)
		q.Close(bg)
		r := NewTFRecordReader(q, tfrecord.None, c.opts...)
		var keys []string
		for len(keys) < len(c.keys) {
			k, _, err := r.Read(bg)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				file := names[0]
				if !errors.Is(err, tfrecord.ErrDataLoss) || !errors.Is(err, tfrecord.ErrCorrupt) || !strings.Contains(err.Error(), file) ||
					!strings.Contains(err.Error(), fmt.Sprintf("corrupted record at %d", 34*3+12)) && !strings.Contains(err.Error(), "corrupted record at 46") {
					t.Errorf("%s: error %v", c.name, err)
				}
				var re *tfrecord.RecordError
				de, _ := errors.AsType[*dataerr.Error](err)
				if !errors.As(err, &re) || de == nil || de.File != file {
					t.Errorf("%s: error %v is not a *dataerr.Error holding a *tfrecord.RecordError for %s", c.name, err, file)
				}
				keys = append(keys, "ERROR")
				continue
			}
			keys = append(keys, strings.TrimPrefix(strings.TrimPrefix(k, dir+"/tf_record."), ""))
		}
		want := make([]string, len(c.keys))
		for i, k := range c.keys {
			want[i] = strings.Replace(k, ":", ".txt:", 1)
			if k == "ERROR" {
				want[i] = k
			}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("%s: keys %q, want %q", c.name, keys, want)
		}
		if c.name == "skip" {
			// The last corrupt record is met on the way to the end.
			if rest := readAll(t, r); len(rest) != 0 {
				t.Errorf("%s: read %v after the last good record", c.name, rest)
			}
		}
		if got := r.NumRecordsSkipped(); got != c.skipped {
			t.Errorf("%s: NumRecordsSkipped %d, want %d", c.name, got, c.skipped)
		}
		if c.name == "fail" {
			// The error stays until the unit changes, as in TensorFlow.
			if _, _, err := r.Read(bg); !errors.Is(err, tfrecord.ErrDataLoss) {
				t.Errorf("second read after a corrupt record: %v", err)
			}
		}
	}
	if n := NewIdentityReader(workQueue(t)).NumRecordsSkipped(); n != 0 {
		t.Errorf("a format without SkipCounter skipped %d", n)
	}
}

// READERS.md §1: a file that cannot be opened fails that read with an
// error naming it; it does not count as started, and the next read takes
// the next unit — for every reader that opens files.
func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	tf := writeTFRecords(t, dir, tfrecord.None, 1, 1)[0]
	text := writeFile(t, dir, "t.txt", []byte("line\n"))
	fixed := writeFile(t, dir, "f.bin", []byte("abc"))
	missing := filepath.Join(dir, "does-not-exist")
	cases := []struct {
		name string
		good string
		make func(q queue.Queue) (*Reader, error)
	}{
		{"TFRecord", tf, func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.None), nil }},
		{"TFRecord GZIP", tf, func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.Gzip), nil }},
		{"TextLine", text, func(q queue.Queue) (*Reader, error) { return NewTextLineReader(q) }},
		{"FixedLength", fixed, func(q queue.Queue) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }},
		{"FixedLength ZLIB", fixed, func(q queue.Queue) (*Reader, error) {
			return NewFixedLengthRecordReader(q, 3, Compression(tfrecord.Zlib))
		}},
		{"WholeFile", fixed, func(q queue.Queue) (*Reader, error) { return NewWholeFileReader(q), nil }},
	}
	for _, c := range cases {
		q := workQueue(t, missing, c.good)
		q.Close(bg)
		r, err := c.make(q)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = r.Read(bg)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) || errors.Is(err, io.EOF) {
			t.Errorf("%s: %v", c.name, err)
		}
		if r.NumWorkUnitsCompleted() != 0 {
			t.Errorf("%s: the missing file counted", c.name)
		}
		if c.name == "TFRecord GZIP" || c.name == "FixedLength ZLIB" {
			// The good file is not compressed: an error naming it.
			if _, _, err := r.Read(bg); err == nil || !strings.Contains(err.Error(), c.good) {
				t.Errorf("%s: uncompressed file read as compressed: %v", c.name, err)
			}
			continue
		}
		if got := readAll(t, r); len(got) != 1 {
			t.Errorf("%s: after the missing file read %v", c.name, got)
		}
	}
}

// Open finds every built-in reader by TensorFlow's name and rejects an
// unknown one; Register panics on a duplicate name.
func TestOpenByName(t *testing.T) {
	for _, name := range []string{"TFRecordReader", "TextLineReader", "FixedLengthRecordReader", "WholeFileReader", "IdentityReader"} {
		if !slices.Contains(Formats(), name) {
			t.Errorf("%s is not registered", name)
		}
	}
	if _, err := Open("NoSuchReader", workQueue(t)); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "NoSuchReader") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Open("FixedLengthRecordReader", workQueue(t)); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "record_bytes must be > 0") {
		t.Errorf("FixedLength without record_bytes: %v", err)
	}
	if _, err := Open("FixedLengthRecordReader", workQueue(t), RecordBytes(2), Compression(tfrecord.Compression(9))); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("FixedLength with an unknown compression: %v", err)
	}
	r, err := Open("TextLineReader", workQueue(t), Name("lines"))
	if err != nil || r.String() != "TextLineReader 'lines'" {
		t.Errorf("Open: %v, %v", r, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Register of a taken name did not panic")
		}
	}()
	Register("TextLineReader", func() Format { return &identityFormat{} })
}

// A work queue of anything but scalar strings is an InvalidArgument.
func TestWorkQueueType(t *testing.T) {
	q, err := queue.NewFIFO(2, []tensor.DType{tensor.Int64})
	if err != nil {
		t.Fatal(err)
	}
	q.Enqueue(bg, queue.Element{tensor.Scalar(int64(1))})
	r := NewIdentityReader(q)
	if _, _, err := r.Read(bg); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Fatalf("int64 work: %v", err)
	}
	if _, _, err := r.ReadUpTo(bg, 0); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Fatalf("ReadUpTo(0): %v", err)
	}
}

// Beyond TensorFlow: every reader resumes mid-file at the exact next
// record after SerializeState / RestoreState.
func TestRestoreMidUnit(t *testing.T) {
	dir := t.TempDir()
	tfNames := writeTFRecords(t, dir, tfrecord.None, 2, 7)
	gzNames := writeTFRecords(t, t.TempDir(), tfrecord.Gzip, 2, 7)
	text := writeFile(t, dir, "lines.txt", []byte("h\na\nb\nc\nd\n"))
	fixed := writeFile(t, dir, "fixed.bin", []byte("HHabcdefghij"))
	cases := []struct {
		name  string
		units []string
		make  func(q queue.Queue) *Reader
	}{
		{"tfrecord", tfNames, func(q queue.Queue) *Reader { return NewTFRecordReader(q, tfrecord.None) }},
		{"tfrecord gzip", gzNames, func(q queue.Queue) *Reader { return NewTFRecordReader(q, tfrecord.Gzip) }},
		{"textline", []string{text, text}, func(q queue.Queue) *Reader {
			r, _ := NewTextLineReader(q, SkipHeaderLines(1))
			return r
		}},
		{"fixedlength", []string{fixed, fixed}, func(q queue.Queue) *Reader {
			r, _ := NewFixedLengthRecordReader(q, 2, HeaderBytes(2))
			return r
		}},
	}
	for _, c := range cases {
		q := workQueue(t, c.units...)
		q.Close(bg)
		full := readAll(t, c.make(q))

		q1 := workQueue(t, c.units...)
		r1 := c.make(q1)
		for range 2 {
			if _, _, err := r1.Read(bg); err != nil {
				t.Fatal(err)
			}
		}
		state, err := r1.SerializeState()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r1.Reset()

		q2 := workQueue(t, c.units[1:]...)
		q2.Close(bg)
		r2 := c.make(q2)
		if err := r2.RestoreState(bg, state); err != nil {
			t.Fatalf("%s: restore: %v", c.name, err)
		}
		rest := readAll(t, r2)
		if !slices.Equal(rest, full[2:]) {
			t.Fatalf("%s: resumed %v, want %v", c.name, rest, full[2:])
		}
		if r2.NumRecordsProduced() != int64(len(full)) {
			t.Fatalf("%s: produced %d", c.name, r2.NumRecordsProduced())
		}
	}
}

// midUnitState is a state inside unit work at the format position pos.
func midUnitState(work string, pos []byte) []byte {
	b := []byte{0x08, 0x01, 0x18, 0x01}
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendString(b, work)
	b = protowire.AppendTag(b, 16, protowire.BytesType)
	return protowire.AppendBytes(b, pos)
}

// A saved position that does not fit its unit is ErrState, never a panic,
// a silent wrong record or an io.EOF that would pass for end of input; the
// reader is left reset.
func TestRestoreBadPosition(t *testing.T) {
	dir := t.TempDir()
	tf := writeTFRecords(t, dir, tfrecord.None, 1, 3)[0]
	gz := writeTFRecords(t, t.TempDir(), tfrecord.Gzip, 1, 3)[0]
	text := writeFile(t, dir, "lines.txt", []byte("a\nb\n"))
	fixed := writeFile(t, dir, "fixed.bin", []byte("abcdef"))
	varint := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = protowire.AppendVarint(b, v)
		}
		return b
	}
	cases := []struct {
		name string
		make func(q queue.Queue) (*Reader, error)
		work string
		pos  []byte
	}{
		{"tfrecord past the end", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.None), nil }, tf, varint(1 << 40)},
		{"tfrecord garbage", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.None), nil }, tf, []byte{0xff}},
		{"tfrecord gzip between records", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.Gzip), nil }, gz, varint(35)},
		{"tfrecord gzip past the end", func(q queue.Queue) (*Reader, error) { return NewTFRecordReader(q, tfrecord.Gzip), nil }, gz, varint(1000)},
		{"textline past the end", func(q queue.Queue) (*Reader, error) { return NewTextLineReader(q) }, text, varint(1, 100)},
		{"textline garbage", func(q queue.Queue) (*Reader, error) { return NewTextLineReader(q) }, text, []byte{0x80}},
		{"fixed huge index", func(q queue.Queue) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }, fixed, varint(1 << 62)},
		{"fixed garbage", func(q queue.Queue) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }, fixed, []byte{0x01, 0x02}},
		{"missing file", func(q queue.Queue) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }, filepath.Join(dir, "nope"), varint(1)},
		{"no position", func(q queue.Queue) (*Reader, error) { return NewFixedLengthRecordReader(q, 3) }, fixed, nil},
	}
	for _, c := range cases {
		r, err := c.make(workQueue(t))
		if err != nil {
			t.Fatal(err)
		}
		state := midUnitState(c.work, c.pos)
		if c.pos == nil {
			state = []byte{0x08, 0x01, 0x22, 0x01, 'x'}
		}
		err = r.RestoreState(bg, state)
		if !errors.Is(err, ErrState) || errors.Is(err, io.EOF) {
			t.Errorf("%s: %v", c.name, err)
		}
		if r.NumRecordsProduced() != 0 {
			t.Errorf("%s: not reset after a failed restore", c.name)
		}
	}
	// A position at the very end of a unit is valid: the unit just ends.
	q := workQueue(t)
	q.Close(bg)
	r, _ := NewFixedLengthRecordReader(q, 3)
	if err := r.RestoreState(bg, midUnitState(fixed, varint(2))); err != nil {
		t.Fatal(err)
	}
	if k, _, err := r.Read(bg); !errors.Is(err, io.EOF) || r.NumWorkUnitsCompleted() != 1 {
		t.Fatalf("read %q, %v past the last record", k, err)
	}
}

func interopDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "interop")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/interop is absent")
	}
	return dir
}

// READERS.md §6 on real files TensorFlow tooling wrote: every record, keys
// at the uncompressed offsets (each record starts 16 bytes after the
// previous one's data), the same records through ReadUpTo, and a resume
// from the middle of each file.
func TestInterop(t *testing.T) {
	dir := interopDir(t)
	cases := []struct {
		file string
		c    tfrecord.Compression
		n    int
	}{
		{"mnist-1000.tfrecord", tfrecord.None, 1000},
		{"sequence-examples-3.tfrecord.gz", tfrecord.Gzip, 3},
	}
	for _, c := range cases {
		name := filepath.Join(dir, c.file)
		q := workQueue(t, name)
		q.Close(bg)
		got := readAll(t, NewTFRecordReader(q, c.c))
		if len(got) != c.n {
			t.Fatalf("%s: %d records, want %d", c.file, len(got), c.n)
		}
		off := 0
		for i, g := range got {
			if g.key != fmt.Sprintf("%s:%d", name, off) {
				t.Fatalf("%s: record %d key %q, want offset %d", c.file, i, g.key, off)
			}
			off += len(g.value) + tfrecord.Overhead
		}
		if c.file == "mnist-1000.tfrecord" {
			if st, err := os.Stat(name); err != nil || st.Size() != int64(off) {
				t.Fatalf("%s: records end at %d, file size %v", c.file, off, st.Size())
			}
		}

		q = workQueue(t, name)
		q.Close(bg)
		r := NewTFRecordReader(q, c.c)
		var batched []string
		for {
			_, values, err := r.ReadUpTo(bg, 64)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				batched = append(batched, string(v))
			}
		}
		if len(batched) != c.n || batched[c.n-1] != got[c.n-1].value {
			t.Fatalf("%s: ReadUpTo gave %d records", c.file, len(batched))
		}

		q = workQueue(t, name)
		r = NewTFRecordReader(q, c.c)
		for range c.n / 2 {
			r.Read(bg)
		}
		state, err := r.SerializeState()
		if err != nil {
			t.Fatal(err)
		}
		q2 := workQueue(t)
		q2.Close(bg)
		r2 := NewTFRecordReader(q2, c.c)
		if err := r2.RestoreState(bg, state); err != nil {
			t.Fatal(err)
		}
		if rest := readAll(t, r2); !slices.Equal(rest, got[c.n/2:]) {
			t.Fatalf("%s: resumed with %d records, want %d", c.file, len(rest), c.n-c.n/2)
		}
	}
}

// MaxRecordSize reaches the TFRecord reader; and a length field claiming
// more than the file holds fails as truncation without memory for the
// claim, since the reader is told the file's size.
func TestTFRecordMaxRecordSize(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	w.Write(make([]byte, 1000))
	w.Close()
	var h [12]byte
	binary.LittleEndian.PutUint64(h[:], 1<<30)
	binary.LittleEndian.PutUint32(h[8:], tfrecord.MaskedCRC(h[:8]))
	data := append(append(buf.Bytes(), h[:]...), make([]byte, 3<<20)...)
	name := writeFile(t, dir, "claim.tfrecord", data)

	q := workQueue(t, name)
	q.Close(bg)
	_, _, err := NewTFRecordReader(q, tfrecord.None, MaxRecordSize(999)).Read(bg)
	var re *tfrecord.RecordError
	de, _ := errors.AsType[*dataerr.Error](err)
	if !errors.Is(err, tfrecord.ErrTooLarge) || !errors.As(err, &re) || de == nil || de.File != name || re.Limit != 999 {
		t.Errorf("MaxRecordSize(999): %v, want ErrTooLarge for %s", err, name)
	}

	q = workQueue(t, name)
	q.Close(bg)
	r := NewTFRecordReader(q, tfrecord.None)
	if _, v, err := r.Read(bg); err != nil || len(v) != 1000 {
		t.Fatalf("first record: %d bytes, %v", len(v), err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err = r.Read(bg)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, tfrecord.ErrTruncated) || !strings.Contains(err.Error(), name) {
		t.Errorf("claim of 1 GiB: %v, want ErrTruncated naming %s", err, name)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("claim of 1 GiB with 3 MiB present: allocated %d bytes", alloc)
	}
}

// Detect reads files of every compression through one reader, each
// detected from its first bytes (sluice extension); NoKeys returns empty
// keys while Work and Offset give each record's position. The module
// root gets such a format through recordhook.
func TestTFRecordDetectNoKeys(t *testing.T) {
	if f, ok := recordhook.NewTFRecordFormat(nil).(*tfRecordFormat); !ok || !f.detect || !f.noKeys {
		t.Fatalf("recordhook.NewTFRecordFormat = %#v, want a tfRecordFormat that detects, without keys", f)
	}
	var names []string
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		names = append(names, writeTFRecords(t, t.TempDir(), c, 1, 3)...)
	}
	for _, noKeys := range []bool{false, true} {
		q := workQueue(t, names...)
		q.Close(bg)
		f := &tfRecordFormat{detect: true, noKeys: noKeys}
		r := NewReader("TFRecordReader", f, q)
		n := 0
		for {
			k, v, err := r.Read(bg)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("NoKeys %v: record %d: %v", noKeys, n, err)
			}
			file, j := n/3, n%3
			if want := fmt.Sprintf("Record %d of file 0", j); string(v) != want {
				t.Fatalf("NoKeys %v: record %d is %q, want %q", noKeys, n, v, want)
			}
			pos := fmt.Sprintf("%s:%d", f.Work(), f.Offset())
			if want := fmt.Sprintf("%s:%d", names[file], 34*j); pos != want || !noKeys && k != want || noKeys && k != "" {
				t.Fatalf("NoKeys %v: record %d has key %q and position %q, want %q", noKeys, n, k, pos, want)
			}
			n++
		}
		if n != 12 {
			t.Fatalf("read %d records, want 12", n)
		}
	}
}

// The module root's text-line format (recordhook.NewTextLineFormat)
// returns lines with empty keys; Work and Offset give the key a
// TextLineReader would have formed, "file:line", header lines counted.
func TestTextLineNoKeys(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "lines.csv")
	if err := os.WriteFile(name, []byte("header\na,1\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := workQueue(t, name)
	q.Close(bg)
	f := recordhook.NewTextLineFormat(1)
	r := NewReader("TextLineReader", f, q)
	for i, want := range []string{"a,1", "b,2"} {
		k, v, err := r.Read(bg)
		if err != nil {
			t.Fatal(err)
		}
		pos := fmt.Sprintf("%s:%d", f.Work(), f.Offset())
		if k != "" || string(v) != want || pos != fmt.Sprintf("%s:%d", name, i+2) {
			t.Errorf("line %d: key %q, value %q, position %q", i, k, v, pos)
		}
	}
	if _, _, err := r.Read(bg); !errors.Is(err, io.EOF) {
		t.Errorf("after the last line: %v, want io.EOF", err)
	}
}

// The module root's fixed-length format (recordhook.NewFixedLengthFormat)
// returns the records NewFixedLengthRecordReader returns, with empty keys;
// Work and Offset give the key that reader forms, "file:index".
func TestFixedLengthNoKeys(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i, body := range []string{"HHaaabbbcF", "HHcccdddF"} {
		name := filepath.Join(dir, fmt.Sprintf("f%d.bin", i))
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	kq, q := workQueue(t, names...), workQueue(t, names...)
	kq.Close(bg)
	q.Close(bg)
	keyed, err := NewFixedLengthRecordReader(kq, 3, HeaderBytes(2), FooterBytes(1))
	if err != nil {
		t.Fatal(err)
	}
	f, err := recordhook.NewFixedLengthFormat(3, 2, 1, tfrecord.None)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader("FixedLengthRecordReader", f, q)
	n := 0
	for ; ; n++ {
		wantKey, wantVal, wantErr := keyed.Read(bg)
		k, v, err := r.Read(bg)
		if wantErr != nil || err != nil {
			if !errors.Is(wantErr, io.EOF) || !errors.Is(err, io.EOF) {
				t.Fatalf("record %d: errors %v and %v, want io.EOF from both", n, wantErr, err)
			}
			break
		}
		pos := fmt.Sprintf("%s:%d", f.Work(), f.Offset())
		if k != "" || string(v) != string(wantVal) || pos != wantKey {
			t.Errorf("record %d: key %q, value %q, position %q; want \"\", %q, %q", n, k, v, pos, wantVal, wantKey)
		}
	}
	if n != 4 {
		t.Errorf("read %d records, want 4 (a cut-short last record dropped)", n)
	}
	if _, err := recordhook.NewFixedLengthFormat(0, 0, 0, tfrecord.None); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("record size 0: %v, want ErrInvalidArgument", err)
	}
}
