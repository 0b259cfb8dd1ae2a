package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/demo/demotest"
	"github.com/sluiceml/sluice/internal/fifotest"
	"github.com/sluiceml/sluice/internal/interrupt"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// ls returns the names in dir, sorted.
func ls(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Output that is also an input is refused before anything is touched,
// naming both, however the names are spelled.
func TestConvertRefusesToOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	x := writeExamples(t, dir, "x.tfrecord", 5, tfrecord.None)
	gz := writeExamples(t, dir, "y.tfrecord.gz", 5, tfrecord.Gzip)
	shards := []string{
		writeExamples(t, dir, "data-00000-of-00002.tfrecord", 3, tfrecord.None),
		writeExamples(t, dir, "data-00001-of-00002.tfrecord", 3, tfrecord.None),
	}
	if err := os.Symlink(x, filepath.Join(dir, "link.tfrecord")); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, n := range append([]string{x, gz}, shards...) {
		before[n], _ = os.ReadFile(n)
	}
	for _, tc := range []struct {
		name string
		args []string
		in   string // the input the message must name
	}{
		{"same name", []string{"convert", x, "--out", filepath.Join(dir, "x")}, x},
		{"relative name", []string{"convert", x, "--out", filepath.Join(dir, "sub", "..", "x")}, x},
		{"shuffled", []string{"convert", x, "--out", filepath.Join(dir, "x"), "--shuffle"}, x},
		{"compressed", []string{"convert", gz, "--out", filepath.Join(dir, "y"), "--compression", "GZIP"}, gz},
		{"through a link", []string{"convert", filepath.Join(dir, "link.tfrecord"), "--out", filepath.Join(dir, "x")}, "link.tfrecord"},
		{"reshard onto itself", []string{"convert", filepath.Join(dir, "data-*"), "--out", filepath.Join(dir, "data"), "--shards", "2"}, shards[0]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dirBefore := ls(t, dir)
			code, out, errOut := run(t, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.in) || !strings.Contains(errOut, "--out") {
				t.Errorf("exit %d, stdout %q, stderr %q: want a refusal naming %s", code, out, errOut, tc.in)
			}
			for n, b := range before {
				if got, _ := os.ReadFile(n); !bytes.Equal(got, b) {
					t.Errorf("%s changed", n)
				}
			}
			if got := ls(t, dir); !slices.Equal(got, dirBefore) {
				t.Errorf("files %q, want %q", got, dirBefore)
			}
		})
	}
	// Resharding into another shard count writes other names: allowed.
	if code, _, errOut := run(t, "convert", filepath.Join(dir, "data-*"), "--out", filepath.Join(dir, "data"), "--shards", "3"); code != 0 {
		t.Errorf("resharding 2 → 3 files: exit %d, %s", code, errOut)
	}
}

// stallFS serves "stall://NAME": n records, then a read that blocks
// until the context the file was opened with ends, as an object store
// read does. Its reads signal blocked the first time they block. With
// stallOpen set, the opens before the stallOpen'th end instead: a
// command opens its input once for its size, then once a pass over it.
type stallFS struct {
	data      []byte
	blocked   chan struct{}
	once      sync.Once
	stallOpen int
	opens     int
}

func newStallFS(t testing.TB, n int) *stallFS {
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b)
	for i := range n {
		w.Write(fmt.Appendf(nil, "record %d", i))
	}
	w.Close()
	return &stallFS{data: b.Bytes(), blocked: make(chan struct{})}
}

func (s *stallFS) Open(ctx context.Context, name string) (storage.File, error) {
	s.opens++
	return &stallFile{Reader: bytes.NewReader(s.data), fs: s, ctx: ctx, name: name, ends: s.opens < s.stallOpen}, nil
}
func (*stallFS) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}
func (*stallFS) Glob(_ context.Context, p string) ([]string, error) { return []string{p}, nil }

type stallFile struct {
	*bytes.Reader
	fs   *stallFS
	ctx  context.Context
	name string
	ends bool
}

func (f *stallFile) Read(p []byte) (int, error) {
	n, err := f.Reader.Read(p)
	if err == io.EOF && !f.ends {
		f.fs.once.Do(func() { close(f.fs.blocked) })
		<-f.ctx.Done()
		return 0, f.ctx.Err()
	}
	return n, err
}
func (f *stallFile) Size() int64  { return f.Reader.Size() + 1<<20 }
func (f *stallFile) Name() string { return f.name }
func (f *stallFile) Close() error { return nil }

func registerStall(t testing.TB, n int) *stallFS {
	s := newStallFS(t, n)
	storage.Register("stall", s)
	t.Cleanup(func() { storage.Unregister("stall") })
	return s
}

// A convert interrupted mid-run says so, exits 130 or 143, and leaves no
// output and no temporaries; existing files of the output's names stay as
// they were. The context's cause is what Run's signal handler sets.
func TestConvertInterrupted(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		args []string
	}{
		{syscall.SIGINT, 130, nil},
		{syscall.SIGTERM, 143, []string{"--shards", "3", "--compression", "GZIP"}},
		{syscall.SIGINT, 130, []string{"--shuffle", "--shards", "2"}},
	} {
		t.Run(fmt.Sprint(tc.sig, tc.args), func(t *testing.T) {
			s := registerStall(t, 1000)
			dir, tmp := t.TempDir(), t.TempDir()
			t.Setenv("TMPDIR", tmp) // where --shuffle's buckets go
			old := filepath.Join(dir, "out.tfrecord")
			if err := os.WriteFile(old, []byte("an earlier data set"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var out, errOut bytes.Buffer
			code := make(chan int)
			args := append([]string{"convert", "stall://in", "--input-compression", "NONE", "--out", filepath.Join(dir, "out")}, tc.args...)
			go func() { code <- Main(ctx, args, &out, &errOut) }()
			<-s.blocked // mid-run: records read, temporaries open
			if len(ls(t, dir)) < 2 {
				t.Errorf("no temporaries while converting: %q", ls(t, dir))
			}
			cancel(interrupt.Error{Signal: tc.sig})
			if got := <-code; got != tc.code {
				t.Errorf("exit %d, want %d", got, tc.code)
			}
			if errOut.String() != "sluice: interrupted\n" {
				t.Errorf("stderr %q, want sluice: interrupted", errOut.String())
			}
			if got := ls(t, dir); !slices.Equal(got, []string{"out.tfrecord"}) {
				t.Errorf("files left %q, want only the earlier out.tfrecord", got)
			}
			if b, _ := os.ReadFile(old); string(b) != "an earlier data set" {
				t.Errorf("the earlier out.tfrecord was changed to %q", b)
			}
			if got := ls(t, tmp); len(got) != 0 {
				t.Errorf("temporary files left in $TMPDIR: %q", got)
			}
		})
	}
}

// keepFS is the local file system under keep://, whose removals fail, as
// a store's deletes may when the network goes.
type keepFS struct{}

func (keepFS) path(name string) string { return strings.TrimPrefix(name, "keep://") }
func (k keepFS) Open(ctx context.Context, name string) (storage.File, error) {
	return storage.Local{}.Open(ctx, k.path(name))
}
func (k keepFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return storage.Local{}.Create(ctx, k.path(name))
}
func (k keepFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := storage.Local{}.Glob(ctx, k.path(pattern))
	for i := range names {
		names[i] = "keep://" + names[i]
	}
	return names, err
}
func (k keepFS) Rename(ctx context.Context, oldname, newname string) error {
	return storage.Local{}.Rename(ctx, k.path(oldname), k.path(newname))
}
func (keepFS) Remove(_ context.Context, name string) error {
	return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrPermission}
}

// An interrupted convert whose temporary could not be removed names it,
// rather than say only that it was interrupted (audit 47).
func TestConvertInterruptedNamesTemporaryLeft(t *testing.T) {
	s := registerStall(t, 1000)
	storage.Register("keep", keepFS{})
	defer storage.Unregister("keep")
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var out, errOut bytes.Buffer
	code := make(chan int)
	go func() {
		code <- Main(ctx, []string{"convert", "stall://in", "--input-compression", "NONE", "--out", "keep://" + dir + "/out"}, &out, &errOut)
	}()
	<-s.blocked
	cancel(interrupt.Error{Signal: syscall.SIGINT})
	if got := <-code; got != 130 {
		t.Errorf("exit %d, want 130", got)
	}
	left := ls(t, dir)
	if len(left) != 1 || !storage.IsTemp(left[0]) {
		t.Fatalf("files %q; want the temporary alone", left)
	}
	if msg := errOut.String(); !strings.HasPrefix(msg, "sluice: interrupted: ") || !strings.Contains(msg, left[0]) ||
		!strings.Contains(msg, storage.ErrTempLeft.Error()) {
		t.Errorf("stderr %q; want it to say interrupted and name the temporary %s", msg, left[0])
	}
}

// Leftovers of a killed write: verify reports them, whether given by a
// pattern or found beside a file it checks, and fails; the next convert
// to the same output removes them and says so.
func TestLeftoversOfKilledWrite(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 4, tfrecord.None)
	out := filepath.Join(dir, "out")
	if code, _, errOut := run(t, "convert", in, "--out", out, "--shards", "2"); code != 0 {
		t.Fatal(errOut)
	}
	finals, _ := filepath.Glob(out + "-*")
	// A killed writer of the same names: temporaries never committed.
	leftover := filepath.Join(dir, "."+filepath.Base(finals[0])+storage.TempMarker+storage.LockedTag+"dead01")
	writeExamples(t, dir, filepath.Base(leftover), 1, tfrecord.None)

	code, stdout, _ := run(t, "verify", finals[0])
	if code == 0 || !strings.Contains(stdout, leftover+": incomplete") || !strings.Contains(stdout, "1 incomplete file left by interrupted writes") {
		t.Errorf("verify of the finished file beside a leftover: exit %d, %q", code, stdout)
	}
	// The pattern does not match the hidden leftover; verify finds it
	// beside the file all the same, once.
	code, stdout, _ = run(t, "verify", out+"-*")
	if code == 0 || strings.Count(stdout, ": incomplete") != 1 || !strings.Contains(stdout, "4 good records in 2 files") {
		t.Errorf("verify by pattern: exit %d, %q", code, stdout)
	}
	code, stdout, _ = run(t, "verify", leftover)
	if code == 0 || !strings.Contains(stdout, leftover+": incomplete") {
		t.Errorf("verify of the leftover itself: exit %d, %q", code, stdout)
	}

	// A killed run to the same --out with other shards and compression,
	// and one to another output whose name begins alike.
	// The first is an earlier version's, which carries no lock: only its
	// age tells that its writer is gone.
	otherShards := filepath.Join(dir, ".out-00000-of-00003.tfrecord.gz"+storage.TempMarker+"dead02")
	writeExamples(t, dir, filepath.Base(otherShards), 1, tfrecord.None)
	aged := time.Now().Add(-2 * storage.AbandonedAfter)
	os.Chtimes(otherShards, aged, aged)
	otherOut := filepath.Join(dir, ".outer-00000-of-00002.tfrecord"+storage.TempMarker+"dead03")
	writeExamples(t, dir, filepath.Base(otherOut), 1, tfrecord.None)

	// verify by pattern also finds the leftover of a file that never
	// appeared, which sits beside no file it checks.
	code, stdout, _ = run(t, "verify", out+"-*")
	if code == 0 || !strings.Contains(stdout, otherShards+": incomplete") || strings.Contains(stdout, otherOut) ||
		!strings.Contains(stdout, "2 incomplete files left by interrupted writes") {
		t.Errorf("verify by pattern, a leftover without its file: exit %d, %q", code, stdout)
	}

	code, _, errOut := run(t, "convert", in, "--out", out, "--shards", "2")
	if code != 0 || !strings.Contains(errOut, "removed "+leftover+", left by an interrupted run") ||
		!strings.Contains(errOut, "removed "+otherShards+", left by an interrupted run") || strings.Contains(errOut, otherOut) {
		t.Errorf("convert over leftovers: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(otherOut); err != nil {
		t.Errorf("another output's leftover: %v", err)
	}
	os.Remove(otherOut)
	if code, stdout, _ := run(t, "verify", out+"-*"); code != 0 {
		t.Errorf("verify after the rerun: exit %d, %q", code, stdout)
	}
}

// A first write killed before any output was under its name leaves only
// temporaries: verify of the outputs' names or of a pattern for them
// reports those leftovers and fails, rather than saying the names match
// nothing and hiding them. A name with neither file nor leftover is still
// refused.
func TestVerifyOnlyLeftovers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	var left []string
	for i := range 2 {
		final := fmt.Sprintf("%s-%05d-of-00002.tfrecord", out, i)
		l := filepath.Join(dir, "."+filepath.Base(final)+storage.TempMarker+storage.LockedTag+"dead0"+strconv.Itoa(i))
		writeExamples(t, dir, filepath.Base(l), 1, tfrecord.None)
		left = append(left, l)
	}
	for _, tc := range []struct {
		args []string
		want []string // the leftovers reported
	}{
		{[]string{out + "-00000-of-00002.tfrecord"}, left[:1]},
		{[]string{out + "-*.tfrecord"}, left},
		{[]string{out + "-00001-of-00002.tfrecord", out + "-*"}, []string{left[1], left[0]}},
		{[]string{"--json", out + "-*"}, left},
	} {
		code, stdout, errOut := run(t, append([]string{"verify"}, tc.args...)...)
		if code != 1 {
			t.Errorf("verify %q: exit %d, want 1 (%q)", tc.args, code, errOut)
		}
		if tc.args[0] == "--json" {
			var report struct{ Incomplete []string }
			if err := json.Unmarshal([]byte(stdout), &report); err != nil || !slices.Equal(report.Incomplete, tc.want) {
				t.Errorf("verify %q: %v, %q", tc.args, err, stdout)
			}
			continue
		}
		for _, l := range tc.want {
			if !strings.Contains(stdout, l+": incomplete") {
				t.Errorf("verify %q does not report %s: %q", tc.args, l, stdout)
			}
		}
		if want := plural(len(tc.want), "incomplete file") + " left by interrupted writes"; !strings.Contains(stdout, "0 good records in 0 files") || !strings.Contains(stdout, want) {
			t.Errorf("verify %q: %q, want the summary to say %q", tc.args, stdout, want)
		}
	}
	code, _, errOut := run(t, "verify", filepath.Join(dir, "p-*"))
	if code != 1 || !strings.Contains(errOut, "matches nothing") {
		t.Errorf("verify of a pattern matching nothing at all: exit %d, %q", code, errOut)
	}
}

// The temporary of a write still running is no leftover: verify names it
// as being written, whether given, found beside a file it checks or by a
// pattern, and does not fail for it, but a name with nothing under it
// but such a temporary is no file yet; once the writer dies, the same
// file is a leftover.
func TestVerifyWriteRunning(t *testing.T) {
	dir := t.TempDir()
	done := writeExamples(t, dir, "data-0.tfrecord", 2, tfrecord.None)
	ctx := context.Background()
	beside, err := storage.CreatePending(ctx, done) // a rewrite under way
	if err != nil {
		t.Fatal(err)
	}
	defer beside.Abort()
	never, err := storage.CreatePending(ctx, filepath.Join(dir, "data-1.tfrecord")) // not yet under its name
	if err != nil {
		t.Fatal(err)
	}
	defer never.Abort()

	for _, args := range [][]string{{done}, {filepath.Join(dir, "data-*")}, {beside.TempName()}} {
		code, stdout, errOut := run(t, append([]string{"verify"}, args...)...)
		if code != 0 || strings.Contains(stdout, "incomplete") ||
			!strings.Contains(stdout, beside.TempName()+": being written") || !strings.Contains(stdout, "being written") {
			t.Errorf("verify %q while a write runs: exit %d, %q %q", args, code, stdout, errOut)
		}
	}
	code, stdout, _ := run(t, "verify", "--json", filepath.Join(dir, "data-*"))
	var report struct {
		Incomplete, Writing []string
	}
	if err := json.Unmarshal([]byte(stdout), &report); code != 0 || err != nil || len(report.Incomplete) != 0 ||
		!slices.Equal(report.Writing, []string{beside.TempName(), never.TempName()}) {
		t.Errorf("verify --json while writes run: exit %d, %v, %q", code, err, stdout)
	}
	// A name whose first write still runs names no file yet: `verify out
	// && train out` must not go on.
	for _, args := range [][]string{{filepath.Join(dir, "data-1.tfrecord")}, {"--json", filepath.Join(dir, "data-1*")}} {
		if code, stdout, errOut := run(t, append([]string{"verify"}, args...)...); code != 1 || !strings.Contains(errOut, "matches nothing") {
			t.Errorf("verify %q of a name whose first write runs: exit %d, %q %q", args, code, stdout, errOut)
		}
	}

	// The writer dies: its file stays, unlocked.
	temp := beside.TempName()
	os.Link(temp, temp+"x")
	beside.Abort()
	os.Rename(temp+"x", temp)
	code, stdout, _ = run(t, "verify", done)
	if code == 0 || !strings.Contains(stdout, temp+": incomplete") {
		t.Errorf("verify after the writer died: exit %d, %q", code, stdout)
	}
}

// Two converts to one --out started together may both find no other
// writer before either has created its temporaries; each looks again once
// its own exist (refuseOtherWriters), telling its own apart, so at least
// one refuses rather than both succeeding.
func TestRefuseOtherWriters(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	stem := filepath.Join(dir, "out")
	outputs := []string{stem + "-00000-of-00002.tfrecord", stem + "-00001-of-00002.tfrecord"}
	mine, err := recordio.NewShardedWriter(ctx, outputs, tfrecord.None)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Abort()
	if temps := mine.Temporaries(); len(temps) != 2 || !storage.IsTemp(temps[0]) || !strings.Contains(temps[1], "out-00001-of-00002") {
		t.Fatalf("Temporaries() = %q", temps)
	}
	if err := refuseOtherWriters(ctx, stem, outputs, mine.Temporaries()); err != nil {
		t.Errorf("its own temporaries alone: %v", err)
	}
	// The other run, with another shard count, created its own meanwhile.
	other, err := storage.CreatePending(ctx, stem+".tfrecord")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Abort()
	err = refuseOtherWriters(ctx, stem, outputs, mine.Temporaries())
	if err == nil || !strings.Contains(err.Error(), "another run is writing "+stem) || !strings.Contains(err.Error(), other.TempName()) {
		t.Errorf("beside another run's temporary: %v", err)
	}
}

// A leftover is not a data set's file to a pattern that matches every
// name (Go's * matches hidden names), and a leftover named as the input
// of a convert to the output it was left beside, to salvage its records,
// is read, not removed.
func TestLeftoversAreNotData(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	writeExamples(t, data, "part-0.tfrecord", 3, tfrecord.None)
	leftover := "." + "part-1.tfrecord" + storage.TempMarker + "dead01"
	writeExamples(t, data, leftover, 2, tfrecord.None)
	if code, stdout, errOut := run(t, "count", filepath.Join(data, "*")); code != 0 || stdout != "3\t"+filepath.Join(data, "part-0.tfrecord")+"\n" {
		t.Errorf("count of data/*: exit %d, %q %q; want the 3 records of part-0 alone", code, stdout, errOut)
	}
	out := filepath.Join(data, "part-1")
	code, _, errOut := run(t, "convert", filepath.Join(data, leftover), "--out", out)
	if code != 0 || strings.Contains(errOut, "removed") {
		t.Fatalf("convert of a leftover to its own output: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, leftover)); err != nil {
		t.Errorf("the input leftover: %v", err)
	}
	if code, stdout, _ := run(t, "count", out+".tfrecord"); code != 0 || !strings.HasPrefix(stdout, "2\t") {
		t.Errorf("count of the salvaged output: exit %d, %q", code, stdout)
	}
}

// --to parquet reads its input twice: a pipe would give its records to
// the first reading only, and a Parquet file of none.
func TestConvertToParquetRefusesAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.jsonl")
	if err := fifotest.Make(fifo); err != nil {
		t.Skip(err)
	}
	code, _, errOut := run(t, "convert", "--from", "jsonl", "--to", "parquet", fifo, "--out", filepath.Join(dir, "out"))
	if code == 0 || !strings.Contains(errOut, "not a regular file") {
		t.Errorf("convert --to parquet of a FIFO: exit %d, %q", code, errOut)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(m) != 0 {
		t.Errorf("files written: %v", m)
	}
}

// The demo refuses to write its files into the folder it reads --data
// from: its shards' names are those a data set's often are.
func TestDemoLeavesItsDataAlone(t *testing.T) {
	dir := t.TempDir()
	if err := demotest.WriteTFRecord(dir, "train", 60, 2, demotest.Raw, "image_raw", "label", 2); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		before[e.Name()] = b
	}
	code, _, errOut := run(t, "demo", "--data", dir, "--dir", dir+"/.", "--epochs", "1", "--quiet")
	if code == 0 || !strings.Contains(errOut, "is the --data folder") {
		t.Errorf("demo --data D --dir D: exit %d, %q", code, errOut)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != len(before) {
		t.Errorf("files %d, before %d", len(entries), len(before))
	}
	for _, e := range entries {
		if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); !bytes.Equal(b, before[e.Name()]) {
			t.Errorf("%s changed", e.Name())
		}
	}
}

// bench stopped by a signal does not report success.
func TestBenchInterrupted(t *testing.T) {
	dir := t.TempDir()
	f := writeExamples(t, dir, "a.tfrecord", 10, tfrecord.None)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupt.Error{Signal: syscall.SIGINT})
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"bench", f}, &out, &errOut); code != 130 || errOut.String() != "sluice: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want 130 and sluice: interrupted", code, errOut.String())
	}
}

// The demos remove the data they generate unless --dir asks to keep it,
// and their summaries say which.
func TestDemoRemovesItsData(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, args := range [][]string{
		{"demo", "--train", "300", "--test", "60", "--epochs", "1", "--quiet"},
		{"demo", "sequence", "--series", "100", "--max-len", "40", "--boundaries", "20", "--bucket-batch", "8,4", "--quiet"},
	} {
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, "removed at exit (--dir DIR keeps them)") {
			t.Errorf("%q: the summary does not say the files were removed:\n%s", args, out)
		}
		if got := ls(t, tmp); len(got) != 0 {
			t.Errorf("%q left %q in $TMPDIR", args, got)
		}
	}
	// Interrupted too.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupt.Error{Signal: syscall.SIGTERM})
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"demo", "--train", "300", "--test", "60", "--quiet"}, &out, &errOut); code != 143 {
		t.Errorf("interrupted demo: exit %d, %s", code, errOut.String())
	}
	if got := ls(t, tmp); len(got) != 0 {
		t.Errorf("the interrupted demo left %q in $TMPDIR", got)
	}
}

// A real SIGINT or SIGTERM to a running sluice (Run, as cmd/sluice calls
// it): the child is this test binary, running signalChild.
func TestRunSignals(t *testing.T) {
	if os.Getenv("SLUICE_SIGNAL_CHILD") != "" {
		t.Skip("in the child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGKILL, -1}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			cmd := exec.Command(exe, "-test.run=^TestSignalChild$")
			cmd.Env = append(os.Environ(), "SLUICE_SIGNAL_CHILD="+dir, "TMPDIR="+tmp)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || line != "blocked\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q, %v; stderr %s", line, err, errOut.String())
			}
			cmd.Process.Signal(tc.sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", got, tc.code, errOut.String())
			}
			// --shuffle's buckets have no names from the start: even
			// SIGKILL leaves nothing in $TMPDIR.
			if got := ls(t, tmp); len(got) != 0 {
				t.Errorf("files left in $TMPDIR: %q", got)
			}
			if tc.sig == syscall.SIGKILL {
				// Nothing under the final names; hidden temporaries,
				// which verify reports and the next convert removes.
				names, _ := filepath.Glob(filepath.Join(dir, "out-*"))
				left, _ := filepath.Glob(filepath.Join(dir, ".out-*"))
				if len(names) != 0 || len(left) != 2 {
					t.Fatalf("after SIGKILL: files %q, leftovers %q; want none and 2", names, left)
				}
				if code, stdout, _ := run(t, append([]string{"verify"}, left...)...); code == 0 || strings.Count(stdout, ": incomplete") != 2 {
					t.Errorf("verify of the leftovers: exit %d, %q", code, stdout)
				}
				return
			}
			if !strings.Contains(errOut.String(), "sluice: interrupted") {
				t.Errorf("stderr %q", errOut.String())
			}
			if got := ls(t, dir); len(got) != 0 {
				t.Errorf("files left: %q", got)
			}
		})
	}
}

func TestSignalChild(t *testing.T) {
	dir := os.Getenv("SLUICE_SIGNAL_CHILD")
	if dir == "" {
		t.Skip("run by TestRunSignals")
	}
	s := registerStall(t, 100)
	go func() {
		<-s.blocked
		fmt.Println("blocked")
	}()
	os.Exit(Run([]string{"convert", "stall://in", "--input-compression", "NONE", "--out", filepath.Join(dir, "out"), "--shards", "2", "--shuffle"}))
}

// An interrupted convert reading standard input stops though no more input
// comes (a terminal, or a pipe whose writer waits), and leaves no output
// and no temporaries.
func TestConvertFromStdinInterrupted(t *testing.T) {
	for _, from := range []string{"json", "csv", "tfrecord"} {
		t.Run(from, func(t *testing.T) {
			dir := t.TempDir()
			pr, pw := io.Pipe()
			defer pw.Close() // ends the read left blocked, for goleak
			var first []byte
			switch from {
			case "json":
				first = []byte(`{"features":{"a":{"int64":[1]}}}` + "\n")
			case "csv":
				first = []byte("a\n1\n")
			case "tfrecord":
				var buf bytes.Buffer
				w := tfrecord.NewWriter(&buf, tfrecord.None)
				w.Write([]byte("record"))
				w.Close()
				first = buf.Bytes()
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			root := newRootCmd(io.Discard, io.Discard)
			root.SetIn(pr)
			root.SetArgs([]string{"convert", "--from", from, "-", "--out", filepath.Join(dir, "out")})
			done := make(chan error)
			go func() { done <- root.ExecuteContext(ctx) }()
			// The first records are read, and the output's temporaries
			// made, before the input stops coming.
			if _, err := pw.Write(first); err != nil {
				t.Fatal(err)
			}
			for len(ls(t, dir)) == 0 {
				select {
				case err := <-done:
					t.Fatalf("convert ended before the interrupt: %v", err)
				case <-time.After(time.Millisecond):
				}
			}
			cancel(interrupt.Error{Signal: syscall.SIGINT})
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("convert still waits for input a minute after the interrupt")
			}
			if got := ls(t, dir); len(got) != 0 {
				t.Errorf("files left %q", got)
			}
		})
	}
}

// convert removes no temporary a running write holds. One of its own
// --out (a second convert to one output) makes it refuse, writing
// nothing: the two runs' renames would replace each other's files, both
// reporting success. Those of another output whose name begins like its
// own, dead or alive, it leaves alone.
func TestConvertLeavesLiveTemporaries(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 4, tfrecord.None)
	data := filepath.Join(dir, "data")
	ctx := t.Context()
	var live []*storage.Pending
	for _, final := range []string{"data.tfrecord", "data-00000-of-00002.tfrecord.gz", "data-val.tfrecord", "data.v2.tfrecord"} {
		p, err := storage.CreatePending(ctx, filepath.Join(dir, final))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Abort()
		p.Write([]byte("partial"))
		live = append(live, p)
	}
	deadOther := filepath.Join(dir, ".data-val-00000-of-00002.tfrecord"+storage.TempMarker+storage.LockedTag+"dead01")
	writeExamples(t, dir, filepath.Base(deadOther), 1, tfrecord.None)
	youngOld := filepath.Join(dir, ".data-00001-of-00002.tfrecord.gz"+storage.TempMarker+"dead02")
	writeExamples(t, dir, filepath.Base(youngOld), 1, tfrecord.None)

	for _, own := range []*storage.Pending{live[1], live[0]} { // in the order convert finds them
		code, _, errOut := run(t, "convert", in, "--out", data)
		if code == 0 || !strings.Contains(errOut, "another run is writing "+data) || !strings.Contains(errOut, own.TempName()) {
			t.Errorf("convert beside a running write of its own output: exit %d, %q", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "data.tfrecord")); err == nil {
			t.Error("the refused convert wrote its output")
		}
		if err := own.Commit(); err != nil {
			t.Errorf("the running write of %s: %v", own.Name(), err)
		}
		os.Remove(own.Name())
	}
	code, _, errOut := run(t, "convert", in, "--out", data)
	if code != 0 || strings.Contains(errOut, "removed") || !strings.Contains(errOut, "left "+youngOld+": another run may still be writing it") {
		t.Fatalf("convert beside other outputs' running writes: exit %d, %q", code, errOut)
	}
	for _, name := range []string{live[2].TempName(), live[3].TempName(), deadOther} {
		if strings.Contains(errOut, name) {
			t.Errorf("stderr mentions another output's temporary %s: %q", name, errOut)
		}
	}
	for _, name := range []string{live[2].TempName(), live[3].TempName(), deadOther, youngOld} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, p := range live[2:] {
		if err := p.Commit(); err != nil {
			t.Errorf("the running write of %s: %v", p.Name(), err)
		}
	}
}

// verify of a file whose name holds glob characters reports the leftovers
// beside it, not those of the files its name would match as a pattern
// (d1/'s, for d[1]/x.tfrecord: audit 106).
func TestLeftoversOfLiteralName(t *testing.T) {
	base := t.TempDir()
	for _, tc := range []struct{ file, other string }{
		{"d[1]/x.tfrecord", "d1/x.tfrecord"},
		{"o?.tfrecord", "oX.tfrecord"},
	} {
		file := filepath.Join(base, tc.file)
		os.MkdirAll(filepath.Dir(file), 0o755)
		writeExamples(t, filepath.Dir(file), filepath.Base(file), 2, tfrecord.None)
		other := filepath.Join(base, tc.other)
		os.MkdirAll(filepath.Dir(other), 0o755)
		leftover := filepath.Join(filepath.Dir(other), "."+filepath.Base(other)+storage.TempMarker+storage.LockedTag+"dead01")
		writeExamples(t, filepath.Dir(leftover), filepath.Base(leftover), 1, tfrecord.None)
		code, stdout, errOut := run(t, "verify", file)
		if code != 0 || strings.Contains(stdout, leftover) {
			t.Errorf("verify %s beside %s: exit %d, %q %q", tc.file, leftover, code, stdout, errOut)
		}
	}
}
