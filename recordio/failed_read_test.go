package recordio

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// hiccupFS serves in-memory files as an object store would, except that
// the first read of each file to reach failAt fails part-way, as a reset
// connection does once the store's own retries are spent.
type hiccupFS struct {
	mu     sync.Mutex
	files  map[string][]byte
	failAt int64
	failed map[string]bool
	// eofAtEnd makes a read that ends at the end of the file return
	// io.EOF with its bytes, as io.ReaderAt allows.
	eofAtEnd bool
}

var errHiccup = errors.New("connection reset")

func (h *hiccupFS) Open(_ context.Context, name string) (storage.File, error) {
	d, ok := h.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return &hiccupFile{fs: h, name: name, data: d}, nil
}

func (h *hiccupFS) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}

func (h *hiccupFS) Glob(context.Context, string) ([]string, error) { return nil, nil }

type hiccupFile struct {
	fs   *hiccupFS
	name string
	data []byte
	off  int64
}

func (f *hiccupFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	f.fs.mu.Lock()
	fail := !f.fs.failed[f.name] && off <= f.fs.failAt && off+int64(len(p)) > f.fs.failAt
	if fail {
		f.fs.failed[f.name] = true
	}
	f.fs.mu.Unlock()
	if fail {
		return copy(p, f.data[off:f.fs.failAt]), errHiccup
	}
	n := copy(p, f.data[off:])
	if n < len(p) || f.fs.eofAtEnd && off+int64(n) == int64(len(f.data)) {
		return n, io.EOF
	}
	return n, nil
}

func (f *hiccupFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *hiccupFile) Close() error { return nil }
func (f *hiccupFile) Size() int64  { return int64(len(f.data)) }
func (f *hiccupFile) Name() string { return f.name }

// A read of an object that fails mid-record (READERS §4, §5) is reported,
// and the next read reopens the unit where the failed one began: the
// record comes whole, under its own key, and none is lost or misaligned.
func TestRemoteReadAfterFailure(t *testing.T) {
	for i, tc := range []struct {
		kind   string
		data   string
		failAt int64
		opts   []Option
		want   []string
	}{
		{"TextLineReader", "alpha\nbravo\ncharlie\ndelta\n", 14, nil, []string{"1=alpha", "2=bravo", "3=charlie", "4=delta"}},
		{"FixedLengthRecordReader", "000111222333444", 7, []Option{RecordBytes(3)}, []string{"0=000", "1=111", "2=222", "3=333", "4=444"}},
		{"FixedLengthRecordReader", "h000111222333", 8, []Option{RecordBytes(3), HeaderBytes(1), HopBytes(3)}, []string{"0=000", "1=111", "2=222", "3=333"}},
	} {
		t.Run(fmt.Sprint(tc.kind, i), func(t *testing.T) {
			scheme := fmt.Sprintf("hiccup%d", i)
			name := scheme + "://bucket/f"
			storage.Register(scheme, &hiccupFS{files: map[string][]byte{name: []byte(tc.data)}, failAt: tc.failAt, failed: map[string]bool{}})
			t.Cleanup(func() { storage.Unregister(scheme) })
			q := workQueue(t, name)
			q.Close(bg)
			r, err := Open(tc.kind, q, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			failures := 0
			for range 20 {
				k, v, err := r.Read(bg)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if !errors.Is(err, errHiccup) {
						t.Fatal(err)
					}
					failures++
					continue
				}
				got = append(got, strings.TrimPrefix(k, name+":")+"="+string(v))
			}
			if failures != 1 || strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%d failures, then %q; want 1, then %q", failures, got, tc.want)
			}
		})
	}
}

// A local file's failed read has consumed an unknown part of its record:
// the error is returned again until the unit changes, rather than the
// rest of the record as a record of its own, under the wrong key, or the
// next file's records as if the file had ended.
func TestLocalFailedReadKept(t *testing.T) {
	dir := t.TempDir()
	var broken bytes.Buffer
	zw := gzip.NewWriter(&broken)
	zw.Write([]byte("000111222333444555"))
	zw.Close()
	gz := broken.Bytes()
	gz = append(gz[:len(gz)-12:len(gz)-12], bytes.Repeat([]byte{0xff}, 12)...) // a damaged end of stream
	for _, tc := range []struct {
		name   string
		kind   string
		first  []byte
		opts   []Option
		before []string // records of the first file before the failure
	}{
		{"line too long", "TextLineReader", []byte("short\n" + strings.Repeat("x", 95) + "TAIL!\nend\n"),
			[]Option{MaxRecordSize(64)}, []string{"1=short"}},
		{"broken compressed stream", "FixedLengthRecordReader", gz,
			[]Option{RecordBytes(3), Compression(tfrecord.Gzip)}, []string{"0=000", "1=111", "2=222", "3=333", "4=444", "5=555"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := writeFile(t, dir, tc.name+"-1", tc.first)
			second := writeFile(t, dir, tc.name+"-2", []byte("next\n"))
			q := workQueue(t, first, second)
			q.Close(bg)
			r, err := Open(tc.kind, q, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var firstErr error
			for range 3 + len(tc.before) {
				k, v, err := r.Read(bg)
				if err != nil {
					if firstErr == nil {
						firstErr = err
					} else if err.Error() != firstErr.Error() {
						t.Fatalf("read after the failure: %v; want %v again", err, firstErr)
					}
					continue
				}
				got = append(got, strings.TrimPrefix(k, first+":")+"="+string(v))
			}
			if firstErr == nil || strings.Join(got, " ") != strings.Join(tc.before, " ") {
				t.Fatalf("records %q and error %v; want %q, then an error, kept", got, firstErr, tc.before)
			}

		})
	}
}

// record_bytes is a setting from outside: one past the record limit is
// refused, and one far beyond a file's size costs the file's bytes, not
// the setting's.
func TestFixedLengthHugeRecord(t *testing.T) {
	dir := t.TempDir()
	name := writeFile(t, dir, "small", []byte("123456"))
	for _, opts := range [][]Option{
		{RecordBytes(math.MaxInt), FooterBytes(1)},
		{RecordBytes(1 << 20), MaxRecordSize(1 << 20), FooterBytes(1)},
	} {
		if _, err := Open("FixedLengthRecordReader", workQueue(t, name), opts...); !errors.Is(err, queue.ErrInvalidArgument) {
			t.Errorf("record_bytes beyond the limit: %v; want an invalid argument", err)
		}
	}
	q := workQueue(t, name)
	q.Close(bg)
	r, err := Open("FixedLengthRecordReader", q, RecordBytes(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = r.Read(bg)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.EOF) {
		t.Errorf("a 1 GiB record of a 6-byte file: %v; want end of input", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("reading a 6-byte file of 1 GiB records allocated %d bytes", grew)
	}
}

// A text position after a file's last line restores where the file's
// ReaderAt returns io.EOF with a whole read that ends at its end, as
// io.ReaderAt allows: the restore read the byte before the position and
// took that io.EOF for a failure (audit 101). Every checkpoint taken at a
// file's end was refused on such a file system.
func TestRestoreTextAtEndEOFAtEnd(t *testing.T) {
	for i, text := range []string{"a\nb\nc\n", "a\nb\nc"} {
		scheme := fmt.Sprintf("eofatend%d", i)
		name := scheme + "://bucket/f"
		storage.Register(scheme, &hiccupFS{files: map[string][]byte{name: []byte(text)}, failAt: -1, failed: map[string]bool{}, eofAtEnd: true})
		t.Cleanup(func() { storage.Unregister(scheme) })
		q := workQueue(t, name, name)
		q.Close(bg)
		r, err := NewTextLineReader(q)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, _, err := r.Read(bg); err != nil {
				t.Fatal(err)
			}
		}
		state, err := r.SerializeState()
		if err != nil {
			t.Fatal(err)
		}
		q2 := workQueue(t) // the unit restored is the file's, read to its end
		q2.Close(bg)
		r2, err := NewTextLineReader(q2)
		if err != nil {
			t.Fatal(err)
		}
		if err := r2.RestoreState(bg, state); err != nil {
			t.Fatalf("%q: restore at the end: %v", text, err)
		}
		if k, v, err := r2.Read(bg); !errors.Is(err, io.EOF) {
			t.Errorf("%q: after the restore at the end: %s=%q, %v; want io.EOF", text, k, v, err)
		}
	}
}
