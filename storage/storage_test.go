package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("contents of "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScheme(t *testing.T) {
	tests := []struct{ name, want string }{
		{"data/train.tfrecord", ""},
		{"/abs/path", ""},
		{"file:///abs/path", "file"},
		{"S3://bucket/key", "s3"},
		{"gs://b/k", "gs"},
		{"s3+x.y-z://b", "s3+x.y-z"},
		{`C:\data\x`, ""},
		{"://nothing", ""},
		{"1s://bad", ""},
		{"a b://bad", ""},
		{"dir/with://inside", ""},
	}
	for _, tt := range tests {
		if got := storage.Scheme(tt.name); got != tt.want {
			t.Errorf("Scheme(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCreateOpenRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{filepath.Join(dir, "a.bin"), "file://" + filepath.Join(dir, "b.bin")} {
		w, err := storage.Create(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		want := []byte("hello, sluice")
		if _, err := w.Write(want); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := storage.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size() != int64(len(want)) || f.Name() != name {
			t.Errorf("%s: Size, Name = %d, %q", name, f.Size(), f.Name())
		}
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: ReadAll = %q, %v", name, got, err)
		}
		part := make([]byte, 6)
		if _, err := f.ReadAt(part, 7); err != nil || string(part) != "sluice" {
			t.Errorf("%s: ReadAt = %q, %v", name, part, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenErrorsNamePath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.tfrecord")
	_, err := storage.Open(ctx, missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open(missing) = %v; want ErrNotExist naming the path", err)
	}
	_, err = storage.Open(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(dir) = %v; want an error naming the path", err)
	}
	_, err = storage.Create(ctx, filepath.Join(dir, "no", "such", "dir", "x"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no/such/dir") {
		t.Errorf("Create in missing dir = %v", err)
	}
	for _, name := range []string{"nope://bucket/key", "nope://bucket/*"} {
		if _, err := storage.Open(ctx, name); !errors.Is(err, storage.ErrUnsupportedScheme) || !strings.Contains(err.Error(), name) {
			t.Errorf("Open(%q) = %v", name, err)
		}
		if _, err := storage.Glob(ctx, name); !errors.Is(err, storage.ErrUnsupportedScheme) {
			t.Errorf("Glob(%q) = %v", name, err)
		}
		if _, err := storage.Create(ctx, name); !errors.Is(err, storage.ErrUnsupportedScheme) {
			t.Errorf("Create(%q) = %v", name, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	name := filepath.Join(t.TempDir(), "x")
	if _, err := storage.Create(ctx, name); !errors.Is(err, context.Canceled) {
		t.Errorf("Create = %v", err)
	}
	if _, err := storage.Open(ctx, name); !errors.Is(err, context.Canceled) {
		t.Errorf("Open = %v", err)
	}
	if _, err := storage.Glob(ctx, name); !errors.Is(err, context.Canceled) {
		t.Errorf("Glob = %v", err)
	}
}

// match_filenames_once returns the matches sorted; the glob may have
// wildcards in directory elements too.
func TestGlobSorted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, "b/train-1.tfrecord", "a/train-2.tfrecord", "a/train-10.tfrecord",
		"b/train-0.tfrecord", "a/eval-0.tfrecord", "c/train-x.txt")
	tests := []struct {
		pattern string
		want    []string
	}{
		{"*/train-*.tfrecord", []string{"a/train-10.tfrecord", "a/train-2.tfrecord", "b/train-0.tfrecord", "b/train-1.tfrecord"}},
		{"b/train-?.tfrecord", []string{"b/train-0.tfrecord", "b/train-1.tfrecord"}},
		{"[ac]/*", []string{"a/eval-0.tfrecord", "a/train-10.tfrecord", "a/train-2.tfrecord", "c/train-x.txt"}},
		{"a/eval-0.tfrecord", []string{"a/eval-0.tfrecord"}},
		{"*/none-*", nil},
	}
	for _, tt := range tests {
		got, err := storage.Glob(ctx, filepath.Join(dir, tt.pattern))
		if err != nil {
			t.Fatalf("Glob(%q): %v", tt.pattern, err)
		}
		var want []string
		for _, w := range tt.want {
			want = append(want, filepath.Join(dir, w))
		}
		if !slices.Equal(got, want) {
			t.Errorf("Glob(%q) = %q, want %q", tt.pattern, got, want)
		}
		// file:// patterns answer with file:// names.
		got, err = storage.Glob(ctx, "file://"+filepath.Join(dir, tt.pattern))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i] = "file://" + want[i]
		}
		if !slices.Equal(got, want) {
			t.Errorf("Glob(file://%q) = %q, want %q", tt.pattern, got, want)
		}
	}
	if _, err := storage.Glob(ctx, filepath.Join(dir, "[")); !errors.Is(err, path.ErrBadPattern) && !errors.Is(err, filepath.ErrBadPattern) {
		t.Errorf("Glob(bad pattern) = %v, want ErrBadPattern", err)
	}
}

// memFS is an object store stand-in: a registered scheme's FS gets the
// full names.
type memFS struct{ files map[string]string }

type memFile struct {
	*strings.Reader
	name string
}

func (f memFile) Close() error { return nil }
func (f memFile) Name() string { return f.name }

type memWriter struct {
	fs   *memFS
	name string
	bytes.Buffer
}

func (w *memWriter) Close() error { w.fs.files[w.name] = w.String(); return nil }

func (m *memFS) Open(_ context.Context, name string) (storage.File, error) {
	s, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("mem: open %s: %w", name, fs.ErrNotExist)
	}
	return memFile{strings.NewReader(s), name}, nil
}

func (m *memFS) Create(_ context.Context, name string) (io.WriteCloser, error) {
	return &memWriter{fs: m, name: name}, nil
}

func (m *memFS) Glob(_ context.Context, pattern string) ([]string, error) {
	var out []string
	for n := range m.files {
		if ok, err := path.Match(pattern, n); err != nil {
			return nil, err
		} else if ok {
			out = append(out, n)
		}
	}
	return out, nil
}

func TestRegisterScheme(t *testing.T) {
	ctx := context.Background()
	m := &memFS{files: map[string]string{}}
	storage.Register("MEMTEST", m)
	if !slices.Contains(storage.Schemes(), "memtest") || !slices.Contains(storage.Schemes(), "file") {
		t.Fatalf("Schemes() = %q", storage.Schemes())
	}
	for _, n := range []string{"memtest://b/z", "memtest://b/a", "memtest://b/m", "memtest://c/a"} {
		w, err := storage.Create(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, n)
		w.Close()
	}
	got, err := storage.Glob(ctx, "memtest://b/*")
	want := []string{"memtest://b/a", "memtest://b/m", "memtest://b/z"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Glob = %q, %v; want %q (sorted)", got, err, want)
	}
	// The scheme is case-insensitive; the name reaches the FS as written
	// (memFS holds no "MemTest://" names, so it answers not-exist).
	if _, err := storage.Open(ctx, "MemTest://b/m"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(MemTest://b/m) = %v; want memFS's not-exist error", err)
	}
	f, err := storage.Open(ctx, "memtest://b/m")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	if string(b) != "memtest://b/m" || f.Size() != int64(len(b)) {
		t.Errorf("read %q size %d", b, f.Size())
	}

	// Registered and Unregister let a caller put things back as they were.
	if got, ok := storage.Registered("MemTest"); !ok || got != storage.FS(m) {
		t.Errorf("Registered(MemTest) = %v, %v", got, ok)
	}
	storage.Unregister("memtest")
	if _, ok := storage.Registered("memtest"); ok {
		t.Error("memtest still registered")
	}
	if _, err := storage.Open(ctx, "memtest://b/m"); !errors.Is(err, storage.ErrUnsupportedScheme) {
		t.Errorf("Open after Unregister = %v, want ErrUnsupportedScheme", err)
	}
}

func ExampleGlob() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "storage-example")
	defer os.RemoveAll(dir)
	for _, n := range []string{"train-2.tfrecord", "train-0.tfrecord", "eval-0.tfrecord", "train-1.tfrecord"} {
		w, _ := storage.Create(ctx, filepath.Join(dir, n))
		w.Close()
	}
	names, err := storage.Glob(ctx, filepath.Join(dir, "train-*.tfrecord"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range names {
		fmt.Println(filepath.Base(n))
	}
	// Output:
	// train-0.tfrecord
	// train-1.tfrecord
	// train-2.tfrecord
}

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "storage-example")
	defer os.RemoveAll(dir)
	name := "file://" + filepath.Join(dir, "hello.txt")

	w, err := storage.Create(ctx, name)
	if err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(w, "hello, sluice\n")
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	f, err := storage.Open(ctx, name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	fmt.Printf("%d bytes: %s", f.Size(), b)

	_, err = storage.Open(ctx, "s4://bucket/key")
	fmt.Println(errors.Is(err, storage.ErrUnsupportedScheme))
	// Output:
	// 14 bytes: hello, sluice
	// true
}

// Match takes a name that is a file as that file, glob characters and
// all, and any other name with them as a pattern; names without them are
// not looked up. The same holds in a registered FS.
func TestMatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, "a[1].tfrecord", "a1.tfrecord", "b*.tfrecord", "bx.tfrecord")
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "c[1].tfrecord")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "c1.tfrecord")
	m := &memFS{files: map[string]string{"memmatch://d/e[1]": "x", "memmatch://d/e1": "y", "memmatch://d/e2": "z"}}
	storage.Register("memmatch", m)
	defer storage.Unregister("memmatch")
	local := func(names ...string) []string {
		for i, n := range names {
			names[i] = filepath.Join(dir, n)
		}
		return names
	}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{filepath.Join(dir, "a[1].tfrecord"), local("a[1].tfrecord")},
		{filepath.Join(dir, "b*.tfrecord"), local("b*.tfrecord")},
		{filepath.Join(dir, "a[0-9].tfrecord"), local("a1.tfrecord")},
		{filepath.Join(dir, "b?.tfrecord"), local("b*.tfrecord", "bx.tfrecord")},
		{filepath.Join(dir, "a[2].tfrecord"), nil},
		// A link that leads nowhere is there: its open names it.
		{filepath.Join(dir, "c[1].tfrecord"), local("c[1].tfrecord")},
		// Not looked up.
		{filepath.Join(dir, "none.tfrecord"), local("none.tfrecord")},
		{"memmatch://d/e[1]", []string{"memmatch://d/e[1]"}},
		{"memmatch://d/e[2]", []string{"memmatch://d/e2"}},
		{"memmatch://d/e?", []string{"memmatch://d/e1", "memmatch://d/e2"}},
	} {
		got, err := storage.Match(ctx, tt.name)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// A pattern built from a quoted folder name matches in that folder only,
// whatever glob characters its name holds.
func TestQuoteMeta(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dirs := []string{"x[1]", "x*", "x?", `x\y`, "x[", "plain", "x[1]\xff", "\xc3*"}
	for _, dir := range dirs {
		writeFiles(t, base, dir+"/train-0.tfrecord", dir+"/train-1.tfrecord")
	}
	writeFiles(t, base, "x1/train-9.tfrecord", "xy/train-9.tfrecord", "x1\xff/train-9.tfrecord")
	for _, dir := range dirs {
		p := filepath.Join(base, dir)
		got, err := storage.Glob(ctx, storage.QuoteMeta(p)+"/train-*")
		want := []string{p + "/train-0.tfrecord", p + "/train-1.tfrecord"}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Glob(QuoteMeta(%q)+\"/train-*\") = %q, %v; want %q", p, got, err, want)
		}
	}
}

// A pattern of a quoted name matches that name, whatever its bytes.
func FuzzQuoteMeta(f *testing.F) {
	for _, s := range []string{"", "plain", "a[1]", "b*c?", `x\y`, "[", "]", "[!a-z]", "a\xffb[", "\xc3*", "é世[^]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "/") {
			return // path.Match matches one element
		}
		if ok, err := path.Match(storage.QuoteMeta(s), s); !ok || err != nil {
			t.Fatalf("path.Match(QuoteMeta(%q) = %q, %q) = %v, %v", s, storage.QuoteMeta(s), s, ok, err)
		}
	})
}
