package cli

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/internal/fifotest"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// index builds each file's index once, in the cache or beside the file,
// and refuses a compressed file.
func TestIndexCommand(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	a := writeRecords(t, dir, "a.tfrecord", tfrecord.None, []byte("one"), []byte("two"), []byte("three"))
	b := writeRecords(t, dir, "b.tfrecord", tfrecord.None, []byte("four"))
	code, out, errOut := run(t, "index", filepath.Join(dir, "*.tfrecord"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "3\t"+a+"\t") || !strings.HasPrefix(lines[1], "1\t"+b+"\t") {
		t.Fatalf("output:\n%s", out)
	}
	if x, err := index.Load(t.Context(), a); err != nil || x.Len() != 3 {
		t.Fatalf("index of %s: %v, %v", a, x, err)
	}
	// Current indexes are not built again.
	if _, out, _ = run(t, "index", a); !strings.Contains(out, "index current") {
		t.Errorf("second run: %q", out)
	}
	if code, _, errOut := run(t, "index", "--beside", b); code != 0 {
		t.Fatalf("--beside: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(index.Beside(b)); err != nil {
		t.Errorf("--beside: %v", err)
	}
	if code, _, errOut := run(t, "index", "--max-record-size", "4", b); code != 0 {
		t.Errorf("--max-record-size 4, records of 4 bytes: exit %d, %q", code, errOut)
	}
	gz := writeRecords(t, dir, "c.tfrecord.gz", tfrecord.Gzip, []byte("x"))
	code, _, errOut = run(t, "index", gz)
	if code == 0 || !strings.Contains(errOut, "compressed") {
		t.Errorf("compressed file: exit %d, %q", code, errOut)
	}
}

// index refuses what it cannot index with an error that says why.
func TestIndexRefuses(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	// A length field that passes its CRC and announces a 200 MB record in
	// a (sparse) file that long: --max-record-size must refuse it from the
	// length, not after reading it.
	const n = 200 << 20
	big := filepath.Join(dir, "big.tfrecord")
	var h bytes.Buffer
	binary.Write(&h, binary.LittleEndian, uint64(n))
	c := crc32.Checksum(h.Bytes(), crc32.MakeTable(crc32.Castagnoli))
	binary.Write(&h, binary.LittleEndian, ((c>>15)|(c<<17))+0xa282ead8)
	if err := os.WriteFile(big, h.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 12+n+4); err != nil {
		t.Fatal(err)
	}
	small := writeRecords(t, dir, "a.tfrecord", tfrecord.None, []byte("one"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "--max-record-size", "1000", big}, "record size too large"},
		{[]string{"index", "--max-record-size", "1000", big}, "--max-record-size raises the limit"},
		{[]string{"index", "-"}, "-: index reads files at offsets, not standard input"},
		{[]string{"index", small, "/dev/stdin"}, "/dev/stdin: index reads files at offsets, not standard input"},
	} {
		err, _, _ := runIn(t, strings.NewReader("x"), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}

// A file that cannot be indexed does not stop the others, however many
// are indexed at once: each is indexed and printed in order, the failure
// named on standard error, and the exit status is 1.
func TestIndexGoesOnPastAFailure(t *testing.T) {
	for _, parallel := range []string{"1", "4"} {
		t.Run("parallel="+parallel, func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
			dir := t.TempDir()
			var names []string
			for i := range 6 {
				names = append(names, writeRecords(t, dir, fmt.Sprintf("f%d.tfrecord", i), tfrecord.None, []byte("one"), []byte("two")))
			}
			// f1's first record's data CRC and f4's length CRC are wrong.
			for _, bad := range []struct {
				i   int
				off int64
			}{{1, 12 + 3}, {4, 8}} {
				f, err := os.OpenFile(names[bad.i], os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteAt([]byte{0xff}, bad.off); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			code, out, errOut := run(t, "index", "--parallel", parallel, filepath.Join(dir, "*.tfrecord"))
			if code != 1 {
				t.Errorf("exit %d", code)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				got = append(got, strings.Split(line, "\t")[1])
			}
			if want := []string{names[0], names[2], names[3], names[5]}; !slices.Equal(got, want) {
				t.Errorf("printed %q, want %q", got, want)
			}
			for _, i := range []int{0, 2, 3, 5} {
				if x, err := index.Load(t.Context(), names[i]); err != nil || x.Len() != 2 {
					t.Errorf("index of %s: %v", names[i], err)
				}
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if len(lines) != 3 || !strings.Contains(lines[0], names[1]+": ") || !strings.Contains(lines[1], names[4]+": ") ||
				!strings.Contains(lines[2], "2 of 6 files not indexed") {
				t.Errorf("standard error:\n%s", errOut)
			}
		})
	}
}

// An index beside its file, matched by a pattern meant for the records, is
// named for what it is, not called damage.
func TestIndexMatchedByPattern(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	writeRecords(t, dir, "a", tfrecord.None, []byte("one"), []byte("two"))
	if code, _, errOut := run(t, "index", "--beside", filepath.Join(dir, "a")); code != 0 {
		t.Fatal(errOut)
	}
	for _, cmd := range []string{"count", "cat"} {
		code, _, errOut := run(t, cmd, filepath.Join(dir, "*"))
		if code != 1 || !strings.Contains(errOut, "a.idx: ") || !strings.Contains(errOut, "the file starts like a sluice index") || strings.Contains(errOut, "sluice verify") {
			t.Errorf("%s: exit %d, %q", cmd, code, errOut)
		}
	}
	if x := []byte("sluice-index 1\n"); !index.IsIndex(x) || index.IsIndex(x[:14]) {
		t.Error("IsIndex")
	}
}

// index --beside writes FILE.idx when the one there is stale or damaged,
// even if the cache holds a current index, and prints its path: it never
// calls a FILE.idx it was asked to write current when it is not.
func TestIndexBesideRebuildsStale(t *testing.T) {
	for _, damage := range []string{"stale", "damaged", "fifo"} {
		t.Run(damage, func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
			dir := t.TempDir()
			f := writeRecords(t, dir, "f.tfrecord", tfrecord.None, []byte("one"), []byte("two"))
			idx := index.Beside(f)
			if code, _, errOut := run(t, "index", "--beside", f); code != 0 {
				t.Fatalf("--beside: exit %d: %s", code, errOut)
			}
			switch damage {
			case "stale":
				more := writeRecords(t, t.TempDir(), "g.tfrecord", tfrecord.None, []byte("three"), []byte("four"))
				b, _ := os.ReadFile(more)
				fh, _ := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
				fh.Write(b)
				fh.Close()
			case "damaged":
				b, _ := os.ReadFile(idx)
				b[len(b)-1] ^= 0xff
				os.WriteFile(idx, b, 0o644)
			case "fifo":
				os.Remove(idx)
				if err := fifotest.Make(idx); err != nil {
					t.Skip(err)
				}
			}
			want := 2
			if damage == "stale" {
				want = 4
			}
			// A current index in the cache must not stand for FILE.idx.
			if code, _, errOut := run(t, "index", f); code != 0 {
				t.Fatalf("index: exit %d: %s", code, errOut)
			}
			code, out, errOut := run(t, "index", "--beside", f)
			if code != 0 || out != fmt.Sprintf("%d\t%s\t%s\n", want, f, idx) {
				t.Errorf("--beside over a %s FILE.idx: exit %d, %q %q; want %d records and the path %s", damage, code, out, errOut, want, idx)
			}
			x, err := index.Load(t.Context(), f)
			if err != nil || x.Len() != want || x.Stored() != idx {
				t.Errorf("after --beside: %v from %q, %v; want %d records from %s", x, x.Stored(), err, want, idx)
			}
			if _, out, _ := run(t, "index", "--beside", f); !strings.Contains(out, "index current") {
				t.Errorf("--beside again: %q, want index current", out)
			}
		})
	}
}

// An index that is current is not saved again, but what killed saves of
// it left goes all the same: each killed run would otherwise add a
// temporary that no run removes. In the cache, the daily trim removes
// them, which loading an index from it starts as saving one does. A
// stale index beside its file is saved anew, and its leftovers go too.
func TestIndexCurrentRemovesLeftovers(t *testing.T) {
	for _, tc := range []struct {
		beside, stale bool
	}{{false, false}, {true, false}, {true, true}} {
		beside := tc.beside
		t.Run(fmt.Sprintf("beside=%v,stale=%v", beside, tc.stale), func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", filepath.Join(t.TempDir(), "cache"))
			f := writeRecords(t, t.TempDir(), "f.tfrecord", tfrecord.None, []byte("one"))
			args := []string{"index", f}
			if beside {
				args = []string{"index", "--beside", f}
			}
			if code, _, errOut := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			x, err := index.Load(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			dir, base := filepath.Split(x.Stored())
			dead := filepath.Join(dir, "."+base+storage.TempMarker+storage.LockedTag+"dead01")
			if err := os.WriteFile(dead, []byte("half"), 0o644); err != nil {
				t.Fatal(err)
			}
			if !beside {
				// A day since the last trim.
				day := time.Now().Add(-25 * time.Hour)
				os.Chtimes(filepath.Join(dir, "trim.txt"), day, day)
			}
			if tc.stale {
				// Built again, and saved without a listing of its own.
				later := time.Now().Add(time.Hour)
				os.Chtimes(f, later, later)
			}
			code, out, errOut := run(t, args...)
			if code != 0 || strings.Contains(out, "index current") != !tc.stale {
				t.Fatalf("rerun: exit %d: %q %q", code, out, errOut)
			}
			if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the dead save's temporary %s is still there (%v)", dead, err)
			}
		})
	}
}
