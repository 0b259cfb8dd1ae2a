package sluice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeTFRecords writes recs as a TFRecord file.
func writeTFRecords(t *testing.T, name string, recs ...[]byte) {
	t.Helper()
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b, tfrecord.None)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// forgedIndex returns an index of the local file name, in version 1 of
// the format, whose records take the given lengths.
func forgedIndex(t *testing.T, name string, lengths ...int64) []byte {
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte("sluice-index 1\n")
	b = protowire.AppendBytes(b, []byte(name))
	b = protowire.AppendVarint(b, uint64(st.Size()))
	b = protowire.AppendVarint(b, 1)
	b = protowire.AppendVarint(b, uint64(st.ModTime().UnixNano()))
	b = protowire.AppendVarint(b, uint64(len(lengths)))
	for _, l := range lengths {
		b = protowire.AppendVarint(b, uint64(l))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// An index beside a sound file whose spans are not the file's records,
// though its checksum holds and its spans end where the file does (one
// forged, or left by a file rewritten with the same size and time): the
// global shuffle's error names the index as what does not match, not the
// data file as damaged (audit 43).
func TestGlobalIndexNotMatchingFile(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	name := filepath.Join(t.TempDir(), "x.tfrecord")
	// Records of 26, 36 and 46 framed bytes.
	writeTFRecords(t, name, bytes.Repeat([]byte("a"), 10), bytes.Repeat([]byte("b"), 20), bytes.Repeat([]byte("c"), 30))
	for _, spans := range [][]int64{{62, 46}, {26, 82}, {108}} {
		t.Run(fmt.Sprint(spans), func(t *testing.T) {
			if err := os.WriteFile(index.Beside(name), forgedIndex(t, name, spans...), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(index.Beside(name))
			var rerr error
			for _, err := range Records(name, GlobalShuffle(), Seed(1)).Batches(t.Context(), 1) {
				if err != nil {
					rerr = err
					break
				}
			}
			if rerr == nil || !strings.Contains(rerr.Error(), "the index "+index.Beside(name)+" does not match the file") {
				t.Errorf("reading at the spans %v of a forged index: %v; want an error naming the index", spans, rerr)
			}
		})
	}
}

// An index that says a record takes a large span of its file is not what
// sizes the room the record is read into: the record's header, read
// first, says how long the record is (audit 43). Without the check, this
// read allocated the 16 MiB span before it found the record was 10 bytes.
func TestGlobalIndexSpanNotAllocated(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	name := filepath.Join(t.TempDir(), "x.tfrecord")
	big := 16 << 20
	writeTFRecords(t, name, []byte("aaaaaaaaaa"), make([]byte, big))
	if err := os.WriteFile(index.Beside(name), forgedIndex(t, name, 26+16+int64(big)), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var rerr error
	for _, err := range Records(name, GlobalShuffle(), Seed(1), Readers(1)).Batches(t.Context(), 1) {
		if err != nil {
			rerr = err
			break
		}
	}
	runtime.ReadMemStats(&after)
	if rerr == nil || !strings.Contains(rerr.Error(), "the index "+index.Beside(name)+" does not match the file") ||
		!strings.Contains(rerr.Error(), "the record takes 26 bytes") {
		t.Errorf("reading a forged index's span: %v; want an error naming the index and the record's length", rerr)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(big)/2 {
		t.Errorf("reading a forged index's %d-byte span allocated %d bytes", big+42, got)
	}
}

// A file rewritten with its size and modification time kept (touch -r)
// keeps an index that no longer matches it, which nothing in the file's
// attributes tells; the global shuffle's error then blames the index
// (index.ErrStale), the file being sound TFRecord, not the file as
// damaged, once a read through the index fails (audit 53).
func TestGlobalIndexOfRewrittenFile(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	name := filepath.Join(t.TempDir(), "x.tfrecord")
	var old, rewritten [][]byte
	for range 10 {
		old = append(old, []byte("aaaa")) // 20 bytes framed
	}
	for range 5 {
		rewritten = append(rewritten, bytes.Repeat([]byte("b"), 24)) // 40
	}
	writeTFRecords(t, name, old...)
	if _, err := index.LoadOrBuild(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	writeTFRecords(t, name, rewritten...)
	if err := os.Chtimes(name, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	var rerr error
	for _, err := range Records(name, GlobalShuffle(), Seed(1), Readers(1)).Batches(t.Context(), 1) {
		if err != nil {
			rerr = err
			break
		}
	}
	if !errors.Is(rerr, index.ErrStale) || !strings.Contains(rerr.Error(), "does not match the file") {
		t.Errorf("reading a rewritten file through its old index: %v; want index.ErrStale naming the index", rerr)
	}
	// A file damaged where the index points is damage, not a stale index.
	writeTFRecords(t, name, old...)
	if _, err := index.LoadOrBuild(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(name)
	data[20+3] ^= 0xff // the second record's length
	st, _ = os.Stat(name)
	os.WriteFile(name, data, 0o644)
	os.Chtimes(name, st.ModTime(), st.ModTime())
	rerr = nil
	for _, err := range Records(name, GlobalShuffle(), Seed(1), Readers(1)).Batches(t.Context(), 1) {
		if err != nil {
			rerr = err
			break
		}
	}
	if !errors.Is(rerr, tfrecord.ErrDataLoss) || errors.Is(rerr, index.ErrStale) {
		t.Errorf("reading a damaged file through its index: %v; want ErrDataLoss alone", rerr)
	}
}

// A file rewritten after the global shuffle loaded its index, and before
// a reader opened it, is not read at the old version's offsets: the
// reader checks the file it opens against the index (audit 43).
func TestGlobalFileChangedAfterIndexLoaded(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	big, small := filepath.Join(dir, "a.tfrecord"), filepath.Join(dir, "b.tfrecord")
	var recs [][]byte
	for i := range 5000 {
		recs = append(recs, fmt.Appendf(nil, "a%04d", i))
	}
	writeTFRecords(t, big, recs...)
	writeTFRecords(t, small, []byte("bbbbbbbbbb"), []byte("b"))
	// A seed whose order reads b.tfrecord's records late in the epoch,
	// well after the batches the readers take ahead of the first.
	var seed uint64
	for seed = 1; ; seed++ {
		pos := 0
		for b, err := range Records(filepath.Join(dir, "*.tfrecord"), GlobalShuffle(), Seed(seed), Readers(1)).Batches(t.Context(), 1) {
			if err != nil {
				t.Fatal(err)
			}
			if b.Bytes(RecordFeature)[0][0] == 'b' {
				break
			}
			pos++
		}
		if pos > 1000 {
			break
		}
	}
	it, err := Records(filepath.Join(dir, "*.tfrecord"), GlobalShuffle(), Seed(seed), Readers(1)).Iterator(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if _, err := it.Next(); err != nil {
		t.Fatal(err)
	}
	// The same size, the records' boundaries moved, a later time.
	writeTFRecords(t, small, []byte("b"), []byte("bbbbbbbbbb"))
	later := time.Now().Add(time.Second)
	os.Chtimes(small, later, later)
	for {
		b, err := it.Next()
		if err != nil {
			if !errors.Is(err, index.ErrStale) || !strings.Contains(err.Error(), small) {
				t.Fatalf("reading the rewritten file: %v; want ErrStale naming it", err)
			}
			return
		}
		if b.Bytes(RecordFeature)[0][0] == 'b' {
			t.Fatalf("read %q from a file rewritten since its index was loaded", b.Bytes(RecordFeature)[0])
		}
	}
}

// A reader keeps at most maxDescriptors local files open, the least
// recently used closed first: each reader reads from every file, and kept
// them all open until the run ended, readers × files descriptors (audit
// 46: 2130 for 300 files, past a limit of 1024).
func TestGlobalBoundsOpenFiles(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to count descriptors by")
	}
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	const files, readers = 3 * maxDescriptors, 2
	for i := range files {
		writeTFRecords(t, filepath.Join(dir, fmt.Sprintf("f%03d.tfrecord", i)), fmt.Appendf(nil, "%d", i), fmt.Appendf(nil, "%d", i))
	}
	open := func() int {
		fds, _ := os.ReadDir("/proc/self/fd")
		return len(fds)
	}
	base, most, records := open(), 0, 0
	for b, err := range Records(filepath.Join(dir, "*.tfrecord"), GlobalShuffle(), Readers(readers), Seed(1)).Batches(t.Context(), 4) {
		if err != nil {
			t.Fatal(err)
		}
		records += b.Len()
		most = max(most, open())
	}
	if records != 2*files {
		t.Fatalf("%d records, want %d", records, 2*files)
	}
	// Beside the readers' files: the index loads' and the runtime's own.
	if most-base > readers*maxDescriptors+16 {
		t.Errorf("%d descriptors open while reading, %d before: more than %d readers × %d files", most, base, readers, maxDescriptors)
	}
}
