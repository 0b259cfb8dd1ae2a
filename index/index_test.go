package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/tfrecord"
)

// writeFile writes n records of varied sizes and returns the file's name
// and the offset where each record starts.
func writeFile(t testing.TB, dir, name string, n int, c tfrecord.Compression) (string, []int64) {
	t.Helper()
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b, c)
	var starts []int64
	var off int64
	for i := range n {
		rec := bytes.Repeat([]byte{byte(i)}, i%7*10)
		starts = append(starts, off)
		off += int64(len(rec)) + overhead
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, starts
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 50} {
		name, starts := writeFile(t, dir, fmt.Sprintf("f%d.tfrecord", n), n, tfrecord.None)
		x, err := Build(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if x.Len() != n {
			t.Fatalf("%d records indexed, want %d", x.Len(), n)
		}
		data, _ := os.ReadFile(name)
		for i, want := range starts {
			start, end := x.Record(i)
			if start != want {
				t.Fatalf("record %d starts at %d, want %d", i, start, want)
			}
			// The bytes [start, end) are one whole record.
			r := tfrecord.NewReader(bytes.NewReader(data[start:end]))
			rec, err := r.Next()
			if err != nil || !bytes.Equal(rec, bytes.Repeat([]byte{byte(i)}, i%7*10)) {
				t.Fatalf("record %d: %q, %v", i, rec, err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("record %d: more than one record in [%d, %d)", i, start, end)
			}
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	dir := t.TempDir()
	gz, _ := writeFile(t, dir, "f.tfrecord.gz", 5, tfrecord.Gzip)
	if _, err := Build(context.Background(), gz); !errors.Is(err, ErrCompressed) {
		t.Errorf("GZIP file: %v, want ErrCompressed", err)
	}
	name, starts := writeFile(t, dir, "bad.tfrecord", 5, tfrecord.None)
	data, _ := os.ReadFile(name)
	data[starts[3]+overhead-4+20]++ // record 3's data (30 bytes)
	os.WriteFile(name, data, 0o644)
	_, err := Build(context.Background(), name)
	if !errors.Is(err, tfrecord.ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprint(starts[3]+12))) {
		t.Errorf("corrupt record: %v, want ErrCorrupt at %d", err, starts[3]+12)
	}
}

// MaxRecordSize bounds the records Build reads: a record longer is
// refused from its length field, before its data is read.
func TestBuildMaxRecordSize(t *testing.T) {
	name, _ := writeFile(t, t.TempDir(), "f.tfrecord", 7, tfrecord.None) // records up to 60 bytes
	for _, tc := range []struct {
		opts    []BuildOption
		tooLong bool
	}{
		{nil, false},
		{[]BuildOption{MaxRecordSize(60)}, false},
		{[]BuildOption{MaxRecordSize(59)}, true},
	} {
		x, err := Build(context.Background(), name, tc.opts...)
		if tc.tooLong != errors.Is(err, tfrecord.ErrTooLarge) || err == nil && x.Len() != 7 {
			t.Errorf("%d options: %v, %v; want ErrTooLarge: %v", len(tc.opts), x, err, tc.tooLong)
		}
	}
}

// An index saved to the cache or beside its file is loaded back whole,
// and refused once its file changes.
func TestSaveLoad(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	ctx := context.Background()
	dir := t.TempDir()
	for _, beside := range []bool{false, true} {
		name, _ := writeFile(t, dir, fmt.Sprintf("f-%v.tfrecord", beside), 20, tfrecord.None)
		if _, err := Load(ctx, name); !errors.Is(err, ErrNoIndex) {
			t.Fatalf("before Save: %v, want ErrNoIndex", err)
		}
		x, err := Build(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		path, err := x.Save(ctx, beside)
		if err != nil {
			t.Fatal(err)
		}
		if beside != (path == Beside(name)) {
			t.Errorf("beside %v: saved to %s", beside, path)
		}
		y, err := Load(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if y.Len() != x.Len() || y.Size != x.Size || !y.ModTime.Equal(x.ModTime) {
			t.Fatalf("loaded %+v, saved %+v", y, x)
		}
		for i := range x.Len() {
			if a, b := x.Record(i); true {
				if c, d := y.Record(i); a != c || b != d {
					t.Fatalf("record %d: [%d, %d) loaded, [%d, %d) saved", i, c, d, a, b)
				}
			}
		}
		// Touched: same size, another modification time.
		later := x.ModTime.Add(time.Second)
		os.Chtimes(name, later, later)
		if _, err := Load(ctx, name); !errors.Is(err, ErrStale) {
			t.Errorf("after touching the file: %v, want ErrStale", err)
		}
		// LoadOrBuild builds a fresh one.
		z, err := LoadOrBuild(ctx, name)
		if err != nil || z.Len() != 20 || !z.ModTime.Equal(later) {
			t.Errorf("LoadOrBuild after a change: %v, %v", z, err)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	name, _ := writeFile(t, t.TempDir(), "f.tfrecord", 10, tfrecord.None)
	x, err := Build(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := x.MarshalBinary()
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x40
		if err := new(Index).UnmarshalBinary(bad); err == nil {
			t.Fatalf("a flipped bit at byte %d was accepted", i)
		}
	}
	for n := range len(good) {
		if err := new(Index).UnmarshalBinary(good[:n]); err == nil {
			t.Fatalf("the first %d bytes were accepted", n)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	name, _ := writeFile(f, f.TempDir(), "f.tfrecord", 10, tfrecord.None)
	x, err := Build(context.Background(), name)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := x.MarshalBinary()
	f.Add(good)
	f.Add(marshalV1(x))
	f.Add([]byte(magic))
	f.Add(append([]byte(magic), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
	f.Fuzz(func(t *testing.T, data []byte) {
		var x Index
		if err := x.UnmarshalBinary(data); err != nil {
			return
		}
		// What decodes is consistent: records in order, ending at Size,
		// and encodes back to the same bytes.
		var prev int64
		for i := range x.Len() {
			start, end := x.Record(i)
			if start != prev || end-start < overhead {
				t.Fatalf("record %d: [%d, %d)", i, start, end)
			}
			prev = end
		}
		if prev != x.Size {
			t.Fatalf("records end at %d, the file at %d", prev, x.Size)
		}
		again, _ := x.MarshalBinary()
		if bytes.HasPrefix(data, []byte(magicV1)) {
			again = marshalV1(&x)
		}
		if !bytes.Equal(again, data) {
			t.Fatal("decoding and encoding changed the bytes")
		}
	})
}

// Where an index is found from: an index saved under a relative name is
// found from another working folder and by the absolute path, in the
// cache and beside the file; one beside a file moved with it (size and
// time kept) still serves it.
func TestLoadFromElsewhere(t *testing.T) {
	for _, beside := range []bool{false, true} {
		t.Run(fmt.Sprintf("beside=%v", beside), func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
			root := t.TempDir()
			data := filepath.Join(root, "data")
			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			abs, _ := writeFile(t, data, "x.tfrecord", 10, tfrecord.None)
			t.Chdir(root)
			x, err := Build(t.Context(), filepath.Join("data", "x.tfrecord"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Save(t.Context(), beside); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(t.Context(), abs); err != nil {
				t.Errorf("by the absolute path: %v", err)
			}
			t.Chdir(data)
			if _, err := Load(t.Context(), "x.tfrecord"); err != nil {
				t.Errorf("from the file's folder: %v", err)
			}
			if !beside {
				return
			}
			moved := filepath.Join(t.TempDir(), "moved")
			if err := os.Rename(data, moved); err != nil {
				t.Fatal(err)
			}
			if y, err := Load(t.Context(), filepath.Join(moved, "x.tfrecord")); err != nil || y.Len() != 10 {
				t.Errorf("beside a moved file: %v", err)
			}
		})
	}
}

// A stale index beside a file does not hide the current one LoadOrBuild
// cached when it found the stale one: the next Load finds it, and the
// file is not read again.
func TestLoadStaleBesideCurrentCached(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	name, _ := writeFile(t, dir, "x.tfrecord", 10, tfrecord.None)
	x, err := Build(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Save(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	more, _ := writeFile(t, t.TempDir(), "more.tfrecord", 3, tfrecord.None)
	extra, err := os.ReadFile(more)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(extra)
	f.Close()
	if _, err := Load(t.Context(), name); !errors.Is(err, ErrStale) {
		t.Fatalf("Load of a grown file = %v; want ErrStale", err)
	}
	if y, err := LoadOrBuild(t.Context(), name); err != nil || y.Len() != 13 {
		t.Fatalf("LoadOrBuild = %v", err)
	}
	y, err := Load(t.Context(), name)
	if err != nil || y.Len() != 13 {
		t.Fatalf("Load after LoadOrBuild cached a current index = %v", err)
	}
}

// marshalV1 encodes x as version 1 of the format did, without a version:
// the indexes saved before 2026-11-27.
func marshalV1(x *Index) []byte {
	b := []byte(magicV1)
	b = protowire.AppendBytes(b, []byte(x.Name))
	b = protowire.AppendVarint(b, uint64(x.Size))
	if x.ModTime.IsZero() {
		b = protowire.AppendVarint(b, 0)
	} else {
		b = protowire.AppendVarint(b, 1)
		b = protowire.AppendVarint(b, uint64(x.ModTime.UnixNano()))
	}
	b = protowire.AppendVarint(b, uint64(len(x.ends)))
	var prev int64
	for _, end := range x.ends {
		b = protowire.AppendVarint(b, uint64(end-prev))
		prev = end
	}
	sum := crc32.ChecksumIEEE(b)
	return binary.LittleEndian.AppendUint32(b, sum)
}

// An index saved in version 1 of the format, before versions were
// recorded, still serves the local file it was built for: a local file
// has no version.
func TestLoadVersion1(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	ctx := context.Background()
	name, _ := writeFile(t, t.TempDir(), "f.tfrecord", 20, tfrecord.None)
	x, err := Build(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if x.Version != "" {
		t.Fatalf("a local file's index has version %q", x.Version)
	}
	if err := os.WriteFile(Beside(name), marshalV1(x), 0o644); err != nil {
		t.Fatal(err)
	}
	y, err := Load(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != x.Len() || y.Stored() != Beside(name) {
		t.Errorf("loaded %d records from %q, want %d from %q", y.Len(), y.Stored(), x.Len(), Beside(name))
	}
	if !IsIndex(marshalV1(x)) {
		t.Error("IsIndex does not know a version 1 index")
	}
}
