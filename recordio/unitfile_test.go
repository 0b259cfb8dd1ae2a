package recordio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// ctxFS is an object store in miniature: a file's reads fail once the
// context it was opened with ends, as storage/blobfs's do, and return at
// most 7 bytes each, so buffered readers come back for more. The read
// numbered stallAt (from 1, over all files) blocks until that context
// ends, as one stalled on the network would.
type ctxFS struct {
	mu      sync.Mutex
	files   map[string][]byte
	reads   atomic.Int64
	stallAt int64
	stalled chan struct{} // receives when a read starts to stall
}

func (fs *ctxFS) Open(ctx context.Context, name string) (storage.File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	data, ok := fs.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: not found", name)
	}
	return &ctxFile{fs: fs, ctx: ctx, name: name, r: bytes.NewReader(data)}, nil
}

func (fs *ctxFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return nil, errors.New("read only")
}

func (fs *ctxFS) Glob(ctx context.Context, pattern string) ([]string, error) { return nil, nil }

type ctxFile struct {
	fs   *ctxFS
	ctx  context.Context
	name string
	r    *bytes.Reader
}

func (f *ctxFile) check() error {
	if f.fs.reads.Add(1) == f.fs.stallAt {
		f.fs.stalled <- struct{}{}
		<-f.ctx.Done()
	}
	if err := f.ctx.Err(); err != nil {
		return fmt.Errorf("read %s: %w", f.name, err)
	}
	return nil
}

func (f *ctxFile) Read(p []byte) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	return f.r.Read(p[:min(len(p), 7)])
}

func (f *ctxFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	return f.r.ReadAt(p, off)
}

func (f *ctxFile) Close() error { return nil }
func (f *ctxFile) Size() int64  { return f.r.Size() }
func (f *ctxFile) Name() string { return f.name }

func registerCtxFS(t *testing.T, files map[string][]byte) *ctxFS {
	t.Helper()
	fs := &ctxFS{files: files, stalled: make(chan struct{}, 1)}
	storage.Register("ctxtest", fs)
	t.Cleanup(func() { storage.Unregister("ctxtest") })
	return fs
}

func tfrecordBytes(t *testing.T, recs ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b)
	for _, r := range recs {
		if err := w.Write([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func ctxFiles(t *testing.T) map[string][]byte {
	return map[string][]byte{
		"ctxtest://b/r.tfrecord": tfrecordBytes(t, "alpha", "beta", "gamma", "delta"),
		"ctxtest://b/lines.txt":  []byte("header\nalpha\nbeta\ngamma\ndelta\n"),
		"ctxtest://b/fixed.bin":  []byte("HHalphabeta_gammadelta"),
		"ctxtest://b/whole.bin":  []byte("alpha beta gamma delta"),
	}
}

// ctxCases are a reader of each built-in file format over ctxFiles.
var ctxCases = []struct {
	name string
	unit string
	mk   func(q queue.Queue) (*Reader, error)
	want []string
}{
	{"TFRecord", "ctxtest://b/r.tfrecord", func(q queue.Queue) (*Reader, error) {
		return NewTFRecordReader(q, tfrecord.None), nil
	}, []string{"alpha", "beta", "gamma", "delta"}},
	{"TextLine", "ctxtest://b/lines.txt", func(q queue.Queue) (*Reader, error) {
		return NewTextLineReader(q, SkipHeaderLines(1))
	}, []string{"alpha", "beta", "gamma", "delta"}},
	{"FixedLength", "ctxtest://b/fixed.bin", func(q queue.Queue) (*Reader, error) {
		return NewFixedLengthRecordReader(q, 5, HeaderBytes(2))
	}, []string{"alpha", "beta_", "gamma", "delta"}},
	{"WholeFile", "ctxtest://b/whole.bin", func(q queue.Queue) (*Reader, error) {
		return NewWholeFileReader(q), nil
	}, []string{"alpha beta gamma delta"}},
}

// A reader whose every Read gets a context of its own, ended as the call
// returns (a timeout per call), reads whole units from an object store:
// the unit's file does not die with the Read that opened it.
func TestContextPerRead(t *testing.T) {
	registerCtxFS(t, ctxFiles(t))
	for _, tc := range ctxCases {
		t.Run(tc.name, func(t *testing.T) {
			q := workQueue(t, tc.unit)
			q.Close(bg)
			r, err := tc.mk(q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				ctx, cancel := context.WithTimeout(bg, time.Minute)
				_, v, err := r.Read(ctx)
				cancel()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %q: %v", got, err)
				}
				got = append(got, string(v))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A read stalled on the network returns when its context is cancelled,
// with the context's error, and the unit fails.
func TestCancelStalledRead(t *testing.T) {
	fs := registerCtxFS(t, map[string][]byte{"ctxtest://b/r.tfrecord": tfrecordBytes(t, "alpha")})
	fs.stallAt = 1
	q := workQueue(t, "ctxtest://b/r.tfrecord")
	q.Close(bg)
	r := NewTFRecordReader(q, tfrecord.None)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		_, _, err := r.Read(ctx)
		done <- err
	}()
	<-fs.stalled
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Read = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked 10s after its context was cancelled")
	}
}

// A Read cut off by its context while stalled on an object store returns
// the context's error; the next Read reopens the unit where the cut-off
// one started, so no record is lost or read twice. Each stall point is
// tried: the open, the header, and reads inside the unit.
func TestResumeAfterCutOffRead(t *testing.T) {
	for _, tc := range ctxCases {
		for stallAt := int64(1); stallAt <= 6; stallAt++ {
			t.Run(fmt.Sprintf("%s/read%d", tc.name, stallAt), func(t *testing.T) {
				fs := registerCtxFS(t, ctxFiles(t))
				fs.stallAt = stallAt
				q := workQueue(t, tc.unit)
				q.Close(bg)
				r, err := tc.mk(q)
				if err != nil {
					t.Fatal(err)
				}
				// One watcher gives up on the Read in progress when its read
				// stalls. (A watcher per Read could take the signal meant for
				// the next one after its own Read returned.)
				var current atomic.Pointer[context.CancelFunc]
				stop := make(chan struct{})
				var wg sync.WaitGroup
				defer wg.Wait()
				defer close(stop)
				wg.Go(func() {
					for {
						select {
						case <-fs.stalled:
							(*current.Load())()
						case <-stop:
							return
						}
					}
				})
				var got []string
				cutOff := 0
				for range 20 {
					ctx, cancel := context.WithCancel(bg)
					current.Store(&cancel)
					_, v, err := r.Read(ctx)
					cancel()
					if errors.Is(err, io.EOF) {
						break
					}
					if errors.Is(err, context.Canceled) {
						cutOff++
						continue
					}
					if err != nil {
						t.Fatalf("after %q: %v", got, err)
					}
					got = append(got, string(v))
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
				if stall := fs.reads.Load() >= stallAt; stall && cutOff != 1 {
					t.Errorf("%d reads cut off, want the stalled one", cutOff)
				}
			})
		}
	}
}
