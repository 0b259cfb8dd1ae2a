package storage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// A named pipe is opened without blocking the program in open(2): the
// open waits for a writer only as long as its context allows, and then
// reads what the writer writes, to its end, as a blocking open would.
func TestOpenFIFO(t *testing.T) {
	fifo := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		return p
	}
	t.Run("no writer", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		f, err := storage.Open(ctx, fifo(t))
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Errorf("open with no writer: %v after %v, want the context's error promptly", err, time.Since(start))
		}
	})
	for _, data := range []string{"", "records"} {
		t.Run("writer after the open "+data, func(t *testing.T) {
			p := fifo(t)
			done := make(chan error, 1)
			go func() {
				time.Sleep(50 * time.Millisecond) // the reader waits first
				w, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err == nil {
					_, err = w.Write([]byte(data))
					w.Close()
				}
				done <- err
			}()
			f, err := storage.Open(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Size() != -1 {
				t.Errorf("Size %d, want -1", f.Size())
			}
			got, err := io.ReadAll(f)
			if err != nil || string(got) != data {
				t.Errorf("read %q, %v; want %q", got, err, data)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("read deadline", func(t *testing.T) {
		p := fifo(t)
		w := make(chan *os.File, 1)
		go func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.Write([]byte("x"))
			w <- f
		}()
		f, err := storage.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		defer (<-w).Close()
		buf := make([]byte, 8)
		if n, err := f.Read(buf); n != 1 || err != nil {
			t.Fatalf("first read: %d, %v", n, err)
		}
		// The writer is silent now: a deadline ends the blocked read.
		d, ok := f.(interface{ SetReadDeadline(time.Time) error })
		if !ok {
			t.Fatal("the file has no SetReadDeadline")
		}
		time.AfterFunc(50*time.Millisecond, func() { d.SetReadDeadline(time.Unix(1, 0)) })
		if _, err := f.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read past the deadline: %v", err)
		}
	})
}
