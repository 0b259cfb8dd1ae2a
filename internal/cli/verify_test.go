package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

func TestVerifyClean(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, "a.tfrecord", 4, tfrecord.None)
	writeExamples(t, dir, "b.tfrecord.zlib", 3, tfrecord.Zlib)
	code, out, errOut := run(t, "verify", filepath.Join(dir, "*"))
	if code != 0 || out != "7 good records in 2 files: 0 bad records\n" || errOut != "" {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
}

// verify reports each corrupt record's file and offset, goes on past data
// CRC and length CRC damage (DECODERS "TFRecord framing"), stops a file at
// truncation, checks the other files, and exits non-zero.
func TestVerifyCorrupt(t *testing.T) {
	dir := t.TempDir()
	n := len(example.New().Int64("label", 0).Float("x", 0).Marshal()) + 16 // every record's framed size
	damage := func(name string, recs int, fn func([]byte) []byte) {
		p := writeExamples(t, dir, name, recs, tfrecord.None)
		data, _ := os.ReadFile(p)
		os.WriteFile(p, fn(data), 0o644)
	}
	damage("a-data.tfrecord", 5, func(b []byte) []byte {
		b[1*n+12] ^= 1 // record 1's data
		b[3*n+12] ^= 1 // record 3's data
		return b
	})
	damage("b-length.tfrecord", 5, func(b []byte) []byte {
		b[2*n] ^= 1 // record 2's length: the reader resyncs at record 3
		return b
	})
	damage("c-adjacent.tfrecord", 5, func(b []byte) []byte {
		b[1*n+12] ^= 1 // records 1 and 2, back to back
		b[2*n+12] ^= 1
		return b
	})
	damage("d-truncated.tfrecord", 3, func(b []byte) []byte { return b[:len(b)-5] })
	writeExamples(t, dir, "e-good.tfrecord.gz", 2, tfrecord.Gzip)

	code, out, errOut := run(t, "verify", filepath.Join(dir, "*"))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	golden(t, "verify_corrupt", dir, out)
	// Files checked at once report in the files' order all the same.
	for _, parallel := range []string{"1", "2", "16"} {
		if c, o, e := run(t, "verify", "--parallel", parallel, filepath.Join(dir, "*")); c != code || o != out || e != errOut {
			t.Errorf("--parallel %s: exit %d, output\n%s%s", parallel, c, o, e)
		}
	}
	if errOut != "sluice: 6 bad records in 4 files\n" {
		t.Errorf("stderr %q", errOut)
	}
	// The offsets are the damaged records' starts.
	for _, want := range []string{
		fmt.Sprintf("a-data.tfrecord: corrupt record at offset %d (%d bytes skipped)", n, n),
		fmt.Sprintf("a-data.tfrecord: corrupt record at offset %d (%d bytes skipped)", 3*n, n),
		fmt.Sprintf("b-length.tfrecord: corrupt record at offset %d (%d bytes skipped)", 2*n, n),
		fmt.Sprintf("c-adjacent.tfrecord: 2 corrupt records at offsets %d to %d", n, 3*n),
		fmt.Sprintf("d-truncated.tfrecord: truncated record at %d", 2*n),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// verify checks a Parquet file as convert --from parquet reads it: every
// page, checksums included, every value; rows count as records. A flipped
// byte in a page sluice wrote (with CRCs) is found and named, a cut file
// fails, and columns the reader does not read are named as not checked.
func TestVerifyParquet(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(parquetTestdata, "sluice_snappy.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ok := writeFile(t, filepath.Join(dir, "ok.parquet"), good)
	flipped := append([]byte(nil), good...)
	flipped[200] ^= 0x10 // inside the first page's data
	bad := writeFile(t, filepath.Join(dir, "bad.parquet"), flipped)
	cut := writeFile(t, filepath.Join(dir, "cut.parquet"), good[:len(good)-9])
	for _, tc := range []struct {
		files []string
		code  int
		want  []string
	}{
		{[]string{ok}, 0, []string{"300 good records in 1 file: 0 bad records"}},
		{[]string{bad, ok}, 1, []string{bad + `: parquet: row 0, column "id", row group 0, page at offset 4: page CRC mismatch`, "300 good records in 2 files: 1 bad record"}},
		{[]string{cut}, 1, []string{cut + ": parquet:", "0 good records in 1 file: 1 bad record"}},
		{[]string{filepath.Join(parquetTestdata, "map.parquet")}, 0, []string{"not checked: columns m.key_value.key, m.key_value.value", "2 good records"}},
	} {
		code, out, _ := run(t, append([]string{"verify"}, tc.files...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.files, code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output %q lacks %q", tc.files, out, w)
			}
		}
	}
}

// Damage in a compressed stream garbles what follows it, so verify and
// convert --skip-corrupt count damaged stretches and the bytes they span,
// not "bad records": the reader's count of records in garbage says
// nothing of how many were lost.
func TestCompressedDamageCounts(t *testing.T) {
	dir := t.TempDir()
	recs := make([][]byte, 3000)
	for i := range recs {
		recs[i] = example.New().Int64("label", int64(i)).Bytes("pad", bytes.Repeat([]byte{byte(i), byte(i >> 8), 7}, 100)).Marshal()
	}
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib} {
		name := "d.tfrecord" + outputExt[c][len(".tfrecord"):]
		path := writeRecords(t, dir, name, c, recs...)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/3] ^= 0x10
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, out, errOut := run(t, "verify", path)
		_, cout, cerr := run(t, "convert", "--skip-corrupt", path, "--out", filepath.Join(dir, "out"))
		for _, got := range []string{out + errOut, cout + cerr} {
			if !strings.Contains(got, "damaged stretch") || !strings.Contains(got, "of compressed data (") || strings.Contains(got, "bad record") {
				t.Errorf("%v: %q; want damaged stretches of compressed data, no bad records", c, got)
			}
		}
	}
}

// verify of standard input interrupted while it waits for the first bytes
// gives neither a verdict on the input nor a summary of the run (audit 78:
// "-: context canceled" and "1 file not read through" before
// "interrupted").
func TestVerifyInterruptedStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // a writer that never writes
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var out, errOut bytes.Buffer
	root := newRootCmd(&out, &errOut)
	root.SetIn(r)
	root.SetArgs([]string{"verify", "-"})
	if err := root.ExecuteContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("verify -: %v, want the context's error", err)
	}
	if out.Len() > 0 || errOut.Len() > 0 {
		t.Errorf("output of an interrupted run: %q, %q", out.String(), errOut.String())
	}
}

// unlistableFS serves one file, and refuses to list its folder for the
// temporaries of interrupted writes: as a folder a user can read files of
// but not list.
type unlistableFS struct {
	name string
	data []byte
}

func (u unlistableFS) Open(_ context.Context, name string) (storage.File, error) {
	if name != u.name {
		return nil, fs.ErrNotExist
	}
	return &memFile{Reader: bytes.NewReader(u.data), name: name}, nil
}

func (unlistableFS) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}

func (u unlistableFS) Glob(_ context.Context, pattern string) ([]string, error) {
	switch {
	case pattern == u.name:
		return []string{u.name}, nil
	case strings.HasSuffix(pattern, "/.*"+storage.TempMarker+"*"):
		return nil, fs.ErrPermission // the listing of the whole folder
	}
	return nil, nil
}

type memFile struct {
	*bytes.Reader
	name string
}

func (f *memFile) Close() error { return nil }
func (f *memFile) Name() string { return f.name }

// A folder whose leftovers cannot be looked for is said so, and its files
// are checked all the same: the listing's error had ended verify.
func TestVerifyUnlistableFolder(t *testing.T) {
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	w.Write([]byte("one"))
	w.Close()
	storage.Register("unlistable", unlistableFS{name: "unlistable://b/x.tfrecord", data: buf.Bytes()})
	t.Cleanup(func() { storage.Unregister("unlistable") })
	code, stdout, errOut := run(t, "verify", "unlistable://b/x.tfrecord")
	if code != 0 || !strings.Contains(stdout, "1 good record") || !strings.Contains(errOut, "not looking for the leftovers") {
		t.Errorf("verify: exit %d, %q, %q; want 0, the file checked, and a note", code, stdout, errOut)
	}
}

// A read of standard input ended by the command's context is an
// interruption even while the file's own context, a child of it, is not
// yet done (a child is cancelled a moment after its parent): it was
// counted as a file not read through (1 CI run in several under load).
func TestVerifyStdinInterruptedBeforeTheFilesContext(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // a writer that never writes
	defer r.Close()
	command, cancel := context.WithCancel(context.Background())
	cancel()
	set := &readSettings{maxRecord: defaultMaxRecordSize, stdin: &stdinReader{ctx: command, r: r}}
	// The file's context, not yet cancelled, as forEachFile's child may be.
	file := context.WithValue(context.Background(), readSettingsKey{}, set)
	rf, err := newRecordFiles("", newTally())
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	v, err := verifyFile(file, rf, "-", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("verifyFile of interrupted standard input: verdict %+v, error %v; want the command's context's error", v, err)
	}
}
