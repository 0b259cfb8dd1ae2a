package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sluiceml/sluice/internal/fifotest"
	"github.com/sluiceml/sluice/tfrecord"
)

// runIn runs the command line args with stdin as standard input, as Main
// does, and returns the error and what was written.
func runIn(t testing.TB, stdin io.Reader, args ...string) (error, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCmd(&out, &errOut)
	root.SetIn(stdin)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return err, out.String(), errOut.String()
}

// zstdBomb returns a zstd stream, about 10 KB, holding one record of
// length zero bytes.
func zstdBomb(t testing.TB, length int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	var h [12]byte
	binary.LittleEndian.PutUint64(h[:], uint64(length))
	binary.LittleEndian.PutUint32(h[8:], tfrecord.MaskedCRC(h[:8]))
	w.Write(h[:])
	zeros := make([]byte, 1<<20)
	crc := uint32(0)
	for n := length; n > 0; n -= min(n, len(zeros)) {
		crc = crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), zeros[:min(n, len(zeros))])
		w.Write(zeros[:min(n, len(zeros))])
	}
	w.Write(binary.LittleEndian.AppendUint32(nil, tfrecord.Mask(crc)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every command that reads records refuses one over --max-record-size
// (default 256 MiB) at its header, naming the file, offset, length, limit
// and the flag, without inflating a decompression bomb; the flag raises
// the limit.
func TestMaxRecordSize(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.tfrecord.zst")
	if err := os.WriteFile(bomb, zstdBomb(t, 300<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	small := writeRecords(t, dir, "small.tfrecord", tfrecord.None, make([]byte, 2000))
	for _, cmd := range [][]string{{"cat"}, {"head"}, {"count"}, {"verify"}, {"schema"},
		{"convert", "--out", filepath.Join(dir, "out")}, {"bench"}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, out, errOut := run(t, append(cmd, bomb)...)
		runtime.ReadMemStats(&after)
		want := bomb + ": record size too large (314572800 bytes, more than the limit of 268435456) at 0"
		if cmd[0] != "bench" {
			want += "; --max-record-size raises the limit"
		}
		if code == 0 || !strings.Contains(out+errOut, want) {
			t.Errorf("%v: exit %d, output %q %q; want %q", cmd, code, out, errOut, want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%v: allocated %d bytes to refuse the bomb", cmd, alloc)
		}

		args := append(cmd, "--max-record-size", "1000", small)
		if code, out, errOut := run(t, args...); code == 0 || !strings.Contains(out+errOut, "more than the limit of 1000") {
			t.Errorf("%v: exit %d, output %q %q", args, code, out, errOut)
		}
		args = append(cmd, "--max-record-size", "2000", small)
		if code, _, errOut := run(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	if code, _, errOut := run(t, "count", "--max-record-size", "0", small); code == 0 || !strings.Contains(errOut, "--max-record-size must be at least 1") {
		t.Errorf("--max-record-size 0: exit %d, %q", code, errOut)
	}
	if code, out, _ := run(t, "count", "--help"); code != 0 || !strings.Contains(out, "--max-record-size") || !strings.Contains(out, "decompression bomb") {
		t.Errorf("count --help does not explain --max-record-size: %q", out)
	}
}

// "-" and /dev/stdin read records from standard input, a pipe that cannot
// be read at an offset, in every compression, for every command that
// reads records.
func TestStdin(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		data, err := os.ReadFile(writeExamples(t, dir, "in", 3, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"-", "/dev/stdin"} {
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"count"}, "3\t" + name + "\n"},
				{[]string{"cat", "--keys"}, `{"key":"` + name + `:0","features":{"label":{"int64":[0]},"x":{"float":[0]}}}`},
				{[]string{"head", "-n", "1"}, `{"features":{"label":{"int64":[0]},"x":{"float":[0]}}}` + "\n"},
				{[]string{"verify"}, "3 good records in 1 file: 0 bad records\n"},
				{[]string{"schema"}, "3 records in 1 file"},
				{[]string{"convert", "--out", filepath.Join(dir, "out")}, "wrote 3 records"},
			} {
				args := append(tc.args, name)
				err, out, _ := runIn(t, onlyReader{bytes.NewReader(data)}, args...)
				if err != nil || !strings.Contains(out, tc.want) {
					t.Errorf("%v: %v, %q; want %q", c, args, err, out)
				}
			}
		}
	}
	// Standard input among files, in argument order.
	a := writeExamples(t, dir, "a.tfrecord", 2, tfrecord.None)
	data, _ := os.ReadFile(writeExamples(t, dir, "b.tfrecord", 4, tfrecord.Gzip))
	err, out, _ := runIn(t, onlyReader{bytes.NewReader(data)}, "count", a, "-")
	if want := "2\t" + a + "\n4\t-\n6\ttotal\n"; err != nil || out != want {
		t.Errorf("count a -: %v, %q; want %q", err, out, want)
	}
	// It can be read only once.
	for _, args := range [][]string{{"count", "-", "-"}, {"cat", "-", a, "/dev/stdin"}} {
		err, _, _ := runIn(t, onlyReader{bytes.NewReader(data)}, args...)
		if err == nil || !strings.Contains(err.Error(), "standard input is already named") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// Bad data on standard input is named as such.
	err, _, _ = runIn(t, onlyReader{bytes.NewReader(data[:len(data)-10])}, "count", "-")
	if err == nil || !strings.Contains(err.Error(), "-: truncated record") {
		t.Errorf("truncated standard input: %v", err)
	}
}

// onlyReader hides every method but Read, as a pipe has none.
type onlyReader struct{ io.Reader }

// An existing file whose name holds glob characters is that file, not a
// pattern matching others; a name that is no file is still a pattern.
func TestLiteralGlobNames(t *testing.T) {
	dir := t.TempDir()
	weird := writeExamples(t, dir, "weird [v1].tfrecord", 3, tfrecord.None)
	writeExamples(t, dir, "weird v.tfrecord", 5, tfrecord.None) // what the pattern matches
	star := writeExamples(t, dir, "*.tfrecord", 2, tfrecord.None)
	for _, tc := range []struct{ name, want string }{
		{weird, "3\t" + weird + "\n"},
		{star, "2\t" + star + "\n"},
		{filepath.Join(dir, "weird [x1].tfrecord"), "0"}, // no such file: a pattern matching nothing
		{filepath.Join(dir, "weird [uv].tfrecord"), "5\t" + filepath.Join(dir, "weird v.tfrecord") + "\n"},
	} {
		code, out, errOut := run(t, "count", tc.name)
		if tc.want == "0" {
			if code == 0 || !strings.Contains(errOut, "no such file (the pattern matches nothing)") {
				t.Errorf("count %q: exit %d, %q %q", tc.name, code, out, errOut)
			}
			continue
		}
		if code != 0 || out != tc.want {
			t.Errorf("count %q: exit %d, %q %q; want %q", tc.name, code, out, errOut, tc.want)
		}
	}

	// The same in an object store.
	for _, tc := range []struct {
		out string
		n   int
	}{{"mem://literal/weird [v1]", 3}, {"mem://literal/weird v", 5}} {
		in := writeExamples(t, dir, "in.tfrecord", tc.n, tfrecord.None)
		if code, _, errOut := run(t, "convert", in, "--out", tc.out); code != 0 {
			t.Fatalf("convert to %s: %s", tc.out, errOut)
		}
	}
	name := "mem://literal/weird [v1].tfrecord"
	if code, out, errOut := run(t, "count", name); code != 0 || out != "3\t"+name+"\n" {
		t.Errorf("count %q: exit %d, %q %q", name, code, out, errOut)
	}
}

// A read that scans a damaged stretch for the next record ends when the
// command is interrupted, not at the stretch's end (audit 57: verify and
// convert --skip-corrupt answered a signal 30 s late in 3 GB of zeros).
func TestDamagedStretchScanEndsOnCancel(t *testing.T) {
	dir := t.TempDir()
	name := writeRecords(t, dir, "f.tfrecord", tfrecord.None, []byte("one"))
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 16<<20)); err != nil { // no header anywhere
		t.Fatal(err)
	}
	f.Close()
	rf, err := newRecordFiles("auto", newTally(), tfrecord.SkipCorrupt())
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	ctx, cancel := context.WithCancel(t.Context())
	if err := rf.open(ctx, name); err != nil {
		t.Fatal(err)
	}
	if rec, err := rf.next(ctx); err != nil || string(rec) != "one" {
		t.Fatalf("first record = %q, %v", rec, err)
	}
	cancel()
	if rec, err := rf.next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("next, cancelled, in 16 MB of damage = %q, %v; want context.Canceled", rec, err)
	}
}

// A name without glob characters that cannot be looked up says why, not
// that a pattern matches nothing (audit 106): here a path longer than the
// system takes.
func TestNameThatCannotBeLookedUp(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d/", 2100), "x.tfrecord")
	code, _, errOut := run(t, "count", long)
	if code == 0 || !strings.Contains(errOut, "file name too long") || strings.Contains(errOut, "matches nothing") {
		t.Errorf("count of a %d-byte path: exit %d, %q; want the lookup's error", len(long), code, errOut)
	}
}

// A pipe named twice is refused before either name is opened: two readers
// would each take part of its data (audit 106).
func TestPipeNamedTwice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.tfrecord")
	if err := fifotest.Make(fifo); err != nil {
		t.Skip(err)
	}
	for _, cmd := range []string{"count", "verify", "cat"} {
		code, _, errOut := run(t, cmd, fifo, filepath.Join(dir, ".", "pipe.tfrecord"))
		if code == 0 || !strings.Contains(errOut, "the same pipe as "+fifo) {
			t.Errorf("%s of one pipe by two names: exit %d, %q", cmd, code, errOut)
		}
	}
}
